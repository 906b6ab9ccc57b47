// Test helpers: build a timeline state from events and render every row
// without virtualization.

import { render } from "@testing-library/react";
import { applyEvent, emptyState, type TimelineState } from "../timeline/state";
import { toDisplayRows } from "../timeline/groups";
import type { AgentEvent } from "../timeline/types";
import { TimelineContext } from "./context";
import { MessageRow, rowRev } from "../features/task-view/MessageRow";

export function stateOf(events: readonly AgentEvent[]): TimelineState {
  const s = emptyState();
  events.forEach((e, i) => applyEvent(s, e, i + 1));
  return s;
}

export function StaticTimeline({ state }: { state: TimelineState }) {
  return (
    <TimelineContext.Provider value={{ state }}>
      {toDisplayRows(state).map((r) => (
        <div key={r.key} data-row-key={r.key}>
          <MessageRow row={r} state={state} rev={rowRev(r)} />
        </div>
      ))}
    </TimelineContext.Provider>
  );
}

export function renderEvents(events: readonly AgentEvent[]) {
  const state = stateOf(events);
  return { state, ...render(<StaticTimeline state={state} />) };
}

// ToolUsePart is a tool card: a one-line header (what the tool did, its live
// state, elapsed time) that expands into the tool kind's renderer. The card
// finds its result by toolId in the timeline state.

import { useState } from "react";
import type { PartProps } from "./types";
import { useTimeline } from "./context";
import { textOf, toolView } from "../timeline/state";
import { toolRenderer } from "./tools/registry";
import type { ToolProps } from "./tools/types";
import { asObject, formatDuration } from "./util";
import { useNow } from "./useNow";
import type { ToolState } from "../timeline/types";

/** stateLabel names a tool state; the switch is exhaustive over the generated enum. */
export function stateLabel(state: ToolState): string {
  switch (state) {
    case "pending":
      return "Pending";
    case "running":
      return "Running";
    case "completed":
      return "Done";
    case "error":
      return "Failed";
    case "denied":
      return "Denied";
    case "cancelled":
      return "Cancelled";
    case "interrupted":
      return "Interrupted";
    default: {
      const _exhaustive: never = state;
      return String(_exhaustive);
    }
  }
}

export function ToolStateIcon({ state }: { state: ToolState }) {
  return <span className={`jc-tool-state is-${state}`} aria-label={stateLabel(state)} title={stateLabel(state)} />;
}

const ENDED_EARLY: readonly ToolState[] = ["denied", "cancelled", "interrupted"];

export function ToolUsePart({ part, message, depth }: PartProps) {
  const { state } = useTimeline();
  const view = toolView(state, part, message.id);
  const props: ToolProps = {
    view,
    input: asObject(part.input),
    output: view.result ? textOf(view.result.content) : (view.liveResult ?? ""),
    message,
    depth,
    state,
  };
  const R = toolRenderer(part.kind);
  const [open, setOpen] = useState<boolean | null>(null);
  const isOpen = open ?? (R.defaultOpen?.(props) ?? false);
  const active = view.state === "running" || view.state === "pending";
  const now = useNow(active && view.startedAt !== undefined);
  const elapsed = view.startedAt !== undefined ? (view.endedAt ?? (active ? now : undefined)) : undefined;
  const decision = part.toolId ? state.decisions.get(part.toolId) : undefined;
  const awaiting = [...state.pending.values()].find((c) => c.request.toolId && c.request.toolId === part.toolId);
  return (
    <div
      className={`jc-part jc-tool is-${view.state}${isOpen ? " is-open" : ""}`}
      data-tool-kind={part.kind ?? "other"}
      data-tool-id={part.toolId}
      data-state={view.state}
    >
      <button type="button" className="jc-tool__header" aria-expanded={isOpen} onClick={() => setOpen(!isOpen)}>
        <ToolStateIcon state={view.state} />
        <span className="jc-tool__verb">{R.verb(props)}</span>
        <span className="jc-tool__summary">{R.summary(props)}</span>
        <span className="jc-tool__spacer" />
        {awaiting ? <span className="jc-chip is-waiting">{awaiting.kind === "question" ? "awaiting your answer" : "awaiting approval"}</span> : null}
        {view.error && view.state === "error" && !view.result ? <span className="jc-chip is-error">{view.error}</span> : null}
        {ENDED_EARLY.includes(view.state) ? (
          <span className="jc-chip is-ended" title={view.error}>
            {stateLabel(view.state).toLowerCase()}
            {view.error ? `: ${view.error}` : ""}
          </span>
        ) : null}
        {decision ? (
          <span className={`jc-chip ${decision.behavior === "deny" ? "is-error" : "is-decision"}`} title={decision.message || decision.label}>
            {decision.label || `${decision.behavior === "deny" ? "denied" : "allowed"} ${decision.scope === "once" ? "once" : `for this ${decision.scope}`}`}
          </span>
        ) : null}
        {elapsed !== undefined && view.startedAt !== undefined && elapsed - view.startedAt >= 0 && elapsed - view.startedAt < 86_400_000 ? (
          <span className="jc-tool__elapsed">{formatDuration(elapsed - view.startedAt)}</span>
        ) : null}
        <span className="jc-chevron" aria-hidden="true" />
      </button>
      {isOpen ? (
        <div className="jc-tool__body">
          <R.Body {...props} />
        </div>
      ) : null}
    </div>
  );
}

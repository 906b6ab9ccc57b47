// TimelineContext gives part components read access to the task's
// normalized state (to find a tool's result, live state and sub-agent
// messages). Rows re-render through their revision numbers, so components
// read the state during render instead of subscribing.

import { createContext, useContext } from "react";
import { emptyState, type TimelineState } from "../timeline/state";

export interface TimelineCtx {
  state: TimelineState;
}

const fallback: TimelineCtx = { state: emptyState() };

export const TimelineContext = createContext<TimelineCtx>(fallback);

export function useTimeline(): TimelineCtx {
  return useContext(TimelineContext);
}

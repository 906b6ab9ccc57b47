// turnEndOf finds how the turn holding a message ended, when it has: the
// first top-level result row after it. A tool call still pending or running
// when its turn ended never finished (it was cancelled, or interrupted by
// the user's Stop).

import type { TimelineState } from "../timeline/state";
import { turnOutcome } from "../lib/status";

export interface TurnEnd {
  resultId: string;
  stopped: boolean;
}

export function turnEndOf(s: TimelineState, messageId: string): TurnEnd | undefined {
  const i = s.order.indexOf(messageId);
  if (i < 0) return undefined;
  for (let j = i + 1; j < s.order.length; j++) {
    const e = s.messages.get(s.order[j]);
    if (!e) continue;
    const m = e.msg;
    if (m.role === "user" && !m.parentToolUseId && !(m.parts ?? []).every((p) => p.type === "tool-result")) break;
    if (m.role !== "result" || m.parentToolUseId) continue;
    const done = s.completeOf.get(m.id);
    const reason = typeof m.metadata?.terminalReason === "string" ? m.metadata.terminalReason : done?.reason;
    const out = turnOutcome({ isError: m.isError, interrupted: done?.interrupted, reason });
    return { resultId: m.id, stopped: out.key === "stopped" };
  }
  for (const n of s.notices) {
    if (n.kind === "complete" && n.after > i) return { resultId: n.key, stopped: turnOutcome({ isError: n.result?.isError, interrupted: n.result?.interrupted, reason: n.result?.reason }).key === "stopped" };
  }
  return undefined;
}

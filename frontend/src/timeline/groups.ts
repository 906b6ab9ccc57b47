// toDisplayRows turns the normalized timeline state into the flat list of
// rows the virtualized stream renders. A row is one top-level message with
// everything that renders inside it (its tools' results, the sub-agent
// messages they spawned), a result summary, or a session notice.
//
// Hidden from the top level:
//   - messages whose parentToolUseId names a known tool use (they render
//     under that tool's card);
//   - messages made only of tool results whose tool uses are known (the
//     results render in the cards);
//   - the agent's own "[Request interrupted by user]" user message after a
//     Stop (the turn's result row already says Stopped; it is not something
//     the user wrote).
//
// Quiet notices (system messages with metadata.quiet: what an agent said
// that the normalizer does not know) that follow one another become one
// collapsed row, counted ("3 system notices"), their raw frames on demand.

import type { Message } from "./types";
import type { Notice, TimelineState } from "./state";

export type DisplayRow =
  | { kind: "message"; key: string; id: string; rev: number; role: Message["role"] }
  | { kind: "result"; key: string; id: string; rev: number }
  | { kind: "quiet"; key: string; id: string; ids: string[]; rev: number }
  | { kind: "notice"; key: string; notice: Notice };

/** isQuiet reports whether a message is a quiet notice. */
export function isQuiet(m: Message): boolean {
  return m.role === "system" && m.metadata?.quiet === true;
}

/** isAbsorbed reports whether a message renders inside another row, not on its own. */
export function isAbsorbed(s: TimelineState, m: Message): boolean {
  if (isInterruptMarker(m)) return true;
  if (m.parentToolUseId && s.toolUses.has(m.parentToolUseId)) {
    const use = s.toolUses.get(m.parentToolUseId);
    if (use && use.messageId !== m.id) return true;
  }
  const parts = m.parts ?? [];
  if (parts.length === 0) return m.role === "user" || m.role === "assistant";
  for (const p of parts) {
    if (p.type !== "tool-result") return false;
    if (!p.toolId || !s.toolUses.has(p.toolId)) return false;
  }
  return true;
}

const INTERRUPT_MARKER = /^\[Request interrupted by user[^\]]*\]$/;

/** isInterruptMarker: the user message Claude Code writes when a turn is stopped. */
export function isInterruptMarker(m: Message): boolean {
  if (m.role !== "user") return false;
  const parts = m.parts ?? [];
  return parts.length > 0 && parts.every((p) => p.type === "text" && INTERRUPT_MARKER.test((p.text ?? "").trim()));
}

export function toDisplayRows(s: TimelineState): DisplayRow[] {
  const rows: DisplayRow[] = [];
  let ni = 0;
  const notices = s.notices;
  const pushNotices = (upTo: number) => {
    while (ni < notices.length && notices[ni].after <= upTo) {
      rows.push({ kind: "notice", key: notices[ni].key, notice: notices[ni] });
      ni++;
    }
  };
  for (let i = 0; i < s.order.length; i++) {
    pushNotices(i);
    const e = s.messages.get(s.order[i]);
    if (!e) continue;
    const m = e.msg;
    if (isAbsorbed(s, m)) continue;
    if (isQuiet(m)) {
      const last = rows[rows.length - 1];
      if (last?.kind === "quiet") {
        last.ids.push(m.id);
        last.rev = Math.max(last.rev, e.rev);
      } else {
        rows.push({ kind: "quiet", key: `quiet:${m.id}`, id: m.id, ids: [m.id], rev: e.rev });
      }
      continue;
    }
    if (m.role === "result") rows.push({ kind: "result", key: m.id, id: m.id, rev: e.rev });
    else rows.push({ kind: "message", key: m.id, id: m.id, rev: e.rev, role: m.role });
  }
  pushNotices(Number.MAX_SAFE_INTEGER);
  return rows;
}

/** childMessages returns the sub-agent messages spawned by a tool call. */
export function childMessages(s: TimelineState, toolId: string): Message[] {
  const ids = s.children.get(toolId);
  if (!ids) return [];
  const out: Message[] = [];
  for (const id of ids) {
    const e = s.messages.get(id);
    if (e) out.push(e.msg);
  }
  return out;
}

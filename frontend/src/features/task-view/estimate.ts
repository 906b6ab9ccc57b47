// estimateRowHeight guesses a row's rendered height before it is measured,
// so the virtualized list's scroll size barely moves as rows get measured.

import type { DisplayRow } from "../../timeline/groups";
import type { TimelineState } from "../../timeline/state";
import type { Part } from "../../timeline/types";

const LINE = 19; // px per text line at the stream's font size
const CHARS_PER_LINE = 100;

function textLines(t: string): number {
  let lines = 0;
  for (const l of t.split("\n")) lines += Math.max(1, Math.ceil(l.length / CHARS_PER_LINE));
  return lines;
}

function partHeight(p: Part): number {
  switch (p.type) {
    case "text":
      return 8 + LINE * textLines(p.text ?? "");
    case "reasoning":
      return 26;
    case "file":
      return 26;
    case "tool-use":
      // collapsed card; edits and todos start open
      if (p.kind === "edit") return 36 + 120;
      if (p.kind === "todo") return 36 + 80;
      return 38;
    case "tool-result":
      return 0;
    case "compact":
      return 40;
    case "system-status":
      return 24;
    default: {
      const _exhaustive: never = p.type;
      return _exhaustive;
    }
  }
}

export function estimateRowHeight(s: TimelineState, row: DisplayRow | undefined): number {
  if (!row) return 60;
  switch (row.kind) {
    case "notice":
      return row.notice.kind === "complete" ? 50 : 40;
    case "result":
      return 50;
    case "quiet":
      return 28;
    case "message": {
      const m = s.messages.get(row.id)?.msg;
      if (!m) return 40;
      let h = m.role === "user" ? 30 : 10;
      for (const p of m.parts ?? []) h += partHeight(p);
      return Math.min(h, 2000);
    }
    default: {
      const _exhaustive: never = row;
      return _exhaustive;
    }
  }
}

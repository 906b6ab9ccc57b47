// toolWording words a tool row by what really happened to the call: a
// command awaiting approval was not run, a denied write created nothing, a
// call cut short by Stop was interrupted. The duration shown is the time the
// tool worked: the time spent waiting for the user's answer is left out.

import type { ToolKind, ToolState } from "../timeline/types";

export type ToolPhase = "pending" | "awaiting" | "running" | "done" | "failed" | "denied" | "cancelled" | "interrupted";

export interface ToolPhaseInput {
  /** The tool's state (live, from its result, or from the Go ToolState). */
  state: ToolState | string;
  /** A permission request or question about this call waits on the user. */
  awaiting?: boolean;
  /** The user's (or a rule's) answer to its permission request. */
  decision?: { behavior: string } | null;
  /** The turn this call belongs to has ended (a result came after it). */
  turnEnded?: boolean;
  /** The turn ended because the user stopped it. */
  turnStopped?: boolean;
}

/** toolPhase derives what happened to a tool call. */
export function toolPhase(i: ToolPhaseInput): ToolPhase {
  switch (i.state) {
    case "denied":
      return "denied";
    case "cancelled":
      return "cancelled";
    case "interrupted":
      return "interrupted";
  }
  if (i.decision?.behavior === "deny") return "denied";
  if (i.state === "completed") return "done";
  if (i.state === "error") return "failed";
  if (i.awaiting) return "awaiting";
  if (i.turnEnded) return i.turnStopped ? "interrupted" : "cancelled";
  return i.state === "running" ? "running" : "pending";
}

interface Words {
  act: string; // "run"
  doing: string; // "Running"
  done: string; // "Ran"
  not: string; // "Not run"
}

const WORDS: Partial<Record<ToolKind, Words>> & { other: Words } = {
  execute: { act: "run", doing: "Running", done: "Ran", not: "Not run" },
  edit: { act: "change", doing: "Changing", done: "Changed", not: "Not changed" },
  read: { act: "read", doing: "Reading", done: "Read", not: "Not read" },
  search: { act: "search", doing: "Searching", done: "Searched", not: "Not searched" },
  fetch: { act: "fetch", doing: "Fetching", done: "Fetched", not: "Not fetched" },
  other: { act: "use a tool", doing: "Running", done: "Used", not: "Not used" },
};

/** PHASE_LABEL is the state icon's tooltip and the row's accessible state. */
export const PHASE_LABEL: Record<ToolPhase, string> = {
  pending: "Pending",
  awaiting: "Awaiting approval",
  running: "Running",
  done: "Done",
  failed: "Failed",
  denied: "Denied",
  cancelled: "Cancelled",
  interrupted: "Interrupted",
};

/**
 * toolVerb is the row's verb. The kind's own renderer words the normal
 * cases (it knows "Created" from "Edited"); `base` is that verb and is used
 * as it is only when the call ran (or is running, for kinds that say so).
 */
export function toolVerb(kind: ToolKind | undefined, phase: ToolPhase, base: string): string {
  const w = (kind && WORDS[kind]) || (kind === "execute" ? WORDS.execute : undefined);
  const words = w ?? WORDS.other;
  switch (phase) {
    case "awaiting":
      return `Wants to ${words.act}`;
    case "pending":
      return w ? `Will ${words.act}` : base;
    case "denied":
      return `${words.not} — denied`;
    case "cancelled":
      return `${words.not} — cancelled`;
    case "interrupted":
      return "Interrupted";
    case "failed":
      return kind === "execute" ? "Failed" : base;
    case "running":
      return kind === "execute" ? words.doing : base;
    case "done":
      return base;
  }
}

/** showsResultBody reports whether the row may show the call's effect (a diff, output) as having happened. */
export function showsEffect(phase: ToolPhase): boolean {
  return phase === "done" || phase === "failed" || phase === "running";
}

/**
 * workedMs is how long the tool worked: from when it started, or from the
 * user's answer when it waited for one, to its end (or now while it runs).
 * Undefined while it waits, when it never ran, or when the span is not
 * a real duration (negative, over a day).
 */
export function workedMs(p: {
  phase: ToolPhase;
  startedAt?: number;
  endedAt?: number;
  answeredAt?: number;
  now: number;
}): number | undefined {
  if (p.startedAt === undefined) return undefined;
  if (p.phase === "awaiting" || p.phase === "denied" || p.phase === "pending") return undefined;
  const active = p.phase === "running";
  const end = p.endedAt ?? (active ? p.now : undefined);
  if (end === undefined) return undefined;
  const start = p.answeredAt !== undefined && p.answeredAt > p.startedAt && p.answeredAt <= end ? p.answeredAt : p.startedAt;
  const span = end - start;
  return span >= 0 && span < 86_400_000 ? span : undefined;
}

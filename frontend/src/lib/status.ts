// status is the app's one status vocabulary. The task list's dot, its
// tooltip, the task header and a turn's result row all say a task's or a
// turn's state with these words; desktop notifications use the same words
// (backend/notify/words.go reads the same statusWords.json in its test).
//
// A user's Stop is not a failure: a task interrupted with the reason
// "Stopped by user", and a turn that ended because the user stopped it, are
// "Stopped" (neutral). An error shows a readable reason; the raw code the
// agent gave stays available on demand.

import words from "./statusWords.json";

export type StatusKey = "new" | "working" | "waiting" | "done" | "stopped" | "interrupted" | "failed" | "blocked";
export type Tone = "neutral" | "busy" | "waiting" | "ok" | "error";

export interface StatusView {
  key: StatusKey;
  label: string;
  tone: Tone;
  /** A readable reason (tooltip, banner), when there is one. */
  detail?: string;
}

export const STATUS_LABEL: Readonly<Record<StatusKey, string>> = words.status;
export const STOPPED_REASON: string = words.stoppedReason;

const TONE: Record<StatusKey, Tone> = {
  new: "neutral",
  working: "busy",
  waiting: "waiting",
  done: "ok",
  stopped: "neutral",
  interrupted: "neutral",
  failed: "error",
  blocked: "error",
};

function view(key: StatusKey, detail?: string): StatusView {
  return { key, label: STATUS_LABEL[key], tone: TONE[key], detail: detail || undefined };
}

/**
 * taskStatus says a task's state from its stored status (created, running,
 * waiting, completed, errored, interrupted), its reason, and whether a
 * request waits on the user right now.
 */
export function taskStatus(status: string | null | undefined, reason?: string | null, pending = 0): StatusView {
  if (pending > 0) return view("waiting");
  switch (status) {
    case "running":
      return view("working");
    case "waiting":
      return view("waiting");
    case "completed":
      return view("done");
    case "errored":
      return view("failed", readableError(reason ?? "").text);
    case "store-error":
      // The store refused the agent's output (disk full, read-only): the
      // agent is held until writing works again; the reason says why.
      return view("blocked", reason ?? undefined);
    case "interrupted":
      return reason === STOPPED_REASON || !reason ? view("stopped") : view("interrupted", reason);
    default:
      return view("new");
  }
}

/** statusTooltip is the one-line hover text: "Failed: the agent binary was not found". */
export function statusTooltip(s: StatusView): string {
  return s.detail && s.detail !== s.label ? `${s.label}: ${s.detail}` : s.label;
}

/** Raw end-of-turn codes the agents report when the user stopped the turn. */
const STOP_CODES = new Set(["aborted_streaming", "aborted_tools", "interrupted", "cancelled", "canceled", "stopped", "user_interrupt"]);

/** Readable words for raw codes the agents report; unknown codes stay raw, on demand. */
const CODE_TEXT: Record<string, string> = {
  error_during_execution: "the agent hit an error while working",
  error_max_turns: "the agent reached its turn limit",
  error_max_budget_usd: "the agent reached its budget limit",
  error_max_structured_output_retries: "the agent could not produce the expected output",
  max_tokens: "the reply reached the output token limit",
  prompt_too_long: "the conversation is too long for the model",
  rate_limit: "the model's rate limit was reached",
  overloaded: "the model service is overloaded",
  authentication_failed: "the agent is not signed in",
  refusal: "the model declined to answer",
};

export interface TurnOutcomeInput {
  isError?: boolean;
  interrupted?: boolean;
  /** The agent's raw end reason (terminal reason, subtype, stop reason). */
  reason?: string;
  /** The error text, when the agent gave one. */
  text?: string;
}

export interface TurnOutcome {
  key: "done" | "stopped" | "failed";
  label: string;
  tone: Tone;
  /** A readable reason for a failure. */
  reason?: string;
  /** The raw code, shown on demand. */
  code?: string;
}

/** turnOutcome says how one turn ended: Done, Stopped (by the user) or Failed (why). */
export function turnOutcome(r: TurnOutcomeInput): TurnOutcome {
  const code = r.reason && r.reason !== "completed" && r.reason !== "success" && r.reason !== "end_turn" ? r.reason : undefined;
  if (r.interrupted || (code && STOP_CODES.has(code))) {
    return { key: "stopped", label: STATUS_LABEL.stopped, tone: "neutral", code };
  }
  if (r.isError) {
    const text = r.text ? readableError(r.text).text : undefined;
    return { key: "failed", label: STATUS_LABEL.failed, tone: "error", reason: text || (code && CODE_TEXT[code]) || "the agent reported an error", code };
  }
  return { key: "done", label: STATUS_LABEL.done, tone: "ok", code };
}

/**
 * readableError turns an error string into what a person reads first and
 * the raw rest: it drops a repeated clause ("X not found (…): X not found"),
 * a Go-style "pkg: op:" prefix chain is kept only as the raw text.
 */
export function readableError(raw: string): { text: string; raw: string } {
  const s = raw.trim();
  if (!s) return { text: "", raw: "" };
  const parts = s.split(/: (?=\S)/);
  // "a: b: a" or a clause that repeats an earlier one: keep each clause once.
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const p of parts) {
    const k = p.toLowerCase().replace(/[().]/g, "").trim();
    if (seen.has(k) || [...seen].some((x) => x.includes(k) && k.length > 8)) continue;
    // A short trailing sentinel that says again what was said ("…not
    // found (…): agent binary not found") adds nothing.
    const words = k.split(/\s+/);
    if (kept.length > 0 && words.length <= 5 && words.length >= 2 && kept.join(" ").toLowerCase().includes(words.slice(-2).join(" "))) continue;
    seen.add(k);
    kept.push(p);
  }
  const text = kept.join(": ");
  return { text: text.charAt(0).toUpperCase() + text.slice(1), raw: s };
}

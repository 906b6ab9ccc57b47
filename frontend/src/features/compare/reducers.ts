// Pure helpers of "Run on several agents" and the comparison view (vitest
// in reducers.test.ts).

import type { CompareAgent, CompareMember, CompareView } from "./api";

export const MIN_AGENTS = 2;
export const MAX_AGENTS = 5;

/** agentsProblem says why a list of agents cannot be compared ("" when it can). */
export function agentsProblem(agents: CompareAgent[]): string {
  const picked = agents.filter((a) => a.backend);
  if (picked.length < MIN_AGENTS) return `Pick at least ${MIN_AGENTS} agents to compare.`;
  if (picked.length > MAX_AGENTS) return `Compare at most ${MAX_AGENTS} agents.`;
  const keys = picked.map((a) => `${a.backend}\u0000${a.model.trim()}`);
  if (new Set(keys).size !== keys.length) return "The same agent and model is listed twice.";
  return "";
}

/** addAgent appends the first backend not yet listed (else the first), up to MAX_AGENTS. */
export function addAgent(agents: CompareAgent[], backends: string[]): CompareAgent[] {
  if (agents.length >= MAX_AGENTS || backends.length === 0) return agents;
  const used = new Set(agents.map((a) => a.backend));
  const next = backends.find((b) => !used.has(b)) ?? backends[0];
  return [...agents, { backend: next, model: "" }];
}

/** initialAgents: the project's backend and the next one available. */
export function initialAgents(first: string, backends: string[]): CompareAgent[] {
  const list: CompareAgent[] = [{ backend: first || backends[0] || "", model: "" }];
  return addAgent(list, backends);
}

export type CheckTone = "none" | "running" | "passed" | "failed";

export interface MemberRow {
  taskId: string;
  label: string;
  status: string;
  finished: boolean;
  duration: string;
  cost: string;
  tokens: string;
  files: number;
  added: number;
  removed: number;
  check: CheckTone;
  checkLabel: string;
  /** Marks: the cheapest, the fastest, the smallest passing diff. */
  best: string[];
  kept: boolean;
  removedFromDisk: boolean;
}

export function formatDuration(ms: number): string {
  if (ms <= 0) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

function checkOf(m: CompareMember, command: string): [CheckTone, string] {
  if (!m.check) return ["none", command ? "not run yet" : "no check command"];
  switch (m.check.status) {
    case "running":
      return ["running", "running…"];
    case "passed":
      return ["passed", "passed"];
    case "failed":
      return ["failed", m.check.exitCode >= 0 ? `failed (exit ${m.check.exitCode})` : "failed (stopped)"];
    default:
      return ["failed", "could not run"];
  }
}

const FINISHED = new Set(["completed", "errored", "interrupted"]);

/** memberRows turns a comparison into its side-by-side rows. */
export function memberRows(v: CompareView): MemberRow[] {
  const rows = v.members.map((m): MemberRow => {
    const [check, checkLabel] = checkOf(m, v.checkCommand);
    const label = m.task.model ? `${m.task.backend} · ${m.task.model}` : m.task.backend;
    const kept = v.group.keptTaskId === m.task.id;
    return {
      taskId: m.task.id,
      label,
      status: m.task.status,
      finished: FINISHED.has(m.task.status),
      duration: formatDuration(m.durationMs),
      cost: m.costUsd > 0 ? `$${m.costUsd.toFixed(m.costUsd < 0.01 ? 4 : 2)}` : "—",
      tokens: m.inputTokens + m.outputTokens > 0 ? `${m.inputTokens + m.outputTokens}` : "—",
      files: m.diff?.files?.length ?? 0,
      added: m.diff?.added ?? 0,
      removed: m.diff?.removed ?? 0,
      check,
      checkLabel,
      best: [],
      kept,
      removedFromDisk: v.group.keptTaskId !== "" && !kept,
    };
  });
  const done = v.members.filter((m) => FINISHED.has(m.task.status));
  const mark = (pick: (m: CompareMember) => number, what: string, ok: (m: CompareMember) => boolean = () => true) => {
    const cands = done.filter((m) => ok(m) && pick(m) > 0);
    if (cands.length < 2) return;
    const best = cands.reduce((a, b) => (pick(b) < pick(a) ? b : a));
    if (cands.filter((m) => pick(m) === pick(best)).length > 1) return; // a tie marks none
    rows.find((r) => r.taskId === best.task.id)?.best.push(what);
  };
  mark((m) => m.costUsd, "cheapest");
  mark((m) => m.durationMs, "fastest");
  mark((m) => (m.diff?.added ?? 0) + (m.diff?.removed ?? 0), "smallest passing diff", (m) => m.check?.status === "passed");
  return rows;
}

/** canKeep says whether "Keep this one" is offered for a row ("" when it is, else why not). */
export function keepBlocked(v: CompareView, row: MemberRow): string {
  if (v.group.keptTaskId) return "A result was already kept.";
  if (!row.finished) return "Wait for this agent to finish.";
  if (row.files === 0) return "This agent changed nothing.";
  return "";
}

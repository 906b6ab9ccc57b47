// Pure helpers of the usage screens: the limit countdown and the dashboard's
// series (vitest in reducers.test.ts).

import type { TaskLimit, UsageRow } from "./api";

/** countdown formats the time left until resetAt: "1h 02m 05s", "4m 09s", "12s", "now". */
export function countdown(resetAt: number, now: number): string {
  let s = Math.ceil((resetAt - now) / 1000);
  if (s <= 0) return "now";
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const p = (n: number) => String(n).padStart(2, "0");
  if (d > 0) return `${d}d ${h}h ${p(m)}m`;
  if (h > 0) return `${h}h ${p(m)}m ${p(s)}s`;
  if (m > 0) return `${m}m ${p(s)}s`;
  return `${s}s`;
}

const stateRank: Record<string, number> = { waiting: 0, retrying: 1, retried: 2, lifted: 2, cancelled: 2 };

/**
 * newerLimit is the limit to show once `next` arrives (an event, or the
 * first fetch) when `prev` is shown: events may be delivered out of order
 * and the first fetch may answer after an event, so an older state never
 * replaces a newer one. A limit detected later is newer; within one limit
 * the states only move forward (waiting → retrying → retried | lifted |
 * cancelled).
 */
export function newerLimit(prev: TaskLimit | null, next: TaskLimit | null): TaskLimit | null {
  if (!next) return prev;
  if (!prev || prev.taskId !== next.taskId) return next;
  if (next.detectedAt !== prev.detectedAt) return next.detectedAt > prev.detectedAt ? next : prev;
  return (stateRank[next.state] ?? 0) >= (stateRank[prev.state] ?? 0) ? next : prev;
}

export interface LimitView {
  /** Whether to show the banner at all. */
  show: boolean;
  tone: "waiting" | "retrying" | "done" | "error";
  title: string;
  detail: string;
  /** The countdown, while waiting. */
  left: string;
  canCancel: boolean;
}

/** limitView is what the task's limit banner says at now. */
export function limitView(l: TaskLimit | null, now: number, autoRetry: boolean): LimitView {
  const none: LimitView = { show: false, tone: "done", title: "", detail: "", left: "", canCancel: false };
  if (!l || l.state === "cancelled") return none;
  const at = new Date(l.resetAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  switch (l.state) {
    case "waiting":
      return {
        show: true,
        tone: "waiting",
        title: l.kind === "rate" ? "Rate limited" : "Usage limit reached",
        detail: autoRetry ? `Resets at ${at}; the last message is sent again then.` : `Resets at ${at}. Automatic retry is off.`,
        left: countdown(l.resetAt, now),
        canCancel: autoRetry,
      };
    case "retrying":
      return { ...none, show: true, tone: "retrying", title: "Limit reset", detail: "Sending the last message again…" };
    case "retried":
      // Shown for a minute after the retry, then gone.
      if (now - l.retriedAt > 60_000) return none;
      return { ...none, show: true, tone: "done", title: "Retried", detail: "The limit reset and the last message was sent again." };
    case "lifted":
      if (l.error) return { ...none, show: true, tone: "error", title: "Limit reset", detail: l.error };
      if (now - l.resetAt > 10 * 60_000) return none;
      return { ...none, show: true, tone: "done", title: "Limit reset", detail: "You can send your message again." };
  }
  return none;
}

export type Metric = "cost" | "tokens";
export type GroupBy = "agent" | "project";

export interface Series {
  label: string;
  values: number[];
}

export interface UsageChart {
  days: string[];
  series: Series[];
  total: number;
}

/** daysBack lists the `n` local days ending today as YYYY-MM-DD. */
export function daysBack(n: number, today: Date): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const d = new Date(today.getFullYear(), today.getMonth(), today.getDate() - i);
    out.push(`${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`);
  }
  return out;
}

function value(r: UsageRow, m: Metric): number {
  return m === "cost" ? r.costUsd : r.inputTokens + r.outputTokens;
}

/** usageChart turns rows into one series per agent (or project) over days, empty days as 0, biggest series first. */
export function usageChart(rows: UsageRow[], days: string[], metric: Metric, by: GroupBy): UsageChart {
  const index = new Map(days.map((d, i) => [d, i]));
  const byLabel = new Map<string, number[]>();
  let total = 0;
  for (const r of rows) {
    const i = index.get(r.day);
    if (i === undefined) continue;
    const label = by === "agent" ? r.agent : r.projectName || r.projectId;
    let vs = byLabel.get(label);
    if (!vs) {
      vs = days.map(() => 0);
      byLabel.set(label, vs);
    }
    vs[i] += value(r, metric);
    total += value(r, metric);
  }
  const series = [...byLabel.entries()]
    .map(([label, values]) => ({ label, values }))
    .sort((a, b) => sum(b.values) - sum(a.values) || a.label.localeCompare(b.label));
  return { days, series, total };
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

export interface UsageTotal {
  key: string;
  project: string;
  agent: string;
  costUsd: number;
  tokens: number;
  turns: number;
}

/** usageTotals sums rows per project × agent over the period, costliest first. */
export function usageTotals(rows: UsageRow[]): UsageTotal[] {
  const m = new Map<string, UsageTotal>();
  for (const r of rows) {
    const key = `${r.projectId}\u0000${r.agent}`;
    const t = m.get(key) ?? { key, project: r.projectName || r.projectId, agent: r.agent, costUsd: 0, tokens: 0, turns: 0 };
    t.costUsd += r.costUsd;
    t.tokens += r.inputTokens + r.outputTokens;
    t.turns += r.turns;
    m.set(key, t);
  }
  return [...m.values()].sort((a, b) => b.costUsd - a.costUsd || b.tokens - a.tokens);
}

export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  if (usd < 0.01) return "<$0.01";
  return `$${usd.toFixed(2)}`;
}

export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

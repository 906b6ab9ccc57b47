// cost derives what each turn cost, and what the whole task cost, from the
// result messages as the agents report them.
//
// Claude Code's result `total_cost_usd` is the running total of the session
// (a resumed session keeps counting), while its `usage` is the turn's own.
// A result with a cumulative total (totalCost.totalCostUsd set) therefore
// costs the difference from the previous cumulative total; when the total
// drops (a new session began), the turn costs its whole total. Other agents
// report a turn's own cost (totalCost.costUsd or cost.costUsd only).

import type { Message } from "./types";
import type { TimelineState } from "./state";

export interface TurnCost {
  /** This turn's own cost in USD, when known. */
  costUsd?: number;
  inputTokens?: number;
  outputTokens?: number;
}

export interface TaskTotals {
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  turns: number;
}

/** cumulativeOf returns a result's session running total, when the agent gives one. */
function cumulativeOf(m: Message): number | undefined {
  const t = m.totalCost?.totalCostUsd;
  return typeof t === "number" && Number.isFinite(t) ? t : undefined;
}

function ownCost(m: Message): number | undefined {
  const c = m.totalCost?.costUsd ?? m.cost?.costUsd;
  return typeof c === "number" && Number.isFinite(c) ? c : undefined;
}

/**
 * turnCosts returns each result message's own cost and tokens, by id, for
 * results in the order they happened.
 */
export function turnCosts(results: readonly Message[]): Map<string, TurnCost> {
  const out = new Map<string, TurnCost>();
  let prevTotal: number | undefined;
  for (const m of results) {
    if (m.role !== "result") continue;
    const total = cumulativeOf(m);
    let cost: number | undefined;
    if (total !== undefined) {
      cost = prevTotal !== undefined && total >= prevTotal ? total - prevTotal : total;
      prevTotal = total;
    } else {
      cost = ownCost(m);
    }
    if (cost !== undefined) cost = Math.round(cost * 1e6) / 1e6;
    out.set(m.id, { costUsd: cost, inputTokens: m.usage?.inputTokens, outputTokens: m.usage?.outputTokens });
  }
  return out;
}

/** taskTotals sums the turns' own costs and tokens. */
export function taskTotals(costs: Iterable<TurnCost>): TaskTotals {
  const t: TaskTotals = { costUsd: 0, inputTokens: 0, outputTokens: 0, turns: 0 };
  for (const c of costs) {
    t.turns++;
    t.costUsd += c.costUsd ?? 0;
    t.inputTokens += c.inputTokens ?? 0;
    t.outputTokens += c.outputTokens ?? 0;
  }
  t.costUsd = Math.round(t.costUsd * 1e6) / 1e6;
  return t;
}

/** resultMessages lists a timeline's result messages in order. */
export function resultMessages(s: TimelineState): Message[] {
  const out: Message[] = [];
  for (const id of s.order) {
    const e = s.messages.get(id);
    if (e && e.msg.role === "result" && !e.msg.parentToolUseId) out.push(e.msg);
  }
  return out;
}

interface CostCache {
  structure: number;
  rev: number;
  key: string;
  costs: Map<string, TurnCost>;
}

const cache = new WeakMap<TimelineState, CostCache>();

/**
 * timelineCosts is turnCosts over a timeline, cached until its results
 * change. Every result row asks for it while rendering: at a revision
 * already seen (no message changed, none added, removed or moved) it is
 * one lookup, not a walk of the whole timeline per row.
 */
export function timelineCosts(s: TimelineState): Map<string, TurnCost> {
  const hit = cache.get(s);
  if (hit && hit.structure === s.structureRev && hit.rev === s.revCounter) return hit.costs;
  const results = resultMessages(s);
  const key = results.map((m) => `${m.id}:${cumulativeOf(m) ?? ownCost(m) ?? ""}`).join(",");
  const costs = hit && hit.key === key ? hit.costs : turnCosts(results);
  cache.set(s, { structure: s.structureRev, rev: s.revCounter, key, costs });
  return costs;
}

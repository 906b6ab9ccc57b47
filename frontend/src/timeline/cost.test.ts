import { taskTotals, timelineCosts, turnCosts } from "./cost";
import { applyEvent, emptyState } from "./state";
import type { AgentEvent, Message } from "./types";

function result(id: string, total: number | undefined, own?: number, tokens?: [number, number]): Message {
  return {
    id,
    role: "result",
    parts: [],
    timestamp: "",
    totalCost: total !== undefined ? { costUsd: total, totalCostUsd: total } : own !== undefined ? { costUsd: own } : undefined,
    usage: tokens ? { inputTokens: tokens[0], outputTokens: tokens[1] } : undefined,
  };
}

test("Claude's cumulative total_cost_usd becomes each turn's own cost; the task total is the sum", () => {
  // The recorded resumed session: 0.018 → 0.024 → 0.031 → 0.052 → 0.069.
  const rs = [result("a", 0.018, undefined, [4200, 126]), result("b", 0.024, undefined, [1200, 40]), result("c", 0.031), result("d", 0.052), result("e", 0.069)];
  const c = turnCosts(rs);
  expect(c.get("a")?.costUsd).toBeCloseTo(0.018, 6);
  expect(c.get("b")?.costUsd).toBeCloseTo(0.006, 6);
  expect(c.get("c")?.costUsd).toBeCloseTo(0.007, 6);
  expect(c.get("e")?.costUsd).toBeCloseTo(0.017, 6);
  expect(c.get("b")?.inputTokens).toBe(1200);
  const t = taskTotals(c.values());
  expect(t.costUsd).toBeCloseTo(0.069, 6);
  expect(t.turns).toBe(5);
  expect(t.inputTokens).toBe(5400);
  expect(t.outputTokens).toBe(166);
});

test("a new session (the running total drops) starts counting again; per-turn costs pass through", () => {
  const c = turnCosts([result("a", 0.05), result("b", 0.02), result("c", 0.03)]);
  expect(c.get("b")?.costUsd).toBeCloseTo(0.02, 6);
  expect(c.get("c")?.costUsd).toBeCloseTo(0.01, 6);
  expect(taskTotals(c.values()).costUsd).toBeCloseTo(0.08, 6);
  // OpenCode reports each turn's own cost.
  const o = turnCosts([result("x", undefined, 0.01), result("y", undefined, 0.02)]);
  expect(o.get("y")?.costUsd).toBeCloseTo(0.02, 6);
  expect(taskTotals(o.values()).costUsd).toBeCloseTo(0.03, 6);
});

test("timelineCosts walks the timeline once per revision, and again when a result changes", () => {
  const s = emptyState();
  const walks = { n: 0 };
  const order = s.order;
  s.order = new Proxy(order, {
    get(target, prop, recv) {
      if (prop === Symbol.iterator) walks.n++;
      return Reflect.get(target, prop, recv);
    },
  });
  const ev = (m: Message): AgentEvent => ({ type: "message", message: m });
  for (let i = 0; i < 50; i++) applyEvent(s, ev({ id: `u${i}`, role: "assistant", parts: [{ type: "text", text: "x" }], timestamp: "" }));
  applyEvent(s, ev(result("r1", 0.01)));
  applyEvent(s, ev(result("r2", 0.03)));
  walks.n = 0;
  const first = timelineCosts(s);
  for (let i = 0; i < 100; i++) expect(timelineCosts(s)).toBe(first); // a hundred result rows rendering
  expect(walks.n).toBe(1);
  expect(first.get("r2")?.costUsd).toBeCloseTo(0.02, 6);
  applyEvent(s, ev(result("r2", 0.05))); // the result's total changes
  const next = timelineCosts(s);
  expect(next.get("r2")?.costUsd).toBeCloseTo(0.04, 6);
  applyEvent(s, ev({ id: "u1", role: "assistant", parts: [{ type: "text", text: "y" }], timestamp: "" })); // not a result
  expect(timelineCosts(s)).toBe(next);
  expect(walks.n).toBe(3);
});

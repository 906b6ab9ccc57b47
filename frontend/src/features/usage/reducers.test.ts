import { countdown, daysBack, formatCost, formatTokens, limitView, newerLimit, usageChart, usageTotals } from "./reducers";
import type { TaskLimit, UsageRow } from "./api";

const limit = (p: Partial<TaskLimit>): TaskLimit => ({
  taskId: "t1",
  resetAt: 1_000_000,
  message: "Claude AI usage limit reached",
  kind: "usage",
  state: "waiting",
  detectedAt: 0,
  retriedAt: 0,
  error: "",
  ...p,
});

describe("usage reducers", () => {
  test("newerLimit: an older state delivered late never replaces a newer one", () => {
    const base: TaskLimit = { taskId: "t", resetAt: 2000, message: "m", kind: "usage", state: "waiting", detectedAt: 1000, retriedAt: 0, error: "" };
    const retrying = { ...base, state: "retrying" };
    const retried = { ...base, state: "retried", retriedAt: 2001 };
    expect(newerLimit(null, base)).toBe(base);
    expect(newerLimit(base, retrying)).toBe(retrying);
    expect(newerLimit(retrying, retried)).toBe(retried);
    // Out of order: retried first, then the retrying event, then the first fetch's waiting.
    expect(newerLimit(retried, retrying)).toBe(retried);
    expect(newerLimit(retried, base)).toBe(retried);
    expect(newerLimit(retried, null)).toBe(retried);
    // A limit detected later (the retry hit the limit again) replaces a finished one, and not the reverse.
    const again = { ...base, detectedAt: 3000, resetAt: 9000 };
    expect(newerLimit(retried, again)).toBe(again);
    expect(newerLimit(again, retried)).toBe(again);
    // Another task's limit is not compared.
    const other = { ...base, taskId: "u", detectedAt: 1 };
    expect(newerLimit(retried, other)).toBe(other);
  });

  test("countdown counts down to the reset", () => {
    const reset = 10_000_000;
    expect(countdown(reset, reset - 3_725_000)).toBe("1h 02m 05s");
    expect(countdown(reset, reset - 249_000)).toBe("4m 09s");
    expect(countdown(reset, reset - 11_200)).toBe("12s");
    expect(countdown(reset, reset - 2 * 86_400_000 - 3_600_000)).toBe("2d 1h 00m");
    expect(countdown(reset, reset)).toBe("now");
    expect(countdown(reset, reset + 5000)).toBe("now");
  });

  test("limitView: waiting counts down and offers to cancel the retry", () => {
    const v = limitView(limit({}), 1_000_000 - 90_000, true);
    expect(v).toMatchObject({ show: true, tone: "waiting", title: "Usage limit reached", left: "1m 30s", canCancel: true });
    expect(v.detail).toMatch(/sent again/);
    const off = limitView(limit({ kind: "rate" }), 0, false);
    expect(off).toMatchObject({ title: "Rate limited", canCancel: false });
    expect(off.detail).toMatch(/Automatic retry is off/);
  });

  test("limitView: retrying, retried (for a minute), lifted, failed, cancelled", () => {
    expect(limitView(limit({ state: "retrying" }), 0, true)).toMatchObject({ show: true, tone: "retrying", left: "" });
    expect(limitView(limit({ state: "retried", retriedAt: 100 }), 30_100, true)).toMatchObject({ show: true, title: "Retried" });
    expect(limitView(limit({ state: "retried", retriedAt: 100 }), 60_200, true).show).toBe(false);
    expect(limitView(limit({ state: "lifted" }), 1_000_000 + 1000, false)).toMatchObject({ show: true, title: "Limit reset" });
    expect(limitView(limit({ state: "lifted", error: "the automatic retry failed: busy" }), 0, true)).toMatchObject({ tone: "error" });
    expect(limitView(limit({ state: "cancelled" }), 0, true).show).toBe(false);
    expect(limitView(null, 0, true).show).toBe(false);
  });

  const rows: UsageRow[] = [
    { day: "2026-11-22", projectId: "p1", projectName: "alpha", agent: "claude-code", costUsd: 1.5, inputTokens: 1000, outputTokens: 500, turns: 3 },
    { day: "2026-11-24", projectId: "p1", projectName: "alpha", agent: "codex", costUsd: 0.25, inputTokens: 4000, outputTokens: 100, turns: 1 },
    { day: "2026-11-24", projectId: "p2", projectName: "beta", agent: "claude-code", costUsd: 0.5, inputTokens: 10, outputTokens: 10, turns: 2 },
    { day: "2026-10-01", projectId: "p2", projectName: "beta", agent: "claude-code", costUsd: 9, inputTokens: 0, outputTokens: 0, turns: 1 },
  ];

  test("daysBack lists local days ending today", () => {
    expect(daysBack(3, new Date(2026, 10, 1, 15))).toEqual(["2026-10-30", "2026-10-31", "2026-11-01"]);
  });

  test("usageChart: a series per agent over the days, empty days zero, rows outside the period left out", () => {
    const days = daysBack(3, new Date(2026, 10, 24));
    const c = usageChart(rows, days, "cost", "agent");
    expect(c.days).toEqual(["2026-11-22", "2026-11-23", "2026-11-24"]);
    expect(c.series).toEqual([
      { label: "claude-code", values: [1.5, 0, 0.5] },
      { label: "codex", values: [0, 0, 0.25] },
    ]);
    expect(c.total).toBeCloseTo(2.25);
    const t = usageChart(rows, days, "tokens", "project");
    expect(t.series).toEqual([
      { label: "alpha", values: [1500, 0, 4100] },
      { label: "beta", values: [0, 0, 20] },
    ]);
  });

  test("usageTotals sums per project and agent, costliest first", () => {
    const t = usageTotals(rows.slice(0, 3));
    expect(t.map((x) => [x.project, x.agent, x.costUsd, x.tokens, x.turns])).toEqual([
      ["alpha", "claude-code", 1.5, 1500, 3],
      ["beta", "claude-code", 0.5, 20, 2],
      ["alpha", "codex", 0.25, 4100, 1],
    ]);
  });

  test("formatting", () => {
    expect(formatCost(0)).toBe("$0");
    expect(formatCost(0.004)).toBe("<$0.01");
    expect(formatCost(1.234)).toBe("$1.23");
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(1500)).toBe("1.5k");
    expect(formatTokens(25_000)).toBe("25k");
    expect(formatTokens(2_500_000)).toBe("2.5M");
  });
});

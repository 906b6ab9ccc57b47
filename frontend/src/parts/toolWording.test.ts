import { PHASE_LABEL, toolPhase, toolVerb, workedMs } from "./toolWording";

test("a tool row says what happened: awaiting, denied, cancelled, interrupted, ran, failed", () => {
  expect(toolPhase({ state: "pending", awaiting: true })).toBe("awaiting");
  expect(toolVerb("execute", "awaiting", "Ran")).toBe("Wants to run");
  expect(toolPhase({ state: "error", decision: { behavior: "deny" } })).toBe("denied");
  expect(toolVerb("execute", "denied", "Ran")).toBe("Not run — denied");
  expect(toolVerb("edit", "denied", "Creating")).toBe("Not changed — denied");
  expect(toolPhase({ state: "denied" })).toBe("denied");
  expect(toolPhase({ state: "cancelled" })).toBe("cancelled");
  expect(toolPhase({ state: "interrupted" })).toBe("interrupted");
  expect(toolPhase({ state: "running", turnEnded: true, turnStopped: true })).toBe("interrupted");
  expect(toolPhase({ state: "pending", turnEnded: true })).toBe("cancelled");
  expect(toolVerb("execute", "running", "Ran")).toBe("Running");
  expect(toolPhase({ state: "completed" })).toBe("done");
  expect(toolVerb("execute", "done", "Ran")).toBe("Ran");
  expect(toolPhase({ state: "error" })).toBe("failed");
  expect(toolVerb("execute", "failed", "Ran")).toBe("Failed");
  expect(toolVerb("edit", "done", "Edited")).toBe("Edited");
  expect(PHASE_LABEL.awaiting).toBe("Awaiting approval");
});

test("the duration leaves out the time spent waiting for the user", () => {
  // Requested at 0, answered at 8 s, finished at 9 s: it worked 1 s.
  expect(workedMs({ phase: "done", startedAt: 0, answeredAt: 8000, endedAt: 9000, now: 20000 })).toBe(1000);
  expect(workedMs({ phase: "awaiting", startedAt: 0, now: 5000 })).toBeUndefined();
  expect(workedMs({ phase: "denied", startedAt: 0, endedAt: 4000, now: 5000 })).toBeUndefined();
  expect(workedMs({ phase: "running", startedAt: 1000, now: 3000 })).toBe(2000);
  expect(workedMs({ phase: "done", startedAt: 0, endedAt: 90_000_000, now: 0 })).toBeUndefined();
});

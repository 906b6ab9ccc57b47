import { readableError, statusTooltip, taskStatus, turnOutcome, STATUS_LABEL } from "./status";

test("one vocabulary: every stored status has one label and tone", () => {
  expect(taskStatus("created").label).toBe("Not started");
  expect(taskStatus("running").label).toBe("Working");
  expect(taskStatus("waiting").label).toBe("Waiting for you");
  expect(taskStatus("completed")).toMatchObject({ key: "done", label: "Done", tone: "ok" });
  expect(taskStatus("errored", "boom")).toMatchObject({ key: "failed", tone: "error", detail: "Boom" });
  // A pending request wins over the stored status.
  expect(taskStatus("running", "", 1).key).toBe("waiting");
});

test("a user's Stop is Stopped (neutral), an app close is Interrupted with its reason", () => {
  const stopped = taskStatus("interrupted", "Stopped by user");
  expect(stopped).toMatchObject({ key: "stopped", label: "Stopped", tone: "neutral" });
  expect(statusTooltip(stopped)).toBe("Stopped");
  const closed = taskStatus("interrupted", "Jean-Claude was closed while this task was running");
  expect(closed).toMatchObject({ key: "interrupted", tone: "neutral" });
  expect(statusTooltip(closed)).toBe("Interrupted: Jean-Claude was closed while this task was running");
  expect(Object.values(STATUS_LABEL)).toContain(stopped.label);
});

test("turnOutcome: a stopped turn is not a failure; a failure has a readable reason and its raw code", () => {
  expect(turnOutcome({ isError: true, reason: "aborted_streaming" })).toMatchObject({ key: "stopped", label: "Stopped", tone: "neutral", code: "aborted_streaming" });
  expect(turnOutcome({ isError: false, interrupted: true })).toMatchObject({ key: "stopped" });
  const f = turnOutcome({ isError: true, reason: "error_max_turns" });
  expect(f).toMatchObject({ key: "failed", label: "Failed", tone: "error", code: "error_max_turns", reason: "the agent reached its turn limit" });
  expect(turnOutcome({ isError: false, reason: "completed" })).toMatchObject({ key: "done", code: undefined });
});

test("readableError says a repeated clause once", () => {
  const r = readableError("claude: agent binary not found (not on PATH nor installed by the app): agent binary not found");
  expect(r.text).toBe("Claude: agent binary not found (not on PATH nor installed by the app)");
  expect(r.raw).toContain("agent binary not found (not on PATH");
  expect(readableError("rate limited").text).toBe("Rate limited");
  expect(readableError("Claude Code not found (claude is not on PATH nor installed by the app): agent binary not found").text).toBe(
    "Claude Code not found (claude is not on PATH nor installed by the app)",
  );
});

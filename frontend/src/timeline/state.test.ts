import { describe, expect, it } from "vitest";
import { applyEnvelopes, applyEvent, emptyState, loadMessages, pendingCards, toolView, textOf } from "./state";
import { childMessages, toDisplayRows } from "./groups";
import { queueReducer } from "./queue";
import { TimelineStore } from "./store";
import type { AgentEvent, Message, QueuedMessage } from "./types";

const msg = (m: Partial<Message> & { id: string }): AgentEvent => ({
  type: "message",
  message: { role: "assistant", parts: [], timestamp: "2026-01-01T00:00:00Z", ...m },
});

describe("applyEvent", () => {
  it("upserts messages by id in place and keeps arrival order", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", parts: [{ type: "text", text: "Hel" }] }));
    applyEvent(s, msg({ id: "b", role: "user", parts: [{ type: "text", text: "hi" }] }));
    const revA = s.messages.get("a")!.rev;
    applyEvent(s, msg({ id: "a", parts: [{ type: "text", text: "Hello" }] }));
    expect(s.order).toEqual(["a", "b"]);
    expect(s.messages.get("a")!.msg.parts![0].text).toBe("Hello");
    expect(s.messages.get("a")!.rev).toBeGreaterThan(revA);
  });

  it("removes a message on message-removed", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", parts: [{ type: "text", text: "x" }] }));
    applyEvent(s, msg({ id: "b", parts: [{ type: "text", text: "y" }] }));
    applyEvent(s, { type: "message-removed", messageId: "a" });
    expect(s.order).toEqual(["b"]);
    expect(s.messages.has("a")).toBe(false);
  });

  it("matches a tool use to its result by toolId and bumps the tool's message", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", timestamp: "2026-01-01T00:00:00Z", parts: [{ type: "tool-use", toolId: "t1", toolName: "Bash", kind: "execute", input: { command: "ls" } }] }));
    const use = s.messages.get("a")!.msg.parts![0];
    expect(toolView(s, use, "a").state).toBe("pending");
    const rev = s.messages.get("a")!.rev;
    applyEvent(s, msg({ id: "r", role: "user", timestamp: "2026-01-01T00:00:02.5Z", parts: [{ type: "tool-result", toolId: "t1", content: "file.txt" }] }));
    expect(s.messages.get("a")!.rev).toBeGreaterThan(rev);
    const v = toolView(s, use, "a");
    expect(v.state).toBe("completed");
    expect(textOf(v.result!.content)).toBe("file.txt");
    expect(v.endedAt! - v.startedAt!).toBe(2500);
    // The result-only user message renders inside the card, not as a row.
    expect(toDisplayRows(s).map((r) => r.key)).toEqual(["a"]);
  });

  it("times a worktree setup by its message's durationMs, running while its use says so", () => {
    const s = emptyState();
    const use = (state: string) => ({ type: "tool-use" as const, toolId: "s1", toolName: "Worktree setup", kind: "execute" as const, state: state as never });
    const out = { type: "tool-result" as const, toolId: "s1", content: "installing\n" };
    const at = "2026-01-01T00:00:00Z";
    // Output streams into the use's own message while the setup runs.
    applyEvent(s, msg({ id: "s1", timestamp: at, parts: [use("running"), out] }), 0, Date.parse(at) + 100);
    let v = toolView(s, s.messages.get("s1")!.msg.parts![0], "s1");
    expect(v.state).toBe("running");
    expect(v.endedAt).toBeUndefined();
    applyEvent(s, msg({ id: "s1", timestamp: at, durationMs: 4200, parts: [use("completed"), out] }), 0, Date.parse(at) + 4300);
    v = toolView(s, s.messages.get("s1")!.msg.parts![0], "s1");
    expect(v.state).toBe("completed");
    expect(v.endedAt! - Date.parse(at)).toBe(4200);
    // Stored without a duration (older setups): no duration rather than 0 ms.
    const old = emptyState();
    applyEvent(old, msg({ id: "s2", timestamp: at, parts: [{ ...use("completed"), toolId: "s2" }, { ...out, toolId: "s2" }] }));
    expect(toolView(old, old.messages.get("s2")!.msg.parts![0], "s2").endedAt).toBeUndefined();
  });

  it("marks an errored tool result as error", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", parts: [{ type: "tool-use", toolId: "t1", toolName: "Bash" }] }));
    applyEvent(s, msg({ id: "r", role: "user", parts: [{ type: "tool-result", toolId: "t1", content: "boom", isError: true }] }));
    expect(toolView(s, s.messages.get("a")!.msg.parts![0], "a").state).toBe("error");
  });

  it("applies live tool-state-updates until a result arrives", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", parts: [{ type: "tool-use", toolId: "t1", toolName: "bash", state: "pending" }] }));
    applyEvent(s, { type: "tool-state-update", messageId: "a", toolId: "t1", state: "running", result: "partial" });
    const use = s.messages.get("a")!.msg.parts![0];
    expect(toolView(s, use, "a")).toMatchObject({ state: "running", liveResult: "partial" });
    applyEvent(s, { type: "tool-state-update", messageId: "a", toolId: "t1", state: "error", error: "denied" });
    expect(toolView(s, use, "a")).toMatchObject({ state: "error", error: "denied" });
  });

  it("shows a result-only message whose tool use is unknown", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "r", role: "user", parts: [{ type: "tool-result", toolId: "ghost", content: "?" }] }));
    expect(toDisplayRows(s).map((r) => r.key)).toEqual(["r"]);
  });

  it("groups sub-agent messages under the tool call that spawned them", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", parts: [{ type: "tool-use", toolId: "task1", toolName: "Task", kind: "sub-agent" }] }));
    const rev = s.messages.get("a")!.rev;
    applyEvent(s, msg({ id: "c1", parentToolUseId: "task1", parts: [{ type: "text", text: "child thinking" }] }));
    applyEvent(s, msg({ id: "c2", parentToolUseId: "task1", parts: [{ type: "tool-use", toolId: "inner", toolName: "Read" }] }));
    applyEvent(s, msg({ id: "c3", role: "user", parentToolUseId: "task1", parts: [{ type: "tool-result", toolId: "inner", content: "x" }] }));
    applyEvent(s, msg({ id: "b", parts: [{ type: "text", text: "after" }] }));
    expect(toDisplayRows(s).map((r) => r.key)).toEqual(["a", "b"]);
    expect(childMessages(s, "task1").map((m) => m.id)).toEqual(["c1", "c2", "c3"]);
    // A change deep inside the sub-agent re-renders the top-level row.
    expect(s.messages.get("a")!.rev).toBeGreaterThan(rev);
    const before = s.messages.get("a")!.rev;
    applyEvent(s, { type: "tool-state-update", toolId: "inner", state: "running" });
    expect(s.messages.get("a")!.rev).toBeGreaterThan(before);
  });

  it("shows sub-agent messages at top level when the parent tool is unknown", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "c1", parentToolUseId: "nope", parts: [{ type: "text", text: "orphan" }] }));
    expect(toDisplayRows(s).map((r) => r.key)).toEqual(["c1"]);
  });

  it("renders result messages as result rows and records model usage", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "u", role: "user", parts: [{ type: "text", text: "go" }] }));
    applyEvent(s, msg({ id: "res", role: "result", durationMs: 1200, modelUsage: { m: { inputTokens: 10, outputTokens: 5, contextWindow: 200000 } } }));
    applyEvent(s, { type: "complete", result: { isError: false, durationMs: 1200 } }, 3);
    const rows = toDisplayRows(s);
    expect(rows.map((r) => r.kind)).toEqual(["message", "result"]);
    expect(s.modelUsage?.m.contextWindow).toBe(200000);
  });

  it("adds a complete notice when no result message summarized the turn", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "u", role: "user", parts: [{ type: "text", text: "go" }] }));
    applyEvent(s, { type: "complete", result: { isError: false, durationMs: 900, interrupted: true } }, 2);
    applyEvent(s, { type: "error", error: "boom", fatal: true }, 3);
    applyEvent(s, { type: "rate-limit", error: "429", retryAfterMs: 500, attempt: 1, maxRetries: 2 }, 4);
    expect(s.retry).toMatchObject({ text: "429", attempt: 1 });
    applyEvent(s, msg({ id: "u2", role: "user", parts: [{ type: "text", text: "again" }] }));
    expect(toDisplayRows(s).map((r) => (r.kind === "notice" ? r.notice.kind : r.key))).toEqual(["u", "complete", "error", "u2"]);
    expect(s.retry).toBeUndefined();
  });

  it("shows one summary per turn whatever order the result, the complete event and other rows arrive in", () => {
    const summaries = (s: ReturnType<typeof emptyState>) =>
      toDisplayRows(s).filter((r) => (r.kind === "notice" && r.notice.kind === "complete") || r.key === "r").length;
    // complete first, then another row of the turn, then the result message.
    const a = emptyState();
    applyEvent(a, msg({ id: "u", role: "user", parts: [{ type: "text", text: "go" }] }));
    applyEvent(a, { type: "complete", result: { isError: false, durationMs: 5, interrupted: true } }, 3);
    applyEvent(a, msg({ id: "st", role: "system", parts: [{ type: "system-status", subtype: "status", status: "x" }] }));
    applyEvent(a, msg({ id: "r", role: "result", parts: [] }));
    expect(summaries(a)).toBe(1);
    expect(a.completeOf.get("r")).toMatchObject({ interrupted: true }); // what only the event knew is kept
    // result first, then another row, then the complete event.
    const b = emptyState();
    applyEvent(b, msg({ id: "u", role: "user", parts: [{ type: "text", text: "go" }] }));
    applyEvent(b, msg({ id: "r", role: "result", parts: [] }));
    applyEvent(b, msg({ id: "st", role: "system", parts: [{ type: "system-status", subtype: "status", status: "x" }] }));
    applyEvent(b, { type: "complete", result: { isError: false } }, 9);
    expect(summaries(b)).toBe(1);
    // A complete notice of an earlier turn is never taken by a later result.
    const c = emptyState();
    applyEvent(c, msg({ id: "u", role: "user", parts: [{ type: "text", text: "go" }] }));
    applyEvent(c, { type: "complete", result: { isError: false } }, 2);
    applyEvent(c, msg({ id: "u2", role: "user", parts: [{ type: "text", text: "again" }] }));
    applyEvent(c, msg({ id: "r", role: "result", parts: [] }));
    expect(toDisplayRows(c).map((r) => (r.kind === "notice" ? r.notice.kind : r.key))).toEqual(["u", "complete", "u2", "r"]);
  });

  it("does not repeat an error the agent already sent as a message", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "e", isError: true, parts: [{ type: "text", text: "API Error: 429 rate limited" }] }));
    applyEvent(s, { type: "error", error: "API Error: 429 rate limited", fatal: true });
    expect(s.notices).toHaveLength(0);
  });

  it("keeps pending permission requests and questions by request id", () => {
    const s = emptyState();
    applyEvent(s, { type: "permission-request", request: { requestId: "p1", toolName: "Bash", input: { command: "rm -rf x" } } });
    applyEvent(s, { type: "question", request: { requestId: "q1", question: "Which?", options: [{ id: "a", label: "A" }] } });
    expect([...s.pending.values()].map((p) => p.kind)).toEqual(["permission", "question"]);
  });

  it("tracks mode, session id and title", () => {
    const s = emptyState();
    applyEvent(s, { type: "mode-change", mode: "plan" });
    applyEvent(s, { type: "session-id", sessionId: "sess" });
    applyEvent(s, { type: "session-updated", title: "Fix bug" });
    expect(s).toMatchObject({ mode: "plan", sessionId: "sess", title: "Fix bug" });
  });

  it("skips a re-delivered envelope but not a restarted numbering", () => {
    const s = emptyState();
    applyEnvelopes(s, [
      { taskId: "t", seq: 1, event: { type: "error", error: "x" } },
      { taskId: "t", seq: 1, event: { type: "error", error: "x" } },
      { taskId: "t", seq: 2, event: { type: "error", error: "y" } },
      { taskId: "t", seq: 1, event: { type: "error", error: "new run" } },
    ]);
    expect(s.notices.map((n) => n.text)).toEqual(["x", "y", "new run"]);
  });
});

describe("pendingCards", () => {
  it("reads the orchestrator's pending requests", () => {
    const cards = pendingCards([
      { taskId: "t", requestId: "p1", kind: "permission", request: { requestId: "p1", toolName: "Bash" }, createdAt: 1 },
      { taskId: "t", requestId: "q1", kind: "question", request: { requestId: "q1", question: "?" }, createdAt: 2 },
    ]);
    expect(cards.map((c) => [c.kind, c.request.requestId])).toEqual([["permission", "p1"], ["question", "q1"]]);
  });
});

describe("TimelineStore", () => {
  it("batches pushed events into one flush per frame", () => {
    const frames: (() => void)[] = [];
    const st = new TimelineStore((cb) => frames.push(cb));
    st.load([]);
    let notified = 0;
    st.subscribe(() => notified++);
    for (let i = 0; i < 50; i++) {
      st.push({ taskId: "t", seq: i + 1, event: msg({ id: "a", parts: [{ type: "text", text: "x".repeat(i) }] }) });
    }
    expect(frames).toHaveLength(1);
    frames[0]();
    expect(notified).toBe(1);
    expect(st.flushes).toBe(1);
    expect(st.getSnapshot().rows).toHaveLength(1);
    expect(st.state.messages.get("a")!.msg.parts![0].text).toHaveLength(49);
  });

  it("holds events that arrive before the transcript loads", () => {
    const st = new TimelineStore((cb) => cb());
    st.push({ taskId: "t", seq: 5, event: msg({ id: "late", parts: [{ type: "text", text: "live" }] }) });
    expect(st.getSnapshot().rows).toHaveLength(0);
    st.load([{ id: "old", role: "user", parts: [{ type: "text", text: "stored" }], timestamp: "" }]);
    expect(st.getSnapshot().rows.map((r) => r.key)).toEqual(["old", "late"]);
  });
});

describe("queueReducer", () => {
  const q = (id: string, position: number, text = id): QueuedMessage => ({ id, taskId: "t", text, position, createdAt: position });
  it("replaces sorted by position, edits and removes", () => {
    let items = queueReducer([], { type: "replace", items: [q("b", 2), q("a", 1)] });
    expect(items.map((i) => i.id)).toEqual(["a", "b"]);
    items = queueReducer(items, { type: "edit", id: "b", text: "new" });
    expect(items[1].text).toBe("new");
    items = queueReducer(items, { type: "remove", id: "a" });
    expect(items.map((i) => i.id)).toEqual(["b"]);
    items = queueReducer(items, { type: "add", item: q("c", 0) });
    expect(items.map((i) => i.id)).toEqual(["c", "b"]);
  });
});

describe("TimelineStore incremental rows", () => {
  it("replaces only the changed row when the structure is unchanged, and matches a full rebuild", () => {
    const st = new TimelineStore((cb) => cb());
    st.load([]);
    st.push(
      { taskId: "t", seq: 1, event: msg({ id: "a", parts: [{ type: "tool-use", toolId: "t1", toolName: "Bash" }] }) },
      { taskId: "t", seq: 2, event: msg({ id: "b", parts: [{ type: "text", text: "x" }] }) },
    );
    const before = st.getSnapshot().rows;
    st.push({ taskId: "t", seq: 3, event: { type: "tool-state-update", toolId: "t1", state: "running" } });
    const after = st.getSnapshot().rows;
    expect(after).not.toBe(before);
    expect(after[1]).toBe(before[1]);
    expect(after[0]).not.toBe(before[0]);
    expect(after).toEqual(toDisplayRows(st.state));
    // a result-only message arrives: structure changes (it is absorbed), rows rebuilt
    st.push({ taskId: "t", seq: 4, event: msg({ id: "r", role: "user", parts: [{ type: "tool-result", toolId: "t1", content: "ok" }] }) });
    expect(st.getSnapshot().rows).toEqual(toDisplayRows(st.state));
    expect(st.getSnapshot().rows.map((r) => r.key)).toEqual(["a", "b"]);
  });
});

describe("tool timing", () => {
  it("uses live arrival times over the agent's timestamps and drops absurd spans", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", timestamp: "2020-01-01T00:00:00Z", parts: [{ type: "tool-use", toolId: "t", toolName: "Bash" }] }), 1, 1_000_000);
    let v = toolView(s, s.messages.get("a")!.msg.parts![0], "a");
    expect(v.startedAt).toBe(1_000_000);
    applyEvent(s, msg({ id: "r", role: "user", timestamp: "2020-01-01T00:00:00Z", parts: [{ type: "tool-result", toolId: "t", content: "" }] }), 2, 1_004_000);
    v = toolView(s, s.messages.get("a")!.msg.parts![0], "a");
    expect(v.endedAt! - v.startedAt!).toBe(4000);
    // stored data with inconsistent timestamps: no duration rather than a wrong one
    const t = emptyState();
    applyEvent(t, msg({ id: "a", timestamp: "2026-01-01T00:00:00Z", parts: [{ type: "tool-use", toolId: "t", toolName: "Bash" }] }));
    applyEvent(t, msg({ id: "r", role: "user", timestamp: "2020-01-01T00:00:00Z", parts: [{ type: "tool-result", toolId: "t", content: "" }] }));
    v = toolView(t, t.messages.get("a")!.msg.parts![0], "a");
    expect(v.startedAt).toBeUndefined();
  });
});

describe("loadMessages", () => {
  it("gives the same state as applying the messages one by one", () => {
    const events = [
      msg({ id: "a", parts: [{ type: "tool-use", toolId: "t", toolName: "Task", kind: "sub-agent" }] }),
      msg({ id: "c", parentToolUseId: "t", parts: [{ type: "text", text: "child" }] }),
      msg({ id: "r", role: "user", parts: [{ type: "tool-result", toolId: "t", content: "done" }] }),
      msg({ id: "res", role: "result", modelUsage: { m: { inputTokens: 1, outputTokens: 1, contextWindow: 10 } } }),
    ];
    const a = emptyState();
    for (const e of events) applyEvent(a, e);
    const b = emptyState();
    loadMessages(b, events.map((e) => e.message!));
    expect(toDisplayRows(b)).toEqual(toDisplayRows(a).map((r) => (r.kind === "notice" ? r : { ...r, rev: b.messages.get(r.id)!.rev })));
    expect([...b.toolResults.keys()]).toEqual([...a.toolResults.keys()]);
    expect(b.children).toEqual(a.children);
    expect(b.modelUsage).toEqual(a.modelUsage);
    // a message loaded twice is upserted, not duplicated
    loadMessages(b, [events[0].message!]);
    expect(b.order).toEqual(["a", "c", "r", "res"]);
  });
});

describe("one summary per turn", () => {
  it("drops the complete notice when the result message arrives after it", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "u", role: "user", parts: [{ type: "text", text: "go" }] }));
    applyEvent(s, { type: "complete", result: { isError: true, interrupted: true, reason: "aborted_streaming" } }, 2);
    applyEvent(s, msg({ id: "res", role: "result", isError: true }));
    expect(toDisplayRows(s).map((r) => r.kind)).toEqual(["message", "result"]);
    expect(s.completeOf.get("res")).toMatchObject({ interrupted: true, reason: "aborted_streaming" });
  });

  it("drops it too when a tool's result message came between them (out-of-order delivery)", () => {
    // Seen with an MCP tool call in dev mode: the complete event overtook the
    // turn's last messages; the tool result is a "user" message but no new turn.
    const s = emptyState();
    applyEvent(s, msg({ id: "u", role: "user", parts: [{ type: "text", text: "go" }] }));
    applyEvent(s, msg({ id: "a", parts: [{ type: "tool-use", toolId: "t1", toolName: "mcp__jean-claude__report_progress", input: {} }] }));
    applyEvent(s, { type: "complete", result: { isError: false, text: "done" } }, 9);
    applyEvent(s, msg({ id: "p", role: "system", parts: [{ type: "system-status", subtype: "progress", text: "half way" }] }));
    applyEvent(s, msg({ id: "tr", role: "user", parts: [{ type: "tool-result", toolId: "t1", content: "Reported." }] }));
    applyEvent(s, msg({ id: "b", parts: [{ type: "text", text: "Done." }] }));
    applyEvent(s, msg({ id: "res", role: "result" }));
    const kinds = toDisplayRows(s).map((r) => r.kind);
    expect(kinds.filter((k) => k === "result" || k === "notice")).toEqual(["result"]);
  });
});

// The orchestrator numbers a task's events (seq), but the transport may
// deliver them out of order: Wails dev mode writes each event to the
// websocket from its own goroutine. A queued follow-up is stored as the
// orchestrator's "user-…" message (seq n), removed when the agent echoes it
// (seq n+1) and replaced by the echo (seq n+2); when the removal overtakes
// the message, the follow-up used to be shown twice.
describe("events delivered out of order", () => {
  const user = (id: string, text: string): AgentEvent => msg({ id, role: "user", parts: [{ type: "text", text }] });
  const shown = (s: ReturnType<typeof emptyState>, text: string) =>
    toDisplayRows(s).filter((r) => r.kind === "message" && s.messages.get(r.id)?.msg.parts?.some((p) => p.text === text)).length;

  it("shows a queued follow-up once when its removal arrives before it", () => {
    const s = emptyState();
    applyEnvelopes(s, [
      { taskId: "t", seq: 1, event: user("prompt-echo", "Create the marker file") },
      { taskId: "t", seq: 2, event: { type: "complete", result: { isError: false, text: "done" } } },
      { taskId: "t", seq: 4, event: { type: "message-removed", messageId: "user-1" } },
      { taskId: "t", seq: 3, event: user("user-1", "Now list the directory") },
      { taskId: "t", seq: 5, event: user("echo-uuid", "Now list the directory") },
    ]);
    expect(shown(s, "Now list the directory")).toBe(1);
    expect(s.messages.has("user-1")).toBe(false);
  });

  it("keeps the removal across frames of the store", () => {
    const frames: (() => void)[] = [];
    const st = new TimelineStore((cb) => frames.push(cb));
    st.load([]);
    st.push({ taskId: "t", seq: 7, event: { type: "message-removed", messageId: "user-1" } });
    frames.shift()!();
    st.push({ taskId: "t", seq: 6, event: user("user-1", "again") }, { taskId: "t", seq: 8, event: user("echo", "again") });
    frames.shift()!();
    expect(shown(st.state, "again")).toBe(1);
    expect(st.getSnapshot().rows.map((r) => r.key)).toEqual(["echo"]);
  });

  it("holds a removal that arrives before the transcript loads", () => {
    const st = new TimelineStore((cb) => cb());
    st.push({ taskId: "t", seq: 9, event: { type: "message-removed", messageId: "user-1" } });
    st.push({ taskId: "t", seq: 8, event: user("user-1", "late") });
    st.load([]);
    expect(st.state.messages.has("user-1")).toBe(false);
  });

  it("does not let an older version of a message replace a newer one", () => {
    const s = emptyState();
    applyEnvelopes(s, [
      { taskId: "t", seq: 3, event: msg({ id: "a", parts: [{ type: "text", text: "Hello world" }] }) },
      { taskId: "t", seq: 2, event: msg({ id: "a", parts: [{ type: "text", text: "Hel" }] }) },
    ]);
    expect(s.messages.get("a")!.msg.parts![0].text).toBe("Hello world");
  });

  it("shows a message again when it is re-sent after its removal", () => {
    const s = emptyState();
    applyEnvelopes(s, [
      { taskId: "t", seq: 1, event: msg({ id: "a", parts: [{ type: "text", text: "x" }] }) },
      { taskId: "t", seq: 2, event: { type: "message-removed", messageId: "a" } },
      { taskId: "t", seq: 3, event: msg({ id: "a", parts: [{ type: "text", text: "x again" }] }) },
    ]);
    expect(s.messages.get("a")?.msg.parts![0].text).toBe("x again");
  });
});

import { describe, expect, it } from "vitest";
import { appendDelta, applyEvent, emptyState, toolView } from "./state";
import { toDisplayRows } from "./groups";
import type { AgentEvent, Message } from "./types";
import { samePart } from "../parts/registry";

const msg = (m: Partial<Message> & { id: string }): AgentEvent => ({
  type: "message",
  message: { role: "assistant", parts: [], timestamp: "2026-01-01T00:00:00Z", ...m },
});

describe("deltas", () => {
  it("appends to the named part; the other parts keep their identity", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", parts: [{ type: "reasoning", text: "hm" }, { type: "text", text: "Hel" }] }));
    const before = s.messages.get("a")!;
    const reasoning = before.msg.parts![0];
    const rev = before.rev;
    applyEvent(s, { type: "delta", messageId: "a", delta: { part: 1, text: "lo" } });
    applyEvent(s, { type: "delta", messageId: "a", delta: { field: "reasoning", text: "m" } });
    const e = s.messages.get("a")!;
    expect(e.msg.parts![1].text).toBe("Hello");
    expect(e.msg.parts![0].text).toBe("hmm");
    expect(e.rev).toBeGreaterThan(rev);
    applyEvent(s, { type: "delta", messageId: "a", delta: { part: 1, text: "!" } });
    // the reasoning part was not touched by the text delta: same object
    const after = s.messages.get("a")!.msg;
    expect(after.parts![1].text).toBe("Hello!");
    expect(samePart({ part: after.parts![0], message: after, depth: 0 }, { part: s.messages.get("a")!.msg.parts![0], message: after, depth: 0 })).toBe(true);
    expect(reasoning.text).toBe("hm"); // pure: the old part is unchanged
  });

  it("appendDelta is pure and refuses a part of another kind or out of range", () => {
    const m: Message = { id: "a", role: "assistant", timestamp: "", parts: [{ type: "text", text: "x" }] };
    const n = appendDelta(m, { text: "y" });
    expect(n?.parts![0].text).toBe("xy");
    expect(m.parts![0].text).toBe("x");
    expect(appendDelta(m, { part: 3, text: "y" })).toBeUndefined();
    expect(appendDelta(m, { field: "reasoning", text: "y" })).toBeUndefined();
  });

  it("appends tool output to a tool result and reindexes it", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", parts: [{ type: "tool-use", toolId: "t", toolName: "bash", kind: "execute" }] }));
    applyEvent(s, msg({ id: "r", role: "user", parts: [{ type: "tool-result", toolId: "t", content: "line1\n" }] }));
    applyEvent(s, { type: "delta", messageId: "r", delta: { field: "output", text: "line2\n" } });
    const use = s.messages.get("a")!.msg.parts![0];
    expect(toolView(s, use, "a").result?.content).toBe("line1\nline2\n");
  });

  it("drops a delta older than a message event already applied, and one for an unknown message", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", parts: [{ type: "text", text: "Hello" }] }), 5);
    applyEvent(s, { type: "delta", messageId: "a", delta: { text: "lo" } }, 4);
    applyEvent(s, { type: "delta", messageId: "zz", delta: { text: "lo" } }, 6);
    expect(s.messages.get("a")!.msg.parts![0].text).toBe("Hello");
    expect(s.messages.has("zz")).toBe(false);
  });

  it("linear: 10,000 deltas build a 200 KB text", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", parts: [{ type: "text", text: "" }] }));
    const chunk = "lorem ipsum dolor si";
    for (let i = 0; i < 10_000; i++) applyEvent(s, { type: "delta", messageId: "a", delta: { text: chunk } });
    expect(s.messages.get("a")!.msg.parts![0].text!.length).toBe(200_000);
  });
});

describe("final tool states", () => {
  it("shows denied, cancelled and interrupted with the reason, over an error result", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", parts: [{ type: "tool-use", toolId: "t1", toolName: "bash", kind: "execute", state: "running" }] }));
    applyEvent(s, msg({ id: "r", role: "user", parts: [{ type: "tool-result", toolId: "t1", content: "declined", isError: true }] }));
    applyEvent(s, { type: "tool-state-update", messageId: "a", toolId: "t1", state: "denied", error: "permission denied" });
    const use = s.messages.get("a")!.msg.parts![0];
    expect(toolView(s, use, "a")).toMatchObject({ state: "denied", error: "permission denied" });
  });

  it("reads a stored final state and its reason from the message", () => {
    const s = emptyState();
    applyEvent(
      s,
      msg({
        id: "a",
        parts: [{ type: "tool-use", toolId: "t2", toolName: "read", kind: "read", state: "cancelled" }],
        metadata: { toolErrors: { t2: "the turn ended before the tool ran" } },
      }),
    );
    const use = s.messages.get("a")!.msg.parts![0];
    expect(toolView(s, use, "a")).toMatchObject({ state: "cancelled", error: "the turn ended before the tool ran" });
  });

  it("a complete event ends tools left running: interrupted or cancelled", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "a", parts: [{ type: "tool-use", toolId: "t3", toolName: "bash", kind: "execute" }] }));
    applyEvent(s, { type: "tool-state-update", messageId: "a", toolId: "t3", state: "running" });
    applyEvent(s, { type: "complete", result: { isError: false, interrupted: true } });
    const use = s.messages.get("a")!.msg.parts![0];
    expect(toolView(s, use, "a").state).toBe("interrupted");
  });
});

describe("quiet notices", () => {
  const quiet = (id: string, kind: string): AgentEvent =>
    msg({
      id,
      role: "system",
      parts: [{ type: "system-status", subtype: kind, status: "unknown", text: `System notice: ${kind}` }],
      metadata: { quiet: true, raw: `{"type":"system","subtype":"${kind}"}` },
    });

  it("collapses consecutive quiet notices into one counted row", () => {
    const s = emptyState();
    applyEvent(s, msg({ id: "u", role: "user", parts: [{ type: "text", text: "hi" }] }));
    applyEvent(s, quiet("q1", "command_lifecycle"));
    applyEvent(s, quiet("q2", "command_lifecycle"));
    applyEvent(s, quiet("q3", "other"));
    applyEvent(s, msg({ id: "a", parts: [{ type: "text", text: "ok" }] }));
    applyEvent(s, quiet("q4", "x"));
    const rows = toDisplayRows(s);
    expect(rows.map((r) => r.kind)).toEqual(["message", "quiet", "message", "quiet"]);
    const q = rows[1];
    expect(q.kind === "quiet" && q.ids).toEqual(["q1", "q2", "q3"]);
  });
});

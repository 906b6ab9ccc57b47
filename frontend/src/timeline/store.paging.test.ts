import { TimelineStore } from "./store";
import { emptyState, loadMessages, prependMessages, applyEnvelopes } from "./state";
import { pageOf } from "../features/task-view/fakeApi";
import type { AgentEventEnvelope, Message } from "./types";

const msg = (id: string, text = id, extra: Partial<Message> = {}): Message => ({
  id,
  role: "assistant",
  parts: [{ type: "text", text }],
  timestamp: "2026-11-26T10:00:00Z",
  ...extra,
});
const all = Array.from({ length: 10 }, (_, i) => msg(`m${i}`));
const live = (seq: number, m: Message): AgentEventEnvelope => ({ taskId: "t", seq, event: { type: "message", message: m } });
const now = () => (s: TimelineStore) => s.state.order.join(" ");

test("pages come in front of the newest one, in order, with the cursor moving back", () => {
  const s = new TimelineStore((cb) => cb());
  const order = now();
  s.loadPage(pageOf(all, -1, 4));
  expect(order(s)).toBe("m6 m7 m8 m9");
  expect(s.older).toEqual({ cursor: 6, has: true });
  s.prependPage(pageOf(all, s.older.cursor, 4));
  expect(order(s)).toBe("m2 m3 m4 m5 m6 m7 m8 m9");
  s.prependPage(pageOf(all, s.older.cursor, 4));
  expect(order(s)).toBe("m0 m1 m2 m3 m4 m5 m6 m7 m8 m9");
  expect(s.older.has).toBe(false);
  expect(s.getSnapshot().rows.map((r) => (r.kind === "notice" ? "" : r.id))).toEqual(all.map((m) => m.id));
});

test("live events keep appending while older pages come in front", () => {
  const s = new TimelineStore((cb) => cb());
  s.loadPage(pageOf(all, -1, 3));
  s.push(live(1, msg("n1")));
  s.flush();
  s.prependPage(pageOf(all, s.older.cursor, 3));
  s.push(live(2, msg("n2")));
  s.flush();
  expect(s.state.order.join(" ")).toBe("m4 m5 m6 m7 m8 m9 n1 n2");
});

test("a message a live event re-sent before its page came goes back to its place, keeping the live version", () => {
  const st = emptyState();
  loadMessages(st, all.slice(6));
  // A decision re-emits the old m2 with its metadata: it lands at the end.
  applyEnvelopes(st, [live(5, msg("m2", "m2 decided"))]);
  expect(st.order.at(-1)).toBe("m2");
  prependMessages(st, all.slice(2, 6));
  expect(st.order.join(" ")).toBe("m2 m3 m4 m5 m6 m7 m8 m9");
  expect(st.messages.get("m2")!.msg.parts![0].text).toBe("m2 decided");
});

test("a message removed live is not brought back by an older page", () => {
  const st = emptyState();
  loadMessages(st, all.slice(6));
  applyEnvelopes(st, [live(3, msg("m5")), { taskId: "t", seq: 4, event: { type: "message-removed", messageId: "m5" } }]);
  prependMessages(st, all.slice(2, 6));
  expect(st.order.join(" ")).toBe("m2 m3 m4 m6 m7 m8 m9");
});

test("tool results and sub-agent children in a newer page find their older tool use", () => {
  const use = msg("u", "", { parts: [{ type: "tool-use", toolId: "T1", toolName: "Task", input: {} }] });
  const kid1 = msg("k1", "k1", { parentToolUseId: "T1" });
  const kid2 = msg("k2", "k2", { parentToolUseId: "T1" });
  const res = msg("r", "", { role: "user", parts: [{ type: "tool-result", toolId: "T1", content: "ok" }] });
  const st = emptyState();
  loadMessages(st, [kid2, res]);
  prependMessages(st, [use, kid1]);
  expect(st.toolUses.get("T1")?.messageId).toBe("u");
  expect(st.toolResults.get("T1")?.messageId).toBe("r");
  expect(st.children.get("T1")).toEqual(["k1", "k2"]);
});

test("notices stay after the messages they followed", () => {
  const st = emptyState();
  loadMessages(st, all.slice(8));
  applyEnvelopes(st, [{ taskId: "t", seq: 1, event: { type: "complete", result: { text: "done" } } as AgentEventEnvelope["event"] }]);
  const after = st.notices[0].after;
  prependMessages(st, all.slice(5, 8));
  expect(st.notices[0].after).toBe(after + 3);
});

test("a page reaching back to a message holds everything from it", () => {
  expect(pageOf(all, -1, 2, "m3").messages!.map((m) => m.id)).toEqual(["m3", "m4", "m5", "m6", "m7", "m8", "m9"]);
  expect(pageOf(all, 5, 2, "m1")).toMatchObject({ cursor: 1, hasOlder: true });
});

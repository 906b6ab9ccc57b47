import { focusRowIndex } from "../task-view/MessageList";
import type { DisplayRow } from "../../timeline/groups";
import type { TimelineState } from "../../timeline/state";

test("focusRowIndex finds a message's row, or the row its tool result is folded into", () => {
  const rows = [
    { kind: "message", key: "u1", id: "u1", rev: 1, role: "user" },
    { kind: "message", key: "a1", id: "a1", rev: 1, role: "assistant" },
    { kind: "result", key: "res", id: "res", rev: 1 },
  ] as DisplayRow[];
  const state = {
    messages: new Map([["r1", { msg: { id: "r1", role: "user", parts: [{ type: "tool-result", toolId: "t1" }] } }]]),
    toolUses: new Map([["t1", { messageId: "a1" }]]),
  } as unknown as TimelineState;
  expect(focusRowIndex(rows, state, "u1")).toBe(0);
  expect(focusRowIndex(rows, state, "res")).toBe(2);
  expect(focusRowIndex(rows, state, "r1")).toBe(1);
  expect(focusRowIndex(rows, state, "missing")).toBe(-1);
});

import { TimelineStore } from "./store";
import type { PendingCard } from "./state";

const card: PendingCard = { kind: "permission", request: { requestId: "r1", toolName: "Bash", input: { command: "npm test" } } };

test("a permission request announced while the transcript loads is not hidden by the older fetch", () => {
  const s = new TimelineStore((cb) => cb());
  // The view fetched (messages, pending = []) before the request was stored;
  // the live update arrives before the fetch resolves.
  s.setPending([card]);
  s.load([], []);
  expect([...s.state.pending.keys()]).toEqual(["r1"]);
  expect(s.getSnapshot().pendingCount).toBe(1);
  // After the load, the fetched-or-live rule no longer applies: live updates replace.
  s.setPending([]);
  expect(s.state.pending.size).toBe(0);
});

test("without a live update the fetched list is used", () => {
  const s = new TimelineStore((cb) => cb());
  s.load([], [card]);
  expect(s.state.pending.size).toBe(1);
});

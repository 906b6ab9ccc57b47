// Pure reducer for the composer's queue of follow-up messages: the
// orchestrator's list ("queue:updated") is the truth; local edits and
// removals apply optimistically until it answers.

import type { QueuedMessage } from "./types";

export type QueueAction =
  | { type: "replace"; items: readonly QueuedMessage[] }
  | { type: "edit"; id: string; text: string }
  | { type: "remove"; id: string }
  | { type: "add"; item: QueuedMessage };

export function sortQueue(items: readonly QueuedMessage[]): QueuedMessage[] {
  return [...items].sort((a, b) => a.position - b.position || a.createdAt - b.createdAt);
}

export function queueReducer(items: readonly QueuedMessage[], a: QueueAction): QueuedMessage[] {
  switch (a.type) {
    case "replace":
      return sortQueue(a.items);
    case "edit":
      return items.map((q) => (q.id === a.id ? { ...q, text: a.text } : q));
    case "remove":
      return items.filter((q) => q.id !== a.id);
    case "add":
      return sortQueue([...items.filter((q) => q.id !== a.item.id), a.item]);
    default: {
      const _exhaustive: never = a;
      return _exhaustive;
    }
  }
}

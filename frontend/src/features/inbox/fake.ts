// A fake InboxApi for tests and the browser demo: it keeps items in memory,
// records every call and removes an answered item, as the backend does.

import type { InboxApi } from "./api";
import type { InboxItem, InboxPayload } from "./model";

export interface FakeInbox extends InboxApi {
  calls: Array<[string, ...unknown[]]>;
  set(items: InboxItem[]): void;
  /** onChange is called with the new payload after each answer (the "inbox:updated" event). */
  onChange?: (p: InboxPayload) => void;
}

export function fakeInboxApi(initial: InboxItem[] = []): FakeInbox {
  let items = [...initial];
  const calls: Array<[string, ...unknown[]]> = [];
  const drop = (pred: (i: InboxItem) => boolean) => {
    items = items.filter((i) => !pred(i));
    api.onChange?.({ items, count: items.length });
  };
  const api: FakeInbox = {
    calls,
    set(next) {
      items = [...next];
    },
    async items() {
      return { items, count: items.length };
    },
    async respondToPermission(taskId, requestId, answer) {
      calls.push(["permission", taskId, requestId, answer]);
      drop((i) => i.taskId === taskId && i.requestId === requestId);
    },
    async respondToQuestion(taskId, requestId, answers) {
      calls.push(["question", taskId, requestId, answers]);
      drop((i) => i.taskId === taskId && i.requestId === requestId);
    },
    async answerPlan(taskId, requestId, choice, message) {
      calls.push(["plan", taskId, requestId, choice, message]);
      drop((i) => i.taskId === taskId && i.requestId === requestId);
    },
    async dismiss(taskId) {
      calls.push(["dismiss", taskId]);
      drop((i) => i.taskId === taskId && (i.kind === "result" || i.kind === "error"));
    },
    async retry(taskId) {
      calls.push(["retry", taskId]);
      drop((i) => i.taskId === taskId && i.kind === "error");
    },
  };
  return api;
}

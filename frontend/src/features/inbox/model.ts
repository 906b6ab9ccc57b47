// The attention inbox's pure logic: its items (as InboxService sends them),
// the selection reducer, the options each item offers and the keyboard map
// (j/k move, 1–9 answer, Enter opens the task). No React, no bridge: vitest
// covers it whole.

import type { Question, Request } from "../../timeline/types";

export type InboxKind = "permission" | "question" | "plan" | "result" | "error";

/** InboxItem mirrors services.InboxItem (backend/services/inbox.go). */
export interface InboxItem {
  key: string;
  kind: InboxKind;
  taskId: string;
  taskName: string;
  projectId: string;
  projectName: string;
  agentBackend: string;
  status: string;
  requestId?: string;
  request?: Request;
  plan?: string;
  summary: string;
  at: number;
}

export interface InboxPayload {
  items: InboxItem[] | null;
  count: number;
}

/** What choosing an option does. */
export type InboxAnswer =
  | { type: "permission"; behavior: "allow" | "deny"; scope: "once" | "task" | "project" }
  | { type: "plan"; choice: "approve" | "approve-accept-edits" | "keep-planning" }
  | { type: "pick"; question: number; label: string }
  | { type: "dismiss" }
  | { type: "retry" };

export interface InboxOption {
  label: string;
  answer: InboxAnswer;
  tone?: "primary" | "danger";
}

/** questionsOf returns every question of a request (the single-question form included). */
export function questionsOf(req: Request | undefined): Question[] {
  if (!req) return [];
  if (req.questions && req.questions.length > 0) return req.questions;
  if (req.question || (req.options && req.options.length > 0)) return [{ question: req.question ?? "", options: req.options }];
  return [];
}

/** optionsOf lists what an item can be answered with, in key order (1, 2, …). picked is the labels chosen so far for a question item. */
export function optionsOf(item: InboxItem, picked: string[] = [], canRetry = false): InboxOption[] {
  switch (item.kind) {
    case "permission":
      return [
        { label: "Allow once", answer: { type: "permission", behavior: "allow", scope: "once" }, tone: "primary" },
        { label: "Always for this task", answer: { type: "permission", behavior: "allow", scope: "task" } },
        { label: "Always for this project", answer: { type: "permission", behavior: "allow", scope: "project" } },
        { label: "Deny", answer: { type: "permission", behavior: "deny", scope: "once" }, tone: "danger" },
      ];
    case "plan":
      return [
        { label: "Approve", answer: { type: "plan", choice: "approve" }, tone: "primary" },
        { label: "Approve and accept edits", answer: { type: "plan", choice: "approve-accept-edits" } },
        { label: "Keep planning", answer: { type: "plan", choice: "keep-planning" } },
      ];
    case "question": {
      const qs = questionsOf(item.request);
      const qi = Math.min(picked.length, Math.max(qs.length - 1, 0));
      return (qs[qi]?.options ?? []).slice(0, 9).map((o) => ({ label: o.label, answer: { type: "pick", question: qi, label: o.label } }));
    }
    case "result":
      return [{ label: "Mark read", answer: { type: "dismiss" }, tone: "primary" }];
    case "error":
      return canRetry
        ? [
            { label: "Mark read", answer: { type: "dismiss" }, tone: "primary" },
            { label: "Retry", answer: { type: "retry" } },
          ]
        : [{ label: "Mark read", answer: { type: "dismiss" }, tone: "primary" }];
    default: {
      const _exhaustive: never = item.kind;
      return _exhaustive;
    }
  }
}

export interface InboxState {
  items: InboxItem[];
  /** The selected item's key (null when the inbox is empty). */
  selected: string | null;
  /** Labels picked so far for a multi-question item, by item key. */
  picked: Record<string, string[]>;
}

export type InboxAction =
  | { type: "load"; items: InboxItem[] }
  | { type: "move"; delta: number }
  | { type: "select"; key: string }
  | { type: "pick"; key: string; label: string };

export const emptyInbox: InboxState = { items: [], selected: null, picked: {} };

/** reduceInbox keeps the selection on the same item across updates; when
 * that item left (answered), the one that took its place is selected. */
export function reduceInbox(s: InboxState, a: InboxAction): InboxState {
  switch (a.type) {
    case "load": {
      const items = a.items;
      let selected = s.selected && items.some((i) => i.key === s.selected) ? s.selected : null;
      if (!selected && items.length > 0) {
        const was = s.items.findIndex((i) => i.key === s.selected);
        selected = items[Math.min(Math.max(was, 0), items.length - 1)].key;
      }
      const picked: Record<string, string[]> = {};
      for (const i of items) if (s.picked[i.key]) picked[i.key] = s.picked[i.key];
      return { items, selected, picked };
    }
    case "move": {
      if (s.items.length === 0) return s;
      const at = s.items.findIndex((i) => i.key === s.selected);
      const next = Math.min(Math.max((at < 0 ? 0 : at) + a.delta, 0), s.items.length - 1);
      return { ...s, selected: s.items[next].key };
    }
    case "select":
      return s.items.some((i) => i.key === a.key) ? { ...s, selected: a.key } : s;
    case "pick":
      return { ...s, picked: { ...s.picked, [a.key]: [...(s.picked[a.key] ?? []), a.label] } };
    default: {
      const _exhaustive: never = a;
      return _exhaustive;
    }
  }
}

/** selectedItem is the selected item, if any. */
export function selectedItem(s: InboxState): InboxItem | undefined {
  return s.items.find((i) => i.key === s.selected);
}

/** What a key press asks for. */
export type InboxCommand = { type: "move"; delta: number } | { type: "option"; index: number } | { type: "open" };

/** keyCommand maps a key press (outside text fields, no modifiers) to an inbox command. */
export function keyCommand(e: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey">): InboxCommand | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  switch (e.key) {
    case "j":
    case "ArrowDown":
      return { type: "move", delta: 1 };
    case "k":
    case "ArrowUp":
      return { type: "move", delta: -1 };
    case "Enter":
      return { type: "open" };
  }
  if (/^[1-9]$/.test(e.key)) return { type: "option", index: Number(e.key) - 1 };
  return null;
}

/** answersAfterPick returns the question item's full answers once the pick of label completes them, else null. */
export function answersAfterPick(item: InboxItem, picked: string[], label: string): string[][] | null {
  const qs = questionsOf(item.request);
  const all = [...picked, label];
  if (all.length < qs.length) return null;
  return all.map((l) => [l]);
}

/** inboxTitle is the window title with n items waiting. */
export function inboxTitle(n: number): string {
  return n > 0 ? `(${n}) Jean-Claude` : "Jean-Claude";
}

/** age says how long ago ms was, shortly ("just now", "5 min", "3 h", "2 d"). */
export function age(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

// The attention inbox's pure logic: its items (as InboxService sends them),
// the selection reducer, the options each item offers, a question item's
// answer in progress, and the keyboard map (j/k move, 1–9 answer, Enter
// opens the task, o/t reach a question's options/free text, Ctrl+Enter
// sends a question's answer). No React, no bridge: vitest covers it whole.

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
  | { type: "deny" }
  | { type: "dismiss" }
  | { type: "retry" };

export interface InboxOption {
  label: string;
  answer: InboxAnswer;
  tone?: "primary" | "danger";
  /** A multi-select question's option that is toggled on. */
  on?: boolean;
  description?: string;
}

/** questionsOf returns every question of a request (the single-question form included). */
export function questionsOf(req: Request | undefined): Question[] {
  if (!req) return [];
  if (req.questions && req.questions.length > 0) return req.questions;
  if (req.question || (req.options && req.options.length > 0)) return [{ question: req.question ?? "", options: req.options }];
  return [];
}

/** A question item's answer in progress: done[i] answers question i; toggled
 * and text are the current question's (done.length) multi-select picks and
 * free text. */
export interface QuestionDraft {
  done: string[][];
  toggled: string[];
  text: string;
}

export const emptyDraft: QuestionDraft = { done: [], toggled: [], text: "" };

/** currentQuestion is the index of the question being answered. */
export function currentQuestion(item: InboxItem, draft: QuestionDraft = emptyDraft): number {
  return Math.min(draft.done.length, Math.max(questionsOf(item.request).length - 1, 0));
}

/** One step of answering a question item: an option (a single-choice
 * question's pick answers it, a multi-select's toggles it), or confirming
 * the current question with its toggled options and free text. */
export type QuestionStep = { type: "option"; label: string } | { type: "confirm" };

/** stepQuestion applies a step; answers is set once every question is answered (then send them). */
export function stepQuestion(item: InboxItem, draft: QuestionDraft, step: QuestionStep): { draft: QuestionDraft; answers: string[][] | null } {
  const qs = questionsOf(item.request);
  const qi = draft.done.length;
  if (qi >= qs.length) return { draft, answers: null };
  let answer: string[];
  if (step.type === "option") {
    if (qs[qi].multiSelect) {
      const on = draft.toggled.includes(step.label);
      const toggled = on ? draft.toggled.filter((l) => l !== step.label) : [...draft.toggled, step.label];
      return { draft: { ...draft, toggled }, answers: null };
    }
    answer = [step.label];
  } else {
    const text = draft.text.trim();
    answer = text ? [...draft.toggled, text] : draft.toggled;
    if (answer.length === 0) return { draft, answers: null };
  }
  const done = [...draft.done, answer];
  return { draft: { done, toggled: [], text: "" }, answers: done.length === qs.length ? done : null };
}

/** optionsOf lists what an item can be answered with, in key order (1, 2, …; a question's options past nine have no digit). */
export function optionsOf(item: InboxItem, draft: QuestionDraft = emptyDraft, canRetry = false): InboxOption[] {
  switch (item.kind) {
    case "permission":
      return [
        { label: "Allow once", answer: { type: "permission", behavior: "allow", scope: "once" }, tone: "primary" },
        { label: "Always for this task", answer: { type: "permission", behavior: "allow", scope: "task" } },
        { label: "Always for this project", answer: { type: "permission", behavior: "allow", scope: "project" } },
        { label: "Deny…", answer: { type: "deny" }, tone: "danger" },
      ];
    case "plan":
      return [
        { label: "Approve", answer: { type: "plan", choice: "approve" }, tone: "primary" },
        { label: "Approve and accept edits", answer: { type: "plan", choice: "approve-accept-edits" } },
        { label: "Keep planning", answer: { type: "plan", choice: "keep-planning" } },
      ];
    case "question": {
      const qi = currentQuestion(item, draft);
      return (questionsOf(item.request)[qi]?.options ?? []).map((o) => ({
        label: o.label,
        description: o.description,
        on: draft.toggled.includes(o.label),
        answer: { type: "pick", question: qi, label: o.label },
      }));
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
  /** Question items' answers in progress, by item key. */
  drafts: Record<string, QuestionDraft>;
  /** The permission item whose deny reason is being typed. */
  denying: string | null;
}

export type InboxAction =
  | { type: "load"; items: InboxItem[] }
  | { type: "move"; delta: number }
  | { type: "select"; key: string }
  | { type: "draft"; key: string; draft: QuestionDraft }
  | { type: "deny"; key: string | null };

export const emptyInbox: InboxState = { items: [], selected: null, drafts: {}, denying: null };

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
      const drafts: Record<string, QuestionDraft> = {};
      for (const i of items) if (s.drafts[i.key]) drafts[i.key] = s.drafts[i.key];
      const denying = s.denying && items.some((i) => i.key === s.denying) ? s.denying : null;
      return { items, selected, drafts, denying };
    }
    case "move": {
      if (s.items.length === 0) return s;
      const at = s.items.findIndex((i) => i.key === s.selected);
      const next = Math.min(Math.max((at < 0 ? 0 : at) + a.delta, 0), s.items.length - 1);
      return { ...s, selected: s.items[next].key, denying: null };
    }
    case "select":
      return s.items.some((i) => i.key === a.key) ? { ...s, selected: a.key, denying: a.key === s.denying ? s.denying : null } : s;
    case "draft":
      return s.items.some((i) => i.key === a.key) ? { ...s, drafts: { ...s.drafts, [a.key]: a.draft } } : s;
    case "deny":
      return { ...s, denying: a.key && s.items.some((i) => i.key === a.key && i.kind === "permission") ? a.key : null };
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
export type InboxCommand =
  | { type: "move"; delta: number }
  | { type: "option"; index: number }
  | { type: "open" }
  | { type: "confirm" }
  | { type: "focus"; target: "options" | "text" };

/** keyCommand maps a key press (outside text fields) to an inbox command. */
export function keyCommand(e: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey">): InboxCommand | null {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.altKey) return { type: "confirm" };
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
    case "o":
      return { type: "focus", target: "options" };
    case "t":
      return { type: "focus", target: "text" };
  }
  if (/^[1-9]$/.test(e.key)) return { type: "option", index: Number(e.key) - 1 };
  return null;
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

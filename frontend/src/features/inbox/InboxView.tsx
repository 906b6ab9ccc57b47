// InboxView: everything waiting on the user across projects, oldest first,
// each answered in place. Keys (focus not in a text field): j/k or ↓/↑
// move, 1–9 choose the selected item's option, Enter opens its task. A
// question: o focuses its options (↑/↓, Enter/Space pick, Esc leaves), t its
// free text (Enter sends, Esc leaves), Ctrl+Enter sends a multi-select's
// picks. A permission's Deny (4) asks for an optional reason first.

import { useCallback, useEffect, useReducer, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type Ref } from "react";
import { useApp } from "../../state/context";
import { Markdown } from "../../parts/Markdown";
import { asObject, pretty, str } from "../../parts/util";
import { isTyping } from "../task-view/keys";
import { errorMessage } from "../../lib/errors";
import { cx } from "../../lib/cx";
import type { InboxApi } from "./api";
import {
  age,
  currentQuestion,
  emptyDraft,
  emptyInbox,
  keyCommand,
  optionsOf,
  questionsOf,
  reduceInbox,
  selectedItem,
  stepQuestion,
  type InboxItem,
  type InboxOption,
  type InboxState,
  type QuestionDraft,
  type QuestionStep,
} from "./model";
import "../../parts/parts.css";
import "../task-view/task-view.css";
import "./inbox.css";

const KIND_LABEL: Record<InboxItem["kind"], string> = {
  permission: "Permission",
  question: "Question",
  plan: "Plan",
  result: "Result",
  error: "Error",
};

/** answerItem sends an option's answer through the api (a question's picks and a deny go through stepQuestion and the reason field first). */
export async function answerItem(api: InboxApi, item: InboxItem, opt: InboxOption): Promise<void> {
  const a = opt.answer;
  const rid = item.requestId ?? "";
  switch (a.type) {
    case "permission":
      return api.respondToPermission(item.taskId, rid, { behavior: a.behavior, scope: a.scope });
    case "plan":
      return api.answerPlan(item.taskId, rid, a.choice, "");
    case "dismiss":
      return api.dismiss(item.taskId);
    case "retry":
      if (!api.retry) throw new Error("retry is not available");
      await api.retry(item.taskId);
      return api.dismiss(item.taskId);
    case "pick":
    case "deny":
      throw new Error(`${a.type} is not sent directly`);
  }
}

/** denyItem denies a permission, with the reason when one was typed (as the task view's card). */
export function denyItem(api: InboxApi, item: InboxItem, reason: string): Promise<void> {
  return api.respondToPermission(item.taskId, item.requestId ?? "", { behavior: "deny", scope: "once", message: reason.trim() || undefined });
}

export function InboxView() {
  const items = useApp((s) => s.inbox);
  const screen = useApp((s) => s.screen);
  const api = useApp((s) => s.api.inbox);
  const openScreen = useApp((s) => s.openScreen);
  const [state, dispatch] = useReducer(reduceInbox, emptyInbox);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<{ key: string; text: string } | null>(null);
  const detailRef = useRef<HTMLElement>(null);
  const focusKey = screen.kind === "inbox" ? screen.focusKey : undefined;
  const focusAt = screen.kind === "inbox" ? screen.focusAt : undefined;

  useEffect(() => dispatch({ type: "load", items }), [items]);
  // A clicked notification selects its item once it is listed (the
  // inbox:updated that lists it may come after inbox:open), and only once.
  const focused = useRef("");
  useEffect(() => {
    const id = `${focusKey}@${focusAt}`;
    if (!focusKey || focused.current === id || !items.some((i) => i.key === focusKey)) return;
    focused.current = id;
    dispatch({ type: "select", key: focusKey });
  }, [focusKey, focusAt, items]);

  const send = useCallback(
    async (item: InboxItem, what: () => Promise<void>) => {
      if (!api || busy === item.key) return false;
      setError(null);
      setBusy(item.key);
      try {
        await what();
        return true;
      } catch (e) {
        setError({ key: item.key, text: errorMessage(e) });
        return false;
      } finally {
        setBusy(null);
      }
    },
    [api, busy],
  );

  const step = useCallback(
    (item: InboxItem, st: QuestionStep) => {
      const r = stepQuestion(item, state.drafts[item.key] ?? emptyDraft, st);
      if (!r.answers) {
        dispatch({ type: "draft", key: item.key, draft: r.draft });
        return;
      }
      const answers = r.answers;
      void send(item, () => api!.respondToQuestion(item.taskId, item.requestId ?? "", answers));
    },
    [api, send, state.drafts],
  );

  const choose = useCallback(
    (item: InboxItem, opt: InboxOption) => {
      const a = opt.answer;
      if (a.type === "pick") step(item, { type: "option", label: a.label });
      else if (a.type === "deny") dispatch({ type: "deny", key: item.key });
      else void send(item, () => answerItem(api!, item, opt));
    },
    [api, send, step],
  );

  const sel = selectedItem(state);
  const canRetry = Boolean(api?.retry);
  const selDraft = sel ? (state.drafts[sel.key] ?? emptyDraft) : emptyDraft;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || isTyping(e)) return;
      const cmd = keyCommand(e);
      if (!cmd) return;
      if (cmd.type === "move") dispatch({ type: "move", delta: cmd.delta });
      else if (!sel) return;
      else if (cmd.type === "open") openScreen({ kind: "task", taskId: sel.taskId });
      else if (cmd.type === "confirm" || cmd.type === "focus") {
        if (sel.kind !== "question") return;
        if (cmd.type === "confirm") step(sel, { type: "confirm" });
        else detailRef.current?.querySelector<HTMLElement>(cmd.target === "text" ? "[data-free]" : "[data-option]")?.focus();
      } else {
        const opt = optionsOf(sel, selDraft, canRetry)[cmd.index];
        if (!opt) return;
        choose(sel, opt);
      }
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [sel, selDraft, canRetry, choose, step, openScreen]);

  return (
    <section className="jc-inbox" aria-label="Inbox" data-testid="inbox">
      <header className="jc-inbox__head">
        <h2>Inbox</h2>
        <span className="jc-meta" data-testid="inbox-count">
          {items.length === 0 ? "nothing waiting" : `${items.length} waiting`}
        </span>
        <span className="jc-inbox__keys jc-meta">
          <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>1</kbd>–<kbd>9</kbd> answer · <kbd>Enter</kbd> open the task
        </span>
      </header>
      {items.length === 0 ? (
        <div className="jc-inbox__empty">Nothing is waiting on you. Permission requests, questions, plans, finished results and errors of every project show up here.</div>
      ) : (
        <div className="jc-inbox__body">
          <InboxList state={state} onSelect={(key) => dispatch({ type: "select", key })} />
          {sel ? (
            <InboxDetail
              key={sel.key}
              ref={detailRef}
              item={sel}
              options={optionsOf(sel, selDraft, canRetry)}
              draft={selDraft}
              denying={state.denying === sel.key}
              busy={busy === sel.key}
              error={error?.key === sel.key ? error.text : ""}
              onChoose={(o) => choose(sel, o)}
              onStep={(st) => step(sel, st)}
              onText={(text) => dispatch({ type: "draft", key: sel.key, draft: { ...selDraft, text } })}
              onDeny={(reason) => void send(sel, () => denyItem(api!, sel, reason))}
              onCancelDeny={() => dispatch({ type: "deny", key: null })}
              onOpen={() => openScreen({ kind: "task", taskId: sel.taskId })}
            />
          ) : null}
        </div>
      )}
    </section>
  );
}

function InboxList({ state, onSelect }: { state: InboxState; onSelect: (key: string) => void }) {
  const ref = useRef<HTMLUListElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>("[aria-selected=true]")?.scrollIntoView?.({ block: "nearest" });
  }, [state.selected]);
  const now = Date.now();
  return (
    <ul className="jc-inbox__list" role="listbox" aria-label="Waiting on you" ref={ref}>
      {state.items.map((it) => (
        <li
          key={it.key}
          role="option"
          aria-selected={it.key === state.selected}
          className={cx("jc-inbox__row", `jc-inbox__row--${it.kind}`, it.key === state.selected && "is-selected")}
          data-testid="inbox-item"
          data-kind={it.kind}
          data-key={it.key}
          onClick={() => onSelect(it.key)}
        >
          <span className={`jc-inbox__kind jc-inbox__kind--${it.kind}`}>{KIND_LABEL[it.kind]}</span>
          <span className="jc-inbox__where" title={it.taskName}>
            {it.taskName}
          </span>
          <span className="jc-inbox__summary" title={it.summary}>
            {it.summary}
          </span>
          <span className="jc-inbox__meta jc-meta">
            {it.projectName} · {age(it.at, now)}
          </span>
        </li>
      ))}
    </ul>
  );
}

interface DetailProps {
  ref: Ref<HTMLElement>;
  item: InboxItem;
  options: InboxOption[];
  draft: QuestionDraft;
  denying: boolean;
  busy: boolean;
  error: string;
  onChoose: (o: InboxOption) => void;
  onStep: (st: QuestionStep) => void;
  onText: (text: string) => void;
  onDeny: (reason: string) => void;
  onCancelDeny: () => void;
  onOpen: () => void;
}

function InboxDetail(p: DetailProps) {
  const { item, options, busy } = p;
  const question = item.kind === "question" && questionsOf(item.request).length > 0;
  return (
    <article ref={p.ref} className={`jc-inbox__detail jc-inbox__detail--${item.kind}`} data-testid="inbox-detail" data-kind={item.kind}>
      <div className="jc-inbox__detail-head">
        <span className={`jc-inbox__kind jc-inbox__kind--${item.kind}`}>{KIND_LABEL[item.kind]}</span>
        <strong>{item.taskName}</strong>
        <span className="jc-meta">
          {item.projectName} · {item.agentBackend}
        </span>
      </div>
      {question ? <QuestionBody {...p} /> : <DetailBody item={item} />}
      {p.error ? (
        <div className="jc-card__error" role="alert">
          {p.error}
        </div>
      ) : null}
      {p.denying ? (
        <DenyForm busy={busy} onDeny={p.onDeny} onCancel={p.onCancelDeny} />
      ) : (
        <div className="jc-inbox__actions">
          {question
            ? <ConfirmButton item={item} draft={p.draft} busy={busy} onConfirm={() => p.onStep({ type: "confirm" })} />
            : options.map((o, i) => (
                <button
                  key={o.label + i}
                  type="button"
                  className={cx("jc-tv-btn", o.tone === "primary" && "is-primary", o.tone === "danger" && "is-danger")}
                  disabled={busy}
                  onClick={() => p.onChoose(o)}
                >
                  {o.label} <kbd>{i + 1}</kbd>
                </button>
              ))}
          <span className="jc-inbox__spacer" />
          <button type="button" className="jc-tv-btn" onClick={p.onOpen}>
            Open task <kbd>Enter</kbd>
          </button>
        </div>
      )}
    </article>
  );
}

/** DenyForm asks why, as the task view's permission card: Enter denies (with the reason, if any), Esc cancels. */
function DenyForm({ busy, onDeny, onCancel }: { busy: boolean; onDeny: (reason: string) => void; onCancel: () => void }) {
  const [reason, setReason] = useState("");
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <form
      className="jc-card__deny"
      data-testid="inbox-deny"
      onSubmit={(e) => {
        e.preventDefault();
        onDeny(reason);
      }}
    >
      <input
        ref={ref}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        placeholder="Tell the agent why, or what to do instead (optional)"
        aria-label="Reason"
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            onCancel();
          }
        }}
      />
      <button type="submit" className="jc-tv-btn is-danger" disabled={busy}>
        Deny <kbd>↵</kbd>
      </button>
      <button type="button" className="jc-tv-btn" onClick={onCancel}>
        Cancel <kbd>Esc</kbd>
      </button>
    </form>
  );
}

/** QuestionBody: the answered questions, then the current one's options (all
 * of them: 1–9 for the first nine, o then ↑/↓ for any) and its free text. */
function QuestionBody({ item, options, draft, busy, onStep, onText }: DetailProps) {
  const qs = questionsOf(item.request);
  const qi = currentQuestion(item, draft);
  const q = qs[qi];
  const listRef = useRef<HTMLDivElement>(null);
  const refocus = useRef(false);
  useEffect(() => {
    if (!refocus.current) return;
    refocus.current = false;
    listRef.current?.querySelector<HTMLElement>("[data-option]")?.focus();
  }, [qi]);
  const onListKey = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const buttons = Array.from(listRef.current?.querySelectorAll<HTMLElement>("[data-option]") ?? []);
    const at = buttons.indexOf(e.target as HTMLElement);
    if (at < 0) return;
    const to = (n: number) => buttons[Math.min(Math.max(n, 0), buttons.length - 1)]?.focus();
    const k = e.key;
    if (k === "ArrowDown" || k === "ArrowRight" || k === "j") to(at + 1);
    else if (k === "ArrowUp" || k === "ArrowLeft" || k === "k") to(at - 1);
    else if (k === "Home") to(0);
    else if (k === "End") to(buttons.length - 1);
    else if (k === "Enter" || k === " ") {
      refocus.current = !q.multiSelect;
      onStep({ type: "option", label: options[at].label });
    } else if (k === "Escape") (e.target as HTMLElement).blur();
    else return;
    e.preventDefault();
  };
  const multi = Boolean(q.multiSelect);
  return (
    <div className="jc-inbox__question" data-testid="inbox-question">
      {qs.map((x, i) =>
        i < qi ? (
          <div key={i} className="jc-inbox__q">
            {x.header ? <div className="jc-meta">{x.header}</div> : null}
            <p>{x.question}</p>
            <p className="jc-meta">Answer: {draft.done[i].join(", ")}</p>
          </div>
        ) : null,
      )}
      <fieldset className="jc-question is-current" disabled={busy}>
        <legend>
          {q.header ? <span className="jc-chip">{q.header}</span> : null} {q.question}
          {multi ? <span className="jc-meta"> (pick any, then Ctrl+Enter)</span> : null}
          {qs.length > 1 ? <span className="jc-meta"> · {qi + 1} of {qs.length}</span> : null}
        </legend>
        {options.length > 0 ? (
          <div className="jc-question__options jc-inbox__options" role="group" aria-label="Options" ref={listRef} onKeyDown={onListKey}>
            {options.map((o, n) => (
              <button
                key={`${qi}:${n}`}
                type="button"
                data-option
                className={cx("jc-option", o.on && "is-on")}
                aria-pressed={multi ? Boolean(o.on) : undefined}
                onClick={() => onStep({ type: "option", label: o.label })}
              >
                {n < 9 ? <kbd>{n + 1}</kbd> : <kbd className="is-blank" aria-hidden="true" />}
                <span className="jc-option__label">{o.label}</span>
                {o.description ? <span className="jc-option__desc">{o.description}</span> : null}
              </button>
            ))}
          </div>
        ) : null}
        <input
          className="jc-question__free"
          data-free
          value={draft.text}
          placeholder={options.length ? "Other: type your own answer (t)" : "Your answer (t)"}
          aria-label={`Answer to: ${q.question}`}
          onChange={(e) => onText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              onStep({ type: "confirm" });
            } else if (e.key === "Escape") {
              e.preventDefault();
              e.currentTarget.blur();
            }
          }}
        />
      </fieldset>
      <div className="jc-inbox__q-keys jc-meta">
        {options.length > 0 ? (
          <span>
            <kbd>o</kbd> {options.length > 9 ? `all ${options.length} options` : "the options"} with <kbd>↑</kbd>/<kbd>↓</kbd> and <kbd>Enter</kbd>
          </span>
        ) : null}
        <span>
          <kbd>t</kbd> type an answer
        </span>
        {multi ? (
          <span>
            <kbd>Ctrl+Enter</kbd> send the picks
          </span>
        ) : null}
      </div>
    </div>
  );
}

/** ConfirmButton sends the current question's toggled options and free text (Ctrl+Enter). */
function ConfirmButton({ item, draft, busy, onConfirm }: { item: InboxItem; draft: QuestionDraft; busy: boolean; onConfirm: () => void }) {
  const last = currentQuestion(item, draft) === questionsOf(item.request).length - 1;
  const can = draft.toggled.length > 0 || draft.text.trim() !== "";
  return (
    <button type="button" className="jc-tv-btn is-primary" disabled={busy || !can} onClick={onConfirm}>
      {last ? "Send answer" : "Next question"} <kbd>Ctrl+↵</kbd>
    </button>
  );
}

function DetailBody({ item }: { item: InboxItem }) {
  switch (item.kind) {
    case "plan":
      return (
        <div className="jc-inbox__plan" data-testid="inbox-plan">
          <Markdown text={item.plan ?? ""} />
        </div>
      );
    case "permission": {
      const req = item.request;
      const inp = asObject(req?.input);
      const line = str(inp, "command", "cmd", "file_path", "filePath", "path", "url", "pattern", "query");
      const input = pretty(req?.input);
      return (
        <div className="jc-inbox__perm">
          <p>
            Allow <strong>{req?.toolName || "this tool"}</strong>?
          </p>
          {req?.description ? <p className="jc-meta">{req.description}</p> : null}
          {line ? <pre className="jc-card__line">{line}</pre> : null}
          {input && input !== "{}" && input !== line ? (
            <details className="jc-card__input">
              <summary>Input</summary>
              <pre>{input}</pre>
            </details>
          ) : null}
        </div>
      );
    }
    case "question":
      return <p>The agent asks a question: open the task to answer it.</p>;
    case "result":
    case "error":
      return <p className={cx("jc-inbox__result", item.kind === "error" && "is-error")}>{item.summary}</p>;
  }
}

// InboxView: everything waiting on the user across projects, oldest first,
// each answered in place. Keys (focus not in a text field): j/k or ↓/↑
// move, 1–9 choose the selected item's option, Enter opens its task.

import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { useApp } from "../../state/context";
import { Markdown } from "../../parts/Markdown";
import { asObject, pretty, str } from "../../parts/util";
import { isTyping } from "../task-view/keys";
import { errorMessage } from "../../lib/errors";
import { cx } from "../../lib/cx";
import type { InboxApi } from "./api";
import {
  age,
  answersAfterPick,
  emptyInbox,
  keyCommand,
  optionsOf,
  questionsOf,
  reduceInbox,
  selectedItem,
  type InboxItem,
  type InboxOption,
  type InboxState,
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

/** answerItem sends one option's answer through the api. */
export async function answerItem(api: InboxApi, item: InboxItem, opt: InboxOption, picked: string[]): Promise<"sent" | "picked"> {
  const a = opt.answer;
  const rid = item.requestId ?? "";
  switch (a.type) {
    case "permission":
      await api.respondToPermission(item.taskId, rid, { behavior: a.behavior, scope: a.scope });
      return "sent";
    case "plan":
      await api.answerPlan(item.taskId, rid, a.choice, "");
      return "sent";
    case "pick": {
      const answers = answersAfterPick(item, picked, a.label);
      if (!answers) return "picked";
      await api.respondToQuestion(item.taskId, rid, answers);
      return "sent";
    }
    case "dismiss":
      await api.dismiss(item.taskId);
      return "sent";
    case "retry":
      if (!api.retry) throw new Error("retry is not available");
      await api.retry(item.taskId);
      await api.dismiss(item.taskId);
      return "sent";
  }
}

export function InboxView() {
  const items = useApp((s) => s.inbox);
  const screen = useApp((s) => s.screen);
  const api = useApp((s) => s.api.inbox);
  const openScreen = useApp((s) => s.openScreen);
  const [state, dispatch] = useReducer(reduceInbox, emptyInbox);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<{ key: string; text: string } | null>(null);
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

  const choose = useCallback(
    async (item: InboxItem, opt: InboxOption) => {
      if (!api || busy === item.key) return;
      const picked = state.picked[item.key] ?? [];
      setError(null);
      setBusy(item.key);
      try {
        const r = await answerItem(api, item, opt, picked);
        if (r === "picked" && opt.answer.type === "pick") dispatch({ type: "pick", key: item.key, label: opt.answer.label });
      } catch (e) {
        setError({ key: item.key, text: errorMessage(e) });
      } finally {
        setBusy(null);
      }
    },
    [api, busy, state.picked],
  );

  const sel = selectedItem(state);
  const canRetry = Boolean(api?.retry);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || isTyping(e)) return;
      const cmd = keyCommand(e);
      if (!cmd) return;
      if (cmd.type === "move") dispatch({ type: "move", delta: cmd.delta });
      else if (!sel) return;
      else if (cmd.type === "open") openScreen({ kind: "task", taskId: sel.taskId });
      else {
        const opt = optionsOf(sel, state.picked[sel.key], canRetry)[cmd.index];
        if (!opt) return;
        void choose(sel, opt);
      }
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [sel, state.picked, canRetry, choose, openScreen]);

  return (
    <section className="jc-inbox" aria-label="Inbox" data-testid="inbox">
      <header className="jc-inbox__head">
        <h2>Inbox</h2>
        <span className="jc-meta" data-testid="inbox-count">
          {items.length === 0 ? "nothing waiting" : `${items.length} waiting`}
        </span>
        <span className="jc-inbox__keys jc-meta">
          <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>1</kbd>–<kbd>4</kbd> answer · <kbd>Enter</kbd> open the task
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
              item={sel}
              options={optionsOf(sel, state.picked[sel.key], canRetry)}
              picked={state.picked[sel.key] ?? []}
              busy={busy === sel.key}
              error={error?.key === sel.key ? error.text : ""}
              onChoose={(o) => void choose(sel, o)}
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
  item: InboxItem;
  options: InboxOption[];
  picked: string[];
  busy: boolean;
  error: string;
  onChoose: (o: InboxOption) => void;
  onOpen: () => void;
}

function InboxDetail({ item, options, picked, busy, error, onChoose, onOpen }: DetailProps) {
  return (
    <article className={`jc-inbox__detail jc-inbox__detail--${item.kind}`} data-testid="inbox-detail" data-kind={item.kind}>
      <div className="jc-inbox__detail-head">
        <span className={`jc-inbox__kind jc-inbox__kind--${item.kind}`}>{KIND_LABEL[item.kind]}</span>
        <strong>{item.taskName}</strong>
        <span className="jc-meta">
          {item.projectName} · {item.agentBackend}
        </span>
      </div>
      <DetailBody item={item} picked={picked} />
      {error ? (
        <div className="jc-card__error" role="alert">
          {error}
        </div>
      ) : null}
      <div className="jc-inbox__actions">
        {options.map((o, i) => (
          <button
            key={o.label + i}
            type="button"
            className={cx("jc-tv-btn", o.tone === "primary" && "is-primary", o.tone === "danger" && "is-danger")}
            disabled={busy}
            onClick={() => onChoose(o)}
          >
            {o.label} <kbd>{i + 1}</kbd>
          </button>
        ))}
        <span className="jc-inbox__spacer" />
        <button type="button" className="jc-tv-btn" onClick={onOpen}>
          Open task <kbd>Enter</kbd>
        </button>
      </div>
    </article>
  );
}

function DetailBody({ item, picked }: { item: InboxItem; picked: string[] }) {
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
    case "question": {
      const qs = questionsOf(item.request);
      const current = Math.min(picked.length, qs.length - 1);
      return (
        <div className="jc-inbox__question">
          {qs.map((q, i) => (
            <div key={i} className={cx("jc-inbox__q", i === current && "is-current")}>
              {q.header ? <div className="jc-meta">{q.header}</div> : null}
              <p>{q.question}</p>
              {i < picked.length ? <p className="jc-meta">Answer: {picked[i]}</p> : null}
              {i === current && q.options?.some((o) => o.description) ? (
                <ul className="jc-inbox__q-options">
                  {q.options.map((o, n) => (
                    <li key={o.label}>
                      <kbd>{n + 1}</kbd> <strong>{o.label}</strong> {o.description ? <span className="jc-meta">— {o.description}</span> : null}
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          ))}
          {qs.length === 0 ? <p>The agent asks a question: open the task to answer it.</p> : null}
        </div>
      );
    }
    case "result":
    case "error":
      return <p className={cx("jc-inbox__result", item.kind === "error" && "is-error")}>{item.summary}</p>;
  }
}

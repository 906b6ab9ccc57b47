// QuestionCard shows the agent's questions with their options and a free
// text answer. It stays until answered. Shortcuts (active card, focus not in
// a text field): 1–9 pick an option of the current question, Enter sends
// once every question has an answer.

import { Linked } from "../../lib/Linked";
import { useEffect, useState } from "react";
import type { Question, Request } from "../../timeline/types";
import { isTyping } from "./keys";

export interface QuestionCardProps {
  request: Request;
  active: boolean;
  onAnswer: (answers: string[][]) => Promise<void>;
}

/** questionsOf returns every question of a request (the single-question form included). */
export function questionsOf(req: Request): Question[] {
  if (req.questions && req.questions.length > 0) return req.questions;
  if (req.question || (req.options && req.options.length > 0)) return [{ question: req.question ?? "", options: req.options }];
  return [];
}

export function QuestionCard({ request, active, onAnswer }: QuestionCardProps) {
  const qs = questionsOf(request);
  const [picked, setPicked] = useState<string[][]>(() => qs.map(() => []));
  const [free, setFree] = useState<string[]>(() => qs.map(() => ""));
  const [current, setCurrent] = useState(0);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);

  const answers = qs.map((_, i) => (free[i].trim() ? [...picked[i], free[i].trim()] : picked[i]));
  const complete = qs.length > 0 && answers.every((a) => a.length > 0);

  const toggle = (qi: number, label: string) => {
    setCurrent(qi);
    setPicked((prev) =>
      prev.map((sel, i) => {
        if (i !== qi) return sel;
        if (qs[qi].multiSelect) return sel.includes(label) ? sel.filter((l) => l !== label) : [...sel, label];
        return sel[0] === label ? [] : [label];
      }),
    );
  };

  const submit = async () => {
    if (!complete || busy) return;
    setBusy(true);
    setErr(null);
    try {
      await onAnswer(answers);
    } catch (e) {
      setErr(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };

  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey || isTyping(e)) return;
      if (e.key === "Enter") {
        e.preventDefault();
        submit();
        return;
      }
      const n = Number(e.key);
      const opts = qs[current]?.options ?? [];
      if (Number.isInteger(n) && n >= 1 && n <= opts.length) {
        e.preventDefault();
        toggle(current, opts[n - 1].label);
        if (!qs[current].multiSelect && current < qs.length - 1) setCurrent(current + 1);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  return (
    <div className={`jc-card jc-card--question${active ? " is-active" : ""}`} role="dialog" aria-label="Question" data-testid="question-card">
      {qs.map((q, qi) => (
        <fieldset key={qi} className={`jc-question${qi === current ? " is-current" : ""}`} onFocus={() => setCurrent(qi)}>
          <legend>
            {q.header ? <span className="jc-chip">{q.header}</span> : null} <Linked text={q.question} />
            {q.multiSelect ? <span className="jc-meta"> (pick any)</span> : null}
          </legend>
          <div className="jc-question__options">
            {(q.options ?? []).map((o, oi) => {
              const on = picked[qi].includes(o.label);
              return (
                <button
                  key={o.id || oi}
                  type="button"
                  className={`jc-option${on ? " is-on" : ""}`}
                  aria-pressed={on}
                  onClick={() => toggle(qi, o.label)}
                  disabled={busy}
                >
                  <kbd>{oi + 1}</kbd>
                  <span className="jc-option__label">{o.label}</span>
                  {o.description ? <span className="jc-option__desc">{o.description}</span> : null}
                </button>
              );
            })}
          </div>
          <input
            className="jc-question__free"
            value={free[qi]}
            placeholder={q.options?.find((o) => o.placeholder)?.placeholder ?? (q.options?.length ? "Or type your own answer" : "Your answer")}
            aria-label={`Answer to: ${q.question}`}
            onChange={(e) => {
              const v = e.target.value;
              setFree((prev) => prev.map((f, i) => (i === qi ? v : f)));
            }}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                submit();
              }
            }}
            disabled={busy}
          />
        </fieldset>
      ))}
      {err ? <div className="jc-card__error" role="alert">{err}</div> : null}
      <div className="jc-card__actions">
        <button type="button" className="jc-tv-btn is-primary" onClick={submit} disabled={!complete || busy}>
          Send answer <kbd>↵</kbd>
        </button>
      </div>
    </div>
  );
}

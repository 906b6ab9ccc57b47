// PermissionCard asks the user whether the agent may run a tool. It stays
// until answered. Shortcuts (when it is the active card and focus is not in
// a text field): Enter or 1 allow once, 2 always for this task, 3 always for
// this project, 4 or Esc deny (then type a reason, Enter to send).

import { Linked } from "../../lib/Linked";
import { useEffect, useRef, useState } from "react";
import type { Request } from "../../timeline/types";
import type { PermissionAnswer } from "./api";
import { asObject, pretty, str } from "../../parts/util";
import { isTyping } from "./keys";
import { DiffHunks, hunksFromTexts } from "../../parts/tools/Diff";
import type { PatchHunk } from "../../timeline/types";
import { describeRule, formatRule, parseRule, ruleSyntax, subjectOf, suggestRule, type RuleSpec } from "./ruleScope";

/** proposedDiff previews what an edit or write request would change. */
export function proposedDiff(req: Request): PatchHunk[] {
  const inp = asObject(req.input);
  const edits = inp.edits;
  if (Array.isArray(edits)) {
    return edits.flatMap((e) => {
      const o = asObject(e);
      return hunksFromTexts(str(o, "old_string", "oldString"), str(o, "new_string", "newString"));
    });
  }
  const oldS = str(inp, "old_string", "oldString");
  const newS = str(inp, "new_string", "newString");
  if (oldS || newS) return hunksFromTexts(oldS, newS);
  const content = str(inp, "content");
  if (content && str(inp, "file_path", "filePath", "path")) return hunksFromTexts("", content);
  return [];
}

export interface PermissionCardProps {
  request: Request;
  active: boolean;
  onAnswer: (a: PermissionAnswer) => Promise<void>;
}

function mainLine(req: Request): string {
  const inp = asObject(req.input);
  return str(inp, "command", "cmd", "file_path", "filePath", "path", "url", "pattern", "query");
}

export function PermissionCard({ request, active, onAnswer }: PermissionCardProps) {
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  const reasonRef = useRef<HTMLInputElement>(null);

  const answer = async (a: PermissionAnswer) => {
    if (busy) return;
    setBusy(true);
    setErr(null);
    try {
      await onAnswer(a);
    } catch (e) {
      setErr(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  const subject = subjectOf(request);
  const [ruleText, setRuleText] = useState(() => formatRule(suggestRule(subject)));
  const parsed = parseRule(subject.type, ruleText);
  const rule: RuleSpec | undefined = "error" in parsed ? undefined : parsed;
  const allow = (scope: PermissionAnswer["scope"]) => {
    if (scope === "once") return answer({ behavior: "allow", scope });
    if (!rule) {
      setErr("error" in parsed ? parsed.error : "Check what “always” covers.");
      return;
    }
    return answer({ behavior: "allow", scope, rule });
  };
  const deny = () => answer({ behavior: "deny", scope: "once", message: reason.trim() || undefined });

  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey) return;
      if (isTyping(e)) return;
      const k = e.key;
      if (k === "Enter" || k === "1") allow("once");
      else if (k === "2") allow("task");
      else if (k === "3") allow("project");
      else if (k === "4" || k === "Escape") setDenying(true);
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  useEffect(() => {
    if (denying) reasonRef.current?.focus();
  }, [denying]);

  const line = mainLine(request);
  const input = pretty(request.input);
  const diff = proposedDiff(request);
  return (
    <div className={`jc-card jc-card--permission${active ? " is-active" : ""}`} role="dialog" aria-label={`Permission: ${request.toolName ?? "tool"}`} data-testid="permission-card">
      <div className="jc-card__head">
        <span className="jc-card__icon" aria-hidden="true">?</span>
        <span>
          Allow <strong>{request.toolName || "this tool"}</strong>?
        </span>
      </div>
      {request.description ? <div className="jc-card__desc"><Linked text={request.description} /></div> : null}
      {line ? <pre className="jc-card__line">{line}</pre> : null}
      {diff.length > 0 ? (
        <div className="jc-card__diff">
          <DiffHunks hunks={diff} />
        </div>
      ) : null}
      {input && input !== "{}" && input !== line ? (
        <details className="jc-card__input">
          <summary>Input</summary>
          <pre>{input}</pre>
        </details>
      ) : null}
      {subject.value ? (
        <label className="jc-card__rule" data-testid="rule-scope">
          <span className="jc-card__rule-label">“Always” covers</span>
          <input
            value={ruleText}
            onChange={(e) => setRuleText(e.target.value)}
            aria-label="What always covers"
            data-testid="rule-input"
            spellCheck={false}
            title={ruleSyntax(subject.type)}
          />
          <span className={`jc-meta jc-card__rule-desc${rule ? "" : " is-error"}`} data-testid="rule-desc">
            {rule ? describeRule(request.toolName ?? "", rule) : "error" in parsed ? parsed.error : ""}
          </span>
        </label>
      ) : null}
      {err ? <div className="jc-card__error" role="alert">{err}</div> : null}
      {denying ? (
        <form
          className="jc-card__deny"
          onSubmit={(e) => {
            e.preventDefault();
            deny();
          }}
        >
          <input
            ref={reasonRef}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder="Tell the agent why, or what to do instead (optional)"
            aria-label="Reason"
            onKeyDown={(e) => {
              if (e.key === "Escape") setDenying(false);
            }}
          />
          <button type="submit" className="jc-tv-btn is-danger" disabled={busy}>
            Deny
          </button>
          <button type="button" className="jc-tv-btn" onClick={() => setDenying(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <div className="jc-card__actions">
          <button type="button" className="jc-tv-btn is-primary" onClick={() => allow("once")} disabled={busy}>
            Allow once <kbd>1</kbd>
          </button>
          <button type="button" className="jc-tv-btn" onClick={() => allow("task")} disabled={busy}>
            Always for this task <kbd>2</kbd>
          </button>
          <button type="button" className="jc-tv-btn" onClick={() => allow("project")} disabled={busy}>
            Always for this project <kbd>3</kbd>
          </button>
          <button type="button" className="jc-tv-btn is-danger" onClick={() => setDenying(true)} disabled={busy}>
            Deny… <kbd>4</kbd>
          </button>
        </div>
      )}
    </div>
  );
}

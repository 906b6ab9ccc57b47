// PermissionRules lists a project's "always allow" rules (its own and its
// tasks') with what each covers, and edits and revokes them.

import { useCallback, useEffect, useState } from "react";
import * as SessionService from "../../bridge/wailsjs/go/services/SessionService";
import { call } from "../../bridge/bound";
import { errorMessage } from "../../lib/errors";
import { localTime } from "../../lib/time";
import { Button } from "../../lib/ui";
import { describeRule, formatRule, parseRule, ruleSyntax, type MatchKind, type SubjectType } from "../task-view/ruleScope";

/** Rule is services.PermissionRule (checked by timeline/models.test.ts). */
export interface Rule {
  id: string;
  scope: string;
  projectId?: string;
  taskId?: string;
  toolName: string;
  matchKind: string;
  pattern: string;
  subjectType?: string;
  createdAt: number;
}

/** RulesApi: the Go calls this screen makes (SessionService). */
export interface RulesApi {
  list(projectId: string): Promise<Rule[]>;
  edit(id: string, matchKind: string, pattern: string): Promise<Rule>;
  remove(id: string): Promise<void>;
}

export const wailsRulesApi: RulesApi = {
  list: (projectId) => call<Rule[]>(SessionService.PermissionRules, "SessionService.PermissionRules", projectId),
  edit: (id, kind, pattern) => call<Rule>(SessionService.EditPermissionRule, "SessionService.EditPermissionRule", id, kind, pattern),
  remove: (id) => call<void>(SessionService.DeletePermissionRule, "SessionService.DeletePermissionRule", id),
};

const subjectTypeOf = (r: Rule): SubjectType =>
  r.subjectType === "command" || r.subjectType === "path" ? r.subjectType : "other";

export function PermissionRules({ projectId, api = wailsRulesApi }: { projectId: string; api?: RulesApi }) {
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [error, setError] = useState("");
  const load = useCallback(() => {
    api.list(projectId).then(
      (r) => setRules(r ?? []),
      (e: unknown) => setError(errorMessage(e)),
    );
  }, [projectId, api]);
  useEffect(load, [load]);
  const revoke = async (id: string) => {
    setError("");
    try {
      await api.remove(id);
      setRules((rs) => (rs ?? []).filter((r) => r.id !== id));
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  const saved = (r: Rule) => setRules((rs) => (rs ?? []).map((x) => (x.id === r.id ? { ...x, ...r } : x)));
  return (
    <div className="jc-rules" data-testid="permission-rules">
      {rules && rules.length === 0 ? <p className="jc-card__desc">No rules yet. “Always for this task/project” answers add them here.</p> : null}
      {rules && rules.length > 0 ? (
        <ul className="jc-rules__list">
          {rules.map((r) => (
            <RuleRow key={r.id} rule={r} api={api} onSaved={saved} onRevoke={() => void revoke(r.id)} />
          ))}
        </ul>
      ) : null}
      {error ? <div className="jc-field__error" role="alert">{error}</div> : null}
    </div>
  );
}

function RuleRow({ rule: r, api, onSaved, onRevoke }: { rule: Rule; api: RulesApi; onSaved: (r: Rule) => void; onRevoke: () => void }) {
  const spec = { matchKind: r.matchKind as MatchKind, pattern: r.pattern };
  const text = `${r.toolName}(${formatRule(spec)})`;
  const [editing, setEditing] = useState<string | null>(null);
  if (editing !== null) return <RuleEditor rule={r} initial={editing} api={api} onDone={(saved) => { setEditing(null); if (saved) onSaved(saved); }} />;
  return (
    <li className="jc-rules__row" data-testid="rule-row">
      <code className="jc-rules__rule" title={`${describeRule(r.toolName, spec)}\n${text}`}>
        {text}
      </code>
      <span className="jc-rules__scope" title={r.taskId ? `Task ${r.taskId}` : undefined}>
        {r.scope === "task" ? "this task only" : "whole project"}
      </span>
      <span className="jc-rules__time" title={localTime(r.createdAt)}>
        {new Date(r.createdAt).toLocaleDateString()}
      </span>
      <span className="jc-rules__actions">
        <Button variant="ghost" onClick={() => setEditing(formatRule(spec))} aria-label={`Edit ${text}`}>
          Edit
        </Button>
        <Button variant="ghost" onClick={onRevoke} aria-label={`Revoke ${text}`}>
          Revoke
        </Button>
      </span>
    </li>
  );
}

/** RuleEditor edits what a rule covers, with the same preview and checks as the permission card. */
function RuleEditor({ rule: r, initial, api, onDone }: { rule: Rule; initial: string; api: RulesApi; onDone: (saved?: Rule) => void }) {
  const [value, setValue] = useState(initial);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const parsed = parseRule(subjectTypeOf(r), value);
  const save = async () => {
    if ("error" in parsed) return;
    setBusy(true);
    setError("");
    try {
      onDone(await api.edit(r.id, parsed.matchKind, parsed.pattern));
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };
  return (
    <li className="jc-rules__row jc-rules__row--edit" data-testid="rule-edit">
      <div className="jc-rules__editor">
        <input
          className="jc-input jc-rules__input"
          aria-label={`What ${r.toolName} rule covers`}
          value={value}
          autoFocus
          onChange={(e) => setValue(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") void save();
            if (e.key === "Escape") onDone();
          }}
        />
        <span className={"error" in parsed ? "jc-field__error" : "jc-meta"} data-testid="rule-edit-preview">
          {"error" in parsed ? parsed.error : describeRule(r.toolName, parsed)}
        </span>
        <span className="jc-meta jc-rules__syntax">{ruleSyntax(subjectTypeOf(r))}</span>
        {error ? <span className="jc-field__error" role="alert">{error}</span> : null}
      </div>
      <span className="jc-rules__actions">
        <Button variant="primary" size="sm" onClick={() => void save()} disabled={"error" in parsed} busy={busy}>
          Save
        </Button>
        <Button variant="ghost" size="sm" onClick={() => onDone()}>
          Cancel
        </Button>
      </span>
    </li>
  );
}

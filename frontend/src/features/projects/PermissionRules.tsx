// PermissionRules lists a project's "always allow" rules (its own and its
// tasks') with what each covers, and revokes them.

import { useCallback, useEffect, useState } from "react";
import { DeletePermissionRule, PermissionRules as LoadRules } from "../../bridge/wailsjs/go/services/SessionService";
import { errorMessage } from "../../lib/errors";
import { localTime } from "../../lib/time";
import { Button } from "../../lib/ui";
import { describeRule, formatRule, type MatchKind } from "../task-view/ruleScope";

interface Rule {
  id: string;
  scope: string;
  taskId?: string;
  toolName: string;
  matchKind: string;
  pattern: string;
  createdAt: number;
}

export function PermissionRules({ projectId }: { projectId: string }) {
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [error, setError] = useState("");
  const load = useCallback(() => {
    // Deferred: without the Go side (unit tests) the binding throws.
    Promise.resolve()
      .then(() => LoadRules(projectId))
      .then(
      (r) => setRules((r ?? []) as Rule[]),
      (e: unknown) => setError(errorMessage(e)),
    );
  }, [projectId]);
  useEffect(load, [load]);
  const revoke = async (id: string) => {
    setError("");
    try {
      await Promise.resolve().then(() => DeletePermissionRule(id));
      setRules((rs) => (rs ?? []).filter((r) => r.id !== id));
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return (
    <div className="jc-rules" data-testid="permission-rules">
      {rules && rules.length === 0 ? <p className="jc-card__desc">No rules yet. “Always for this task/project” answers add them here.</p> : null}
      {rules && rules.length > 0 ? (
        <ul className="jc-rules__list">
          {rules.map((r) => {
            const spec = { matchKind: r.matchKind as MatchKind, pattern: r.pattern };
            const text = `${r.toolName}(${formatRule(spec)})`;
            return (
              <li key={r.id} className="jc-rules__row" data-testid="rule-row">
                <code className="jc-rules__rule" title={`${describeRule(r.toolName, spec)}\n${text}`}>
                  {text}
                </code>
                <span className="jc-rules__scope" title={r.taskId ? `Task ${r.taskId}` : undefined}>
                  {r.scope === "task" ? "this task only" : "whole project"}
                </span>
                <span className="jc-rules__time" title={localTime(r.createdAt)}>
                  {new Date(r.createdAt).toLocaleDateString()}
                </span>
                <Button variant="ghost" onClick={() => void revoke(r.id)} aria-label={`Revoke ${text}`}>
                  Revoke
                </Button>
              </li>
            );
          })}
        </ul>
      ) : null}
      {error ? <div className="jc-field__error" role="alert">{error}</div> : null}
    </div>
  );
}

// ProblemCard shows why an errored task's agent could not work, once, in
// the user's words, with the action that fixes it right there: "Install
// <agent>" (installs, then sends the same prompt again), "Sign in" (the
// agent's own login in an embedded terminal, then the prompt again) or
// "Agent settings". "Retry" sends the prompt again as it is; it is the
// action itself when the agent is not at fault (a failed worktree setup:
// no "Agent settings" then).

import { useState, type ReactElement } from "react";
import type { TaskProblem } from "../../bridge/types";
import { readableAgentText } from "../../lib/agentText";

export interface ProblemActions {
  /** install installs the task's agent; it rejects with npm's error. */
  install?(backend: string): Promise<void>;
  /** signIn resolves once the user signed in (false: cancelled). */
  signIn?(backend: string): Promise<boolean>;
  openSettings?(backend: string): void;
  retry(): Promise<void>;
}

export interface ProblemCardProps {
  problem: TaskProblem;
  backend: string;
  actions: ProblemActions;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function ProblemCard({ problem, backend, actions }: ProblemCardProps) {
  const [busy, setBusy] = useState<string>("");
  const [error, setError] = useState("");

  async function run(what: string, fn: () => Promise<boolean | void>) {
    setBusy(what);
    setError("");
    try {
      const go = await fn();
      if (go !== false) await actions.retry();
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy("");
    }
  }

  let primary: ReactElement | null = null;
  if (problem.action === "install" && actions.install) {
    primary = (
      <button type="button" className="jc-btn jc-btn--primary jc-btn--sm" disabled={!!busy} onClick={() => void run("install", () => actions.install!(backend))}>
        {busy === "install" ? "Installing…" : problem.actionLabel}
      </button>
    );
  } else if (problem.action === "sign-in" && actions.signIn) {
    primary = (
      <button type="button" className="jc-btn jc-btn--primary jc-btn--sm" disabled={!!busy} onClick={() => void run("sign-in", () => actions.signIn!(backend))}>
        {busy === "sign-in" ? "Signing in…" : problem.actionLabel}
      </button>
    );
  }
  const retryFirst = problem.action === "retry";
  return (
    <div className="jc-tv-notice is-error jc-task-view__banner jc-problem" role="alert" data-problem={problem.kind}>
      <span className="jc-problem__message">{readableAgentText(problem.message)}</span>
      <span className="jc-problem__actions">
        {primary}
        {actions.openSettings && !retryFirst ? (
          <button type="button" className="jc-btn jc-btn--ghost jc-btn--sm" disabled={!!busy} onClick={() => actions.openSettings!(backend)}>
            Agent settings
          </button>
        ) : null}
        <button
          type="button"
          className={`jc-btn ${retryFirst ? "jc-btn--primary" : "jc-btn--secondary"} jc-btn--sm`}
          disabled={!!busy}
          onClick={() => void run("retry", async () => true)}
        >
          {busy === "retry" ? "Retrying…" : "Retry"}
        </button>
      </span>
      {error ? <span className="jc-problem__error">{error}</span> : null}
    </div>
  );
}

// CompareScreen: one prompt run on several agents, side by side — status,
// duration, cost, tokens, files changed (+/−), the project's check command
// result (with its output) and each diff; "Keep this one" merges the chosen
// worktree and, after a confirmation, removes the others from disk.
// Lazy-loaded (screens.ts).

import { useCallback, useEffect, useMemo, useState } from "react";
import { useApp } from "../../state/context";
import { cx } from "../../lib/cx";
import { errorMessage } from "../../lib/errors";
import { Button } from "../../lib/ui";
import { StatusBadge } from "../task-view/StatusBadge";
import { wailsCompareApi, type CompareApi, type CompareView, type KeepOutcome } from "./api";
import { keepBlocked, memberRows, type MemberRow } from "./reducers";
import "./compare.css";

export function CompareScreen({ groupId, api: apiProp }: { groupId: string; api?: CompareApi }) {
  const api = useMemo(() => apiProp ?? wailsCompareApi(), [apiProp]);
  const openScreen = useApp((s) => s.openScreen);
  const [view, setView] = useState<CompareView | null>(null);
  const [error, setError] = useState("");
  const [confirm, setConfirm] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<KeepOutcome | null>(null);
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const reload = useCallback(() => {
    api.get(groupId).then(setView, (e) => setError(errorMessage(e)));
  }, [api, groupId]);
  useEffect(() => {
    reload();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = api.onUpdated(() => {
      clearTimeout(timer);
      timer = setTimeout(reload, 150);
    });
    return () => {
      clearTimeout(timer);
      off();
    };
  }, [api, reload]);
  // Running agents' durations tick.
  const running = view?.members.some((m) => m.task.status === "running" || m.task.status === "waiting");
  useEffect(() => {
    if (!running) return;
    const t = setInterval(reload, 2000);
    return () => clearInterval(t);
  }, [running, reload]);

  if (error && !view) return <div className="jc-empty" role="alert">{error}</div>;
  if (!view) return <div className="jc-main__loading" aria-busy="true" />;
  const rows = memberRows(view);

  async function keep(taskId: string) {
    setBusy(true);
    setError("");
    try {
      setOutcome(await api.keep(groupId, taskId));
      setConfirm(null);
      reload();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  const confirmRow = rows.find((r) => r.taskId === confirm);
  return (
    <div className="jc-page jc-page--wide" data-testid="compare-screen">
      <header className="jc-page__header">
        <div className="jc-page__eyebrow">Comparison of {rows.length} agents</div>
        <h1 className="jc-page__title jc-compare__prompt">{view.group.prompt}</h1>
        <div className="jc-page__meta">
          Check command: {view.checkCommand ? <code>{view.checkCommand}</code> : <em>none (project settings)</em>}
        </div>
      </header>
      {outcome ? (
        <div className="jc-notice" role="status" data-testid="keep-outcome">
          Merged into <code>{outcome.into}</code>
          {outcome.merge ? <> ({outcome.merge.slice(0, 8)})</> : null}; removed {outcome.removed?.length ?? 0} other worktree
          {(outcome.removed?.length ?? 0) === 1 ? "" : "s"} and branch{(outcome.removed?.length ?? 0) === 1 ? "" : "es"}.
          {outcome.warning ? <div className="jc-field__error">{outcome.warning}</div> : null}
        </div>
      ) : null}
      {error ? <div className="jc-field__error" role="alert">{error}</div> : null}
      {confirmRow ? (
        <div className="jc-confirm jc-card" role="alertdialog" aria-label="Confirm keeping one" data-testid="keep-confirm">
          <span>
            Merge <strong>{confirmRow.label}</strong>'s work into its source branch and remove the other {rows.length - 1} worktrees and
            branches from disk? Their changes are lost.
          </span>
          <Button variant="ghost" onClick={() => setConfirm(null)}>
            Cancel
          </Button>
          <Button variant="danger" busy={busy} onClick={() => void keep(confirmRow.taskId)}>
            Keep it, remove the others
          </Button>
        </div>
      ) : null}
      <div className="jc-compare__grid" style={{ gridTemplateColumns: `repeat(${rows.length}, minmax(200px, 1fr))` }}>
        {rows.map((r, i) => (
          <MemberColumn
            key={r.taskId}
            row={r}
            view={view}
            index={i}
            open={!!open[r.taskId]}
            toggle={() => setOpen((o) => ({ ...o, [r.taskId]: !o[r.taskId] }))}
            onKeep={() => setConfirm(r.taskId)}
            onOpen={() => openScreen({ kind: "task", taskId: r.taskId })}
            onRunCheck={() => void api.runCheck(r.taskId).then(reload, (e) => setError(errorMessage(e)))}
          />
        ))}
      </div>
    </div>
  );
}

interface ColumnProps {
  row: MemberRow;
  view: CompareView;
  index: number;
  open: boolean;
  toggle(): void;
  onKeep(): void;
  onOpen(): void;
  onRunCheck(): void;
}

function MemberColumn({ row, view, index, open, toggle, onKeep, onOpen, onRunCheck }: ColumnProps) {
  const m = view.members[index];
  const blocked = keepBlocked(view, row);
  return (
    <section className={cx("jc-card jc-compare__col", row.kept && "jc-compare__col--kept", row.removedFromDisk && "jc-compare__col--gone")} data-testid="compare-member" data-backend={m.task.backend}>
      <header className="jc-compare__head">
        <button type="button" className="jc-compare__name" onClick={onOpen} title="Open the task">
          {row.label}
        </button>
        <StatusBadge status={row.status} showLabel />
      </header>
      {row.best.length > 0 ? (
        <div className="jc-compare__best">
          {row.best.map((b) => (
            <span key={b} className="jc-chip">
              {b}
            </span>
          ))}
        </div>
      ) : null}
      <dl className="jc-compare__facts">
        <dt>Duration</dt>
        <dd data-testid="duration">{row.duration}</dd>
        <dt>Cost</dt>
        <dd data-testid="cost">{row.cost}</dd>
        <dt>Tokens</dt>
        <dd data-testid="tokens">{row.tokens}</dd>
        <dt>Files</dt>
        <dd data-testid="files">
          {row.files} <span className="jc-compare__add">+{row.added}</span> <span className="jc-compare__del">−{row.removed}</span>
        </dd>
        <dt>Check</dt>
        <dd data-testid="check" data-check={row.check} className={cx("jc-compare__check", `jc-compare__check--${row.check}`)}>
          {row.checkLabel}
        </dd>
      </dl>
      {m.check?.output ? (
        <details className="jc-compare__output">
          <summary>Check output</summary>
          <pre>{m.check.output}</pre>
        </details>
      ) : null}
      <div className="jc-compare__actions">
        {row.kept ? <span className="jc-chip" data-testid="kept">Kept · merged</span> : null}
        {row.removedFromDisk ? <span className="jc-chip jc-chip--muted">Removed</span> : null}
        {!view.group.keptTaskId ? (
          <>
            <Button size="sm" variant="primary" disabled={!!blocked} title={blocked || undefined} onClick={onKeep}>
              Keep this one
            </Button>
            {view.checkCommand && row.finished ? (
              <Button size="sm" variant="ghost" onClick={onRunCheck}>
                Run check
              </Button>
            ) : null}
          </>
        ) : null}
      </div>
      {(m.diff?.files?.length ?? 0) > 0 ? (
        <div className="jc-compare__diff">
          <button type="button" className="jc-compare__difftoggle" onClick={toggle} aria-expanded={open}>
            {open ? "Hide diff" : "Show diff"}
          </button>
          {open
            ? m.diff.files!.map((f) => (
                <div key={f.path} className="jc-compare__file">
                  <div className="jc-compare__path">
                    {f.path} <span className="jc-compare__add">+{f.added}</span> <span className="jc-compare__del">−{f.removed}</span>
                  </div>
                  <pre className="jc-compare__patch">
                    {(f.patch || (f.binary ? "(binary)" : "")).split("\n").map((line, i) => (
                      <span key={i} className={line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : undefined}>
                        {line + "\n"}
                      </span>
                    ))}
                  </pre>
                </div>
              ))
            : null}
        </div>
      ) : m.diff?.reason ? (
        <p className="jc-card__desc">{m.diff.reason}</p>
      ) : null}
    </section>
  );
}

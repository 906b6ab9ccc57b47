// DiffView shows a task's work against its base commit: a file tree with
// +/- counts and change markers, the selected file's diff in unified or
// side-by-side mode, and the finishing actions (commit with an editable
// message, merge into the source branch, discard). It polls the GitService
// every pollMs while the page is visible (and refreshes on "git:updated"),
// skipping re-renders when nothing changed.

import { PathLink } from "../../parts/PathLink";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { Button } from "../../lib/ui";
import { cx } from "../../lib/cx";
import { errorMessage } from "../../lib/errors";
import { wailsGitApi, type GitApi } from "./api";
import { buildTree, diffSignature, fileNotes, flattenFiles, marker, parseHunks, sideBySide, type DiffLine, type SplitRow, type TreeNode } from "./parse";
import type { FileChange, MergeOutcome, TaskDiff, TaskGitStatus } from "./types";
import "./diff.css";

export type DiffMode = "unified" | "split";

export interface DiffViewProps {
  taskId: string;
  /** Defaults to the Wails GitService. */
  api?: GitApi;
  /** Poll interval in ms (default 2000); 0 turns polling off. */
  pollMs?: number;
  /** Prefills the commit message (e.g. the task's name). */
  defaultCommitMessage?: string;
  onMerged?(outcome: MergeOutcome): void;
  onDiscarded?(): void;
}

const MODE_KEY = "jc:diff-mode";
/** Rows rendered before "Show all" for a big file. */
export const ROW_LIMIT = 3000;

function readMode(): DiffMode {
  try {
    return localStorage.getItem(MODE_KEY) === "split" ? "split" : "unified";
  } catch {
    return "unified";
  }
}

export function DiffView({ taskId, api: apiProp, pollMs = 2000, defaultCommitMessage = "", onMerged, onDiscarded }: DiffViewProps) {
  const api = useMemo(() => apiProp ?? wailsGitApi(), [apiProp]);
  const [diff, setDiff] = useState<TaskDiff | null>(null);
  const [status, setStatus] = useState<TaskGitStatus | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [mode, setModeState] = useState<DiffMode>(readMode);
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const [full, setFull] = useState<Record<string, FileChange>>({});
  const [message, setMessage] = useState(defaultCommitMessage);
  const [squash, setSquash] = useState(false);
  const [removeWorktree, setRemoveWorktree] = useState(true);
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const [busy, setBusy] = useState<"commit" | "merge" | "discard" | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const sig = useRef<string>("");
  const inflight = useRef(false);

  const setMode = (m: DiffMode) => {
    setModeState(m);
    try {
      localStorage.setItem(MODE_KEY, m);
    } catch {
      /* preference only */
    }
  };

  const refresh = useCallback(async () => {
    if (inflight.current) return;
    inflight.current = true;
    try {
      const [d, s] = await Promise.all([api.diff(taskId), api.status(taskId)]);
      const files = d.files ?? [];
      const next = `${d.available}:${d.reason ?? ""}:${diffSignature(files, d.head)}`;
      if (next !== sig.current) {
        sig.current = next;
        setDiff({ ...d, files });
        setFull({});
      }
      setStatus((prev) => (prev && JSON.stringify(prev) === JSON.stringify(s) ? prev : s));
      setLoadError(null);
    } catch (err) {
      setLoadError(errorMessage(err));
    } finally {
      inflight.current = false;
    }
  }, [api, taskId]);

  useEffect(() => {
    sig.current = "";
    setDiff(null);
    setStatus(null);
    setSelected(null);
    void refresh();
  }, [refresh]);

  useEffect(() => {
    if (!pollMs) return;
    const id = window.setInterval(() => {
      if (typeof document !== "undefined" && document.hidden) return;
      void refresh();
    }, pollMs);
    return () => window.clearInterval(id);
  }, [pollMs, refresh]);

  useEffect(() => {
    if (!api.onUpdated) return;
    return api.onUpdated((id) => {
      if (id === taskId) void refresh();
    });
  }, [api, taskId, refresh]);

  const files = useMemo(() => diff?.files ?? [], [diff]);
  const tree = useMemo(() => buildTree(files), [files]);
  const ordered = useMemo(() => flattenFiles(tree), [tree]);

  // Keep a valid selection: the first file when none or gone.
  useEffect(() => {
    if (ordered.length === 0) {
      if (selected !== null) setSelected(null);
      return;
    }
    if (!selected || !ordered.some((f) => f.path === selected)) setSelected(ordered[0].path);
  }, [ordered, selected]);

  const current = useMemo(() => {
    if (!selected) return null;
    return full[selected] ?? ordered.find((f) => f.path === selected) ?? null;
  }, [full, ordered, selected]);

  // Load an omitted patch when its file is shown.
  useEffect(() => {
    if (!current || !current.patchOmitted || full[current.path]) return;
    let alive = true;
    api
      .fileDiff(taskId, current.path)
      .then((fc) => {
        if (alive) setFull((m) => ({ ...m, [fc.path]: fc }));
      })
      .catch((err) => {
        if (alive) setActionError(errorMessage(err));
      });
    return () => {
      alive = false;
    };
  }, [api, taskId, current, full]);

  const run = async (what: "commit" | "merge" | "discard", fn: () => Promise<void>) => {
    setBusy(what);
    setActionError(null);
    setNotice(null);
    try {
      await fn();
      await refresh();
    } catch (err) {
      setActionError(errorMessage(err));
    } finally {
      setBusy(null);
    }
  };

  const commit = () =>
    run("commit", async () => {
      const info = await api.commit(taskId, message);
      setNotice(`Committed ${info.headCommit.slice(0, 8)} on ${info.branchName}`);
    });

  const merge = () =>
    run("merge", async () => {
      const out = await api.merge(taskId, { squash, noFastForward: false, message: squash ? message : "", removeWorktree });
      setNotice(
        `Merged into ${out.into}${out.fastForward ? " (fast-forward)" : out.squashed ? " (squashed)" : ""}` +
          (out.worktreeRemoved ? "; worktree removed" : "") +
          (out.warning ? `. ${out.warning}` : ""),
      );
      onMerged?.(out);
    });

  const discard = () =>
    run("discard", async () => {
      await api.discard(taskId);
      setConfirmDiscard(false);
      setNotice("Task work discarded: worktree and branch removed");
      onDiscarded?.();
    });

  const toggle = (path: string) =>
    setCollapsed((s) => {
      const n = new Set(s);
      if (n.has(path)) n.delete(path);
      else n.add(path);
      return n;
    });

  const hasWorktree = status?.hasWorktree ?? false;
  const dirty = status ? !status.clean : false;

  return (
    <div className="jc-diff" data-testid="diff-view">
      <div className="jc-diff-toolbar">
        {status?.branchName ? (
          <span className="jc-diff-branch" title={status.worktreePath}>
            <code>{status.branchName}</code> → <code>{status.sourceBranch || "?"}</code>
          </span>
        ) : null}
        {diff?.available ? (
          <span className="jc-diff-totals" data-testid="diff-totals">
            <span className="jc-diff-add">+{diff.added}</span> <span className="jc-diff-del">−{diff.removed}</span> in {files.length}{" "}
            {files.length === 1 ? "file" : "files"}
          </span>
        ) : null}
        {status && hasWorktree ? (
          <span className="jc-diff-hint" data-testid="diff-status">
            {status.clean
              ? `clean, ${status.commitsAhead} commit${status.commitsAhead === 1 ? "" : "s"}`
              : `${status.status.staged} staged · ${status.status.unstaged} unstaged · ${status.status.untracked} untracked`}
          </span>
        ) : null}
        <span className="jc-diff-spacer" />
        <div className="jc-diff-modes" role="group" aria-label="Diff layout">
          <button type="button" className={cx(mode === "unified" && "is-active")} aria-pressed={mode === "unified"} onClick={() => setMode("unified")}>
            Unified
          </button>
          <button type="button" className={cx(mode === "split" && "is-active")} aria-pressed={mode === "split"} onClick={() => setMode("split")}>
            Side by side
          </button>
        </div>
        <Button size="sm" variant="ghost" onClick={() => void refresh()}>
          Refresh
        </Button>
      </div>

      {loadError ? (
        <div className="jc-diff-error" role="alert">
          {loadError}
        </div>
      ) : null}

      <div className="jc-diff-body">
        <aside className="jc-diff-side">
          <div className="jc-diff-tree" role="tree" aria-label="Changed files">
            {diff && !diff.available ? <div className="jc-diff-empty">{diff.reason || "No diff available"}</div> : null}
            {diff?.available && files.length === 0 ? <div className="jc-diff-empty">No changes yet</div> : null}
            {!diff && !loadError ? <div className="jc-diff-empty">Loading…</div> : null}
            {tree.children.map((n) => (
              <TreeRow key={n.path} node={n} depth={0} selected={selected} collapsed={collapsed} onToggle={toggle} onSelect={setSelected} />
            ))}
          </div>

          {hasWorktree ? (
            <div className="jc-diff-actions">
              <label className="jc-diff-label" htmlFor={`jc-commit-${taskId}`}>
                Commit message
              </label>
              <textarea
                id={`jc-commit-${taskId}`}
                className="jc-diff-message"
                rows={3}
                value={message}
                placeholder="Describe the changes"
                onChange={(e) => setMessage(e.target.value)}
              />
              <Button
                variant="primary"
                size="sm"
                busy={busy === "commit"}
                disabled={!status?.canCommit || message.trim() === "" || busy !== null}
                title={!status?.canCommit ? "No changes to commit" : message.trim() === "" ? "Write a commit message" : undefined}
                onClick={() => void commit()}
              >
                Commit all changes
              </Button>

              <div className="jc-diff-merge">
                <label>
                  <input type="checkbox" checked={squash} onChange={(e) => setSquash(e.target.checked)} /> Squash (uses the message above)
                </label>
                <label>
                  <input type="checkbox" checked={removeWorktree} onChange={(e) => setRemoveWorktree(e.target.checked)} /> Remove worktree and
                  branch after merging
                </label>
                <Button
                  size="sm"
                  busy={busy === "merge"}
                  disabled={!status?.canMerge || busy !== null || (squash && message.trim() === "")}
                  title={status?.mergeBlocked}
                  onClick={() => void merge()}
                >
                  Merge into {status?.sourceBranch || "source"}
                </Button>
                {status && !status.canMerge && status.mergeBlocked ? <div className="jc-diff-hint">{status.mergeBlocked}</div> : null}
              </div>

              {confirmDiscard ? (
                <div className="jc-diff-confirm" role="alertdialog" aria-label="Discard the task's work">
                  <p>
                    Remove the worktree and the branch <code>{status?.branchName}</code>?
                    {dirty ? " Its uncommitted changes will be lost." : ""} This cannot be undone.
                  </p>
                  <Button size="sm" variant="danger" busy={busy === "discard"} onClick={() => void discard()}>
                    Discard
                  </Button>{" "}
                  <Button size="sm" variant="ghost" onClick={() => setConfirmDiscard(false)}>
                    Cancel
                  </Button>
                </div>
              ) : (
                <Button size="sm" variant="ghost" className="jc-diff-discard" disabled={busy !== null} onClick={() => setConfirmDiscard(true)}>
                  Discard…
                </Button>
              )}
            </div>
          ) : null}
          {actionError ? (
            <div className="jc-diff-error" role="alert">
              {actionError}
            </div>
          ) : null}
          {notice ? (
            <div className="jc-diff-notice" role="status">
              {notice}
            </div>
          ) : null}
        </aside>

        <section className="jc-diff-main" aria-label="File diff">
          {current ? <FilePane file={current} mode={mode} /> : <div className="jc-diff-empty">Select a file to view its changes</div>}
        </section>
      </div>
    </div>
  );
}

interface TreeRowProps {
  node: TreeNode;
  depth: number;
  selected: string | null;
  collapsed: Set<string>;
  onToggle(path: string): void;
  onSelect(path: string): void;
}

function Counts({ added, removed }: { added: number; removed: number }) {
  return (
    <span className="jc-diff-counts">
      {added > 0 ? <span className="jc-diff-add">+{added}</span> : null}
      {removed > 0 ? <span className="jc-diff-del">−{removed}</span> : null}
    </span>
  );
}

function TreeRow({ node, depth, selected, collapsed, onToggle, onSelect }: TreeRowProps) {
  const pad = { paddingLeft: 8 + depth * 14 };
  if (node.type === "folder") {
    const open = !collapsed.has(node.path);
    return (
      <>
        <div
          className="jc-diff-node is-folder"
          role="treeitem"
          aria-expanded={open}
          style={pad}
          tabIndex={0}
          onClick={() => onToggle(node.path)}
          onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && onToggle(node.path)}
        >
          <span className={cx("jc-diff-chevron", open && "is-open")} aria-hidden="true">
            ▸
          </span>
          <span className="jc-diff-name">{node.name}/</span>
          <Counts added={node.added} removed={node.removed} />
        </div>
        {open
          ? node.children.map((c) => (
              <TreeRow key={c.path} node={c} depth={depth + 1} selected={selected} collapsed={collapsed} onToggle={onToggle} onSelect={onSelect} />
            ))
          : null}
      </>
    );
  }
  const f = node.file!;
  const m = marker(f);
  return (
    <div
      className={cx("jc-diff-node is-file", selected === f.path && "is-selected", f.status === "deleted" && "is-deleted")}
      role="treeitem"
      aria-selected={selected === f.path}
      style={pad}
      tabIndex={0}
      title={`${f.path} — ${m.label}`}
      data-path={f.path}
      onClick={() => onSelect(f.path)}
      onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && onSelect(f.path)}
    >
      <span className={cx("jc-diff-marker", `is-${m.tone}`)} aria-label={m.label}>
        {m.letter}
      </span>
      <span className="jc-diff-name">{node.name}</span>
      {f.binary ? <span className="jc-diff-tag">bin</span> : null}
      <Counts added={f.added} removed={f.removed} />
    </div>
  );
}

function FilePane({ file, mode }: { file: FileChange; mode: DiffMode }) {
  const [all, setAll] = useState(false);
  const hunks = useMemo(() => parseHunks(file.patch), [file.patch]);
  const notes = fileNotes(file);
  useEffect(() => setAll(false), [file.path]);

  let body: ReactNode;
  if (file.binary) {
    body = <div className="jc-diff-empty">Binary file changed</div>;
  } else if (file.patchOmitted && !file.patch) {
    body = <div className="jc-diff-empty">Loading the full diff…</div>;
  } else if (hunks.length === 0) {
    body = <div className="jc-diff-empty">No content changes</div>;
  } else if (mode === "split") {
    const rows = sideBySide(hunks);
    body = <SplitTable rows={all ? rows : rows.slice(0, ROW_LIMIT)} />;
    if (!all && rows.length > ROW_LIMIT) body = <>{body}<ShowAll n={rows.length} onClick={() => setAll(true)} /></>;
  } else {
    const rows: (DiffLine | { header: string })[] = hunks.flatMap((h) => [{ header: h.header }, ...h.lines]);
    body = <UnifiedTable rows={all ? rows : rows.slice(0, ROW_LIMIT)} />;
    if (!all && rows.length > ROW_LIMIT) body = <>{body}<ShowAll n={rows.length} onClick={() => setAll(true)} /></>;
  }

  return (
    <div className="jc-diff-file" data-testid="diff-file">
      <div className="jc-diff-file-head">
        <span className="jc-diff-path">
          <PathLink path={file.path} line={hunks[0]?.newStart ?? 0} />
        </span>
        <Counts added={file.added} removed={file.removed} />
        {notes.map((n) => (
          <span key={n} className="jc-diff-tag">
            {n}
          </span>
        ))}
      </div>
      <div className="jc-diff-scroll">{body}</div>
    </div>
  );
}

function ShowAll({ n, onClick }: { n: number; onClick(): void }) {
  return (
    <div className="jc-diff-more">
      Showing the first {ROW_LIMIT} of {n} lines.{" "}
      <Button size="sm" variant="ghost" onClick={onClick}>
        Show all
      </Button>
    </div>
  );
}

function UnifiedTable({ rows }: { rows: (DiffLine | { header: string })[] }) {
  return (
    <table className="jc-diff-table is-unified" data-testid="diff-unified">
      <colgroup>
        <col className="jc-diff-col-no" />
        <col className="jc-diff-col-no" />
        <col />
      </colgroup>
      <tbody>
        {rows.map((r, i) =>
          "header" in r ? (
            <tr key={i} className="jc-diff-hunk">
              <td colSpan={3}>{r.header}</td>
            </tr>
          ) : (
            <tr key={i} className={`is-${r.kind}`}>
              <td className="jc-diff-no">{r.oldNo ?? ""}</td>
              <td className="jc-diff-no">{r.newNo ?? ""}</td>
              <td className="jc-diff-code">
                <span className="jc-diff-sign" aria-hidden="true">
                  {r.kind === "add" ? "+" : r.kind === "del" ? "-" : r.kind === "note" ? "\\" : " "}
                </span>
                {r.text}
              </td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function SplitTable({ rows }: { rows: SplitRow[] }) {
  return (
    <table className="jc-diff-table is-split" data-testid="diff-split">
      <colgroup>
        <col className="jc-diff-col-no" />
        <col />
        <col className="jc-diff-col-no" />
        <col />
      </colgroup>
      <tbody>
        {rows.map((r, i) =>
          r.type === "hunk" ? (
            <tr key={i} className="jc-diff-hunk">
              <td colSpan={4}>{r.header}</td>
            </tr>
          ) : (
            <tr key={i}>
              <td className="jc-diff-no">{r.left?.no ?? ""}</td>
              <td className={cx("jc-diff-code", r.left ? `is-${r.left.kind}` : "is-empty")}>{r.left?.text ?? ""}</td>
              <td className="jc-diff-no">{r.right?.no ?? ""}</td>
              <td className={cx("jc-diff-code", r.right ? `is-${r.right.kind}` : "is-empty")}>{r.right?.text ?? ""}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

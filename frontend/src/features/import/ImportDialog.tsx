// ImportDialog: the sessions the agent CLIs saved on disk for a folder (the
// selected project's, or one the user picks), with date, first prompt and
// size; each imports as a completed task that resumes the CLI's session.
// Opened from the search dialog ("Import sessions…") or Ctrl/Cmd+Shift+I.

import { useCallback, useEffect, useMemo, useState } from "react";
import * as HistoryService from "../../bridge/wailsjs/go/services/HistoryService";
import type { importer } from "../../bridge/wailsjs/go/models";
import { toTask } from "../../bridge/api";
import type { Task } from "../../bridge/types";
import { useApp, useAppStore } from "../../state/context";
import { errorMessage } from "../../lib/errors";
import "../search/search.css";

export type Session = importer.Session;

export interface ImportApi {
  list(folder: string): Promise<Session[]>;
  importSession(s: Session, projectId: string): Promise<Task>;
}

export function wailsImportApi(): ImportApi {
  return {
    list: async (folder) => (await HistoryService.ImportableSessions(folder)) ?? [],
    importSession: async (s, projectId) => toTask(await HistoryService.ImportSession(s, projectId)),
  };
}

export const OPEN_IMPORT = "jc:open-import";

export function formatSize(n: number): string {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KB`;
  return `${n} B`;
}

/** ImportLauncher mounts the dialog when asked (event or Ctrl/Cmd+Shift+I). */
export function ImportLauncher({ api }: { api?: ImportApi }) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const show = () => setOpen(true);
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.shiftKey && !e.altKey && e.key.toLowerCase() === "i") {
        e.preventDefault();
        show();
      }
    };
    window.addEventListener(OPEN_IMPORT, show);
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener(OPEN_IMPORT, show);
      window.removeEventListener("keydown", onKey);
    };
  }, []);
  return open ? <ImportDialog api={api} onClose={() => setOpen(false)} /> : null;
}

function ImportDialog({ api: given, onClose }: { api?: ImportApi; onClose: () => void }) {
  const api = useMemo(() => given ?? wailsImportApi(), [given]);
  const store = useAppStore();
  const project = useApp((s) => s.projects.find((p) => p.id === s.selectedProjectId) ?? null);
  const [folder, setFolder] = useState(project?.path ?? "");
  const [sessions, setSessions] = useState<Session[] | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState("");
  const load = useCallback(() => {
    setError("");
    api.list(folder).then(setSessions, (e) => setError(errorMessage(e)));
  }, [api, folder]);
  useEffect(load, [load]);

  const pick = async () => {
    const p = await store.getState().pickDirectory().catch(() => "");
    if (p) setFolder(p);
  };
  const open = (taskId: string) => {
    store.getState().openScreen({ kind: "task", taskId });
    onClose();
  };
  const doImport = async (s: Session) => {
    setBusy(s.id);
    try {
      const samePath = project && project.path === s.cwd ? project.id : "";
      const t = await api.importSession(s, samePath);
      const st = store.getState();
      if (!st.projects.some((p) => p.id === t.projectId)) await st.init();
      st.applyTaskUpdate(t);
      load();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy("");
    }
  };

  return (
    <div className="jc-modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="jc-modal jc-search" role="dialog" aria-modal="true" aria-label="Import sessions" onKeyDown={(e) => e.key === "Escape" && onClose()}>
        <div className="jc-search__filters jc-import__folder">
          <input aria-label="Folder" className="jc-search__input" value={folder} placeholder="Every folder" onChange={(e) => setFolder(e.target.value)} />
          <button type="button" className="jc-btn jc-btn--secondary jc-btn--md" onClick={() => void pick()}>Choose…</button>
        </div>
        {error ? <div className="jc-banner jc-banner--error" role="alert">{error}</div> : null}
        <ul className="jc-search__results" aria-label="Sessions">
          {(sessions ?? []).map((s) => (
            <li key={`${s.format}:${s.id}`} className="jc-search__hit" data-session-id={s.id}>
              <div className="jc-search__meta">
                <span className="jc-search__task">{s.firstPrompt || "(no prompt)"}</span>
                <span>{s.format} · {new Date(s.startedAt).toLocaleString()} · {formatSize(s.size)}</span>
              </div>
              <div className="jc-search__snippet">
                {s.cwd}{" "}
                {s.taskId ? (
                  <button type="button" className="jc-btn jc-btn--secondary jc-btn--sm" onClick={() => open(s.taskId!)}>Imported — open</button>
                ) : (
                  <button type="button" className="jc-btn jc-btn--primary jc-btn--sm" disabled={busy !== ""} onClick={() => void doImport(s)}>
                    {busy === s.id ? "Importing…" : "Import"}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
        {sessions && sessions.length === 0 ? <p className="jc-search__empty">No session saved by Claude Code or OpenCode found{folder ? " for this folder" : ""}.</p> : null}
      </div>
    </div>
  );
}

// TaskTerminals: the task view's Terminal pane — tabs of shells running in
// the task's worktree (Go: TerminalService, one PTY each). A shell lives
// until its tab is closed, the task is deleted or the app quits; leaving
// the pane (or the task) keeps it, and coming back replays its scrollback.

import { useCallback, useEffect, useRef, useState } from "react";
import { Terminal, type Attached } from "./Terminal";
import { wailsTerminalApi, type TerminalApi } from "./api";
import { wailsTaskTerminalApi, type TaskTerminalApi } from "./taskApi";
import "./terminal.css";

interface Tab {
  /** key is stable for the tab's life (the React key). */
  key: string;
  /** id is the Go terminal's id, once started. */
  id?: string;
  title: string;
  exited?: number;
}

let seq = 0;

export function TaskTerminals({
  taskId,
  api = wailsTerminalApi,
  taskApi = wailsTaskTerminalApi,
}: {
  taskId: string;
  api?: TerminalApi;
  taskApi?: TaskTerminalApi;
}) {
  const [tabs, setTabs] = useState<Tab[] | null>(null);
  const [active, setActive] = useState<string>("");
  const [error, setError] = useState("");
  const opened = useRef(false);

  const add = useCallback(() => {
    const key = `new-${++seq}`;
    setTabs((ts) => [...(ts ?? []), { key, title: "…" }]);
    setActive(key);
  }, []);

  useEffect(() => {
    let alive = true;
    taskApi
      .list(taskId)
      .then((list) => {
        if (!alive) return;
        const ts = list.map((t) => ({ key: t.id, id: t.id, title: t.title }));
        setTabs(ts);
        if (ts.length > 0) setActive(ts[ts.length - 1].key);
        else if (!opened.current) {
          opened.current = true;
          add(); // the first visit opens a shell
        }
      })
      .catch((e: unknown) => alive && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      alive = false;
    };
  }, [taskId, taskApi, add]);

  // One open per tab, even when its Terminal mounts twice (StrictMode).
  const opening = useRef(new Map<string, Promise<string>>());
  const startFor = (tab: Tab) => async (cols: number, rows: number): Promise<Attached> => {
    if (tab.id) {
      const snap = await taskApi.snapshot(tab.id);
      return { id: tab.id, replay: { data: snap.data ?? "", end: snap.end } };
    }
    let p = opening.current.get(tab.key);
    if (!p) {
      p = taskApi.open(taskId, cols, rows).then((info) => {
        setTabs((ts) => (ts ?? []).map((t) => (t.key === tab.key ? { ...t, id: info.id, title: info.title } : t)));
        return info.id;
      });
      opening.current.set(tab.key, p);
    }
    return { id: await p };
  };

  const close = (tab: Tab) => {
    const id = tab.id;
    if (id && tab.exited === undefined) void api.close(id).catch(() => {});
    else if (!id) void opening.current.get(tab.key)?.then((got) => api.close(got)).catch(() => {});
    const rest = (tabs ?? []).filter((t) => t.key !== tab.key);
    setTabs(rest);
    if (active === tab.key) setActive(rest.length > 0 ? rest[rest.length - 1].key : "");
  };

  if (error) return <div className="jc-tv-notice is-error" role="alert">Terminal: {error}</div>;
  if (tabs === null) return <div className="jc-task-view__loading">Loading…</div>;
  return (
    <div className="jc-task-terms" data-testid="task-terminals">
      <div className="jc-task-terms__tabs" role="tablist" aria-label="Terminals">
        {tabs.map((t) => (
          <div key={t.key} className="jc-task-terms__tab" aria-selected={t.key === active} role="tab">
            <button type="button" className="jc-task-terms__name" onClick={() => setActive(t.key)}>
              {t.title}
              {t.exited !== undefined ? <span className="jc-task-terms__exited"> (exited)</span> : null}
            </button>
            <button type="button" className="jc-task-terms__close" aria-label={`Close ${t.title}`} title="Close (ends the shell)" onClick={() => close(t)}>
              ×
            </button>
          </div>
        ))}
        <button type="button" className="jc-task-terms__add" onClick={add} aria-label="New terminal" title="New terminal">
          +
        </button>
      </div>
      {tabs.length === 0 ? (
        <div className="jc-task-view__empty">
          No terminal open. <button type="button" className="jc-link" onClick={add}>Open one</button>
        </div>
      ) : null}
      {tabs
        .filter((t) => t.key === active)
        .map((t) => (
          <div key={t.key} className="jc-task-terms__body">
            <Terminal
              api={api}
              fit
              keepAlive
              start={startFor(t)}
              onExit={(e) => setTabs((ts) => (ts ?? []).map((x) => (x.key === t.key ? { ...x, exited: e.code } : x)))}
            />
          </div>
        ))}
    </div>
  );
}

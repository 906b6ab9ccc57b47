// TaskList: the selected project's header and its tasks, newest first, each
// with its status indicator, backend badge and unread marker. Virtualized:
// a project can hold any number of tasks.

import { useEffect, useMemo, useRef, useState } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useApp } from "../../state/context";
import { backendInfo, selectedProject } from "../../state/store";
import type { Task } from "../../bridge/types";
import { cx } from "../../lib/cx";
import { relativeTime, localTime } from "../../lib/time";
import { statusTooltip, taskStatus } from "../../lib/status";
import { GearIcon, GitIcon, FolderIcon, PlusIcon, TrashIcon } from "../../lib/icons";
import { errorMessage } from "../../lib/errors";
import { Button, IconButton } from "../../lib/ui";
import { StatusBadge, type TaskIndicator } from "../task-view/StatusBadge";
import { BackendBadge } from "../settings/BackendBadge";
import { filterTasks, taskTitle } from "./reducers";

const ROW_HEIGHT = 56;

/** statusTitle is the row's tooltip, in the app's one status vocabulary. */
function statusTitle(t: Task): string {
  return statusTooltip(taskStatus(t.status, t.statusReason));
}

/** useMinuteClock re-renders every 30 s so relative times ("5m") stay right. */
function useMinuteClock(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  return now;
}

function asIndicator(s: string): TaskIndicator | undefined {
  return s === "none" || s === "idle" || s === "busy" || s === "waiting" ? s : undefined;
}
const EMPTY: Task[] = [];

export function TaskList() {
  const project = useApp(selectedProject);
  const tasks = useApp((s) => (s.selectedProjectId ? s.tasksByProject[s.selectedProjectId] : undefined) ?? EMPTY);
  const screen = useApp((s) => s.screen);
  const openScreen = useApp((s) => s.openScreen);
  const defaultInfo = useApp((s) => (project ? backendInfo(s, project.defaultBackend) : undefined));
  const [query, setQuery] = useState("");
  const shown = useMemo(() => filterTasks(tasks, query), [tasks, query]);

  if (!project) {
    return (
      <section className="jc-tasks jc-tasks--empty" aria-label="Tasks">
        <div className="jc-empty">Add a project to start.</div>
      </section>
    );
  }

  const activeTaskId = screen.kind === "task" ? screen.taskId : null;

  return (
    <section className="jc-tasks" aria-label="Tasks">
      <header className="jc-tasks__header">
        <div className="jc-tasks__title-row">
          <h1 className="jc-tasks__title" title={project.name}>
            {project.name}
          </h1>
          <IconButton
            label="Project settings"
            className={cx(screen.kind === "project-settings" && "jc-icon-btn--active")}
            onClick={() => openScreen({ kind: "project-settings", projectId: project.id })}
          >
            <GearIcon size={14} />
          </IconButton>
        </div>
        <div className="jc-tasks__path" title={project.path}>
          {project.isGitRepo ? <GitIcon size={12} /> : <FolderIcon size={12} />}
          {/* rtl keeps the end of a long path visible; the LRM marks keep its slashes in place */}
          <span>{"\u200e" + project.path + "\u200e"}</span>
        </div>
        <div className="jc-tasks__meta">
          <BackendBadge name={project.defaultBackend} displayName={defaultInfo?.displayName} />
          {project.defaultModel ? <span className="jc-chip jc-chip--mono">{project.defaultModel}</span> : null}
        </div>
        <Button
          variant="primary"
          className="jc-btn--block"
          title="New task (Ctrl+N)"
          onClick={() => openScreen({ kind: "new-task", projectId: project.id })}
        >
          <PlusIcon size={14} />
          New task
        </Button>
      </header>
      {tasks.length > 0 ? (
        <div className="jc-tasks__search">
          <input
            className="jc-input jc-input--search"
            type="search"
            placeholder={`Filter ${tasks.length} task${tasks.length === 1 ? "" : "s"}`}
            aria-label="Filter tasks"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => e.key === "Escape" && setQuery("")}
          />
        </div>
      ) : null}
      {tasks.length === 0 ? (
        <div className="jc-empty jc-empty--small">No tasks yet.</div>
      ) : shown.length === 0 ? (
        <div className="jc-empty jc-empty--small">No task matches “{query}”.</div>
      ) : (
        <VirtualTaskRows tasks={shown} activeTaskId={activeTaskId} onOpen={(id) => openScreen({ kind: "task", taskId: id })} />
      )}
    </section>
  );
}

function VirtualTaskRows({ tasks, activeTaskId, onOpen }: { tasks: Task[]; activeTaskId: string | null; onOpen(id: string): void }) {
  const parentRef = useRef<HTMLDivElement>(null);
  const backends = useApp((s) => s.backends);
  const now = useMinuteClock();
  const v = useVirtualizer({
    count: tasks.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    initialRect: { width: 300, height: 800 },
    getItemKey: (i) => tasks[i].id,
  });

  return (
    <div ref={parentRef} className="jc-tasks__scroll" role="list" aria-label="Task list">
      <div style={{ height: v.getTotalSize(), position: "relative" }}>
        {v.getVirtualItems().map((row) => {
          const t = tasks[row.index];
          const info = backends.find((b) => b.name === t.backend);
          return (
            <div
              key={row.key}
              role="listitem"
              className="jc-task-row-wrap"
              style={{ position: "absolute", top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${row.start}px)` }}
            >
              <button
                type="button"
                className={cx("jc-task-row", t.id === activeTaskId && "jc-task-row--active", t.hasUnread && "jc-task-row--unread")}
                data-testid="task-row"
                data-task-id={t.id}
                data-task-status={t.status}
                title={statusTitle(t)}
                aria-current={t.id === activeTaskId ? "true" : undefined}
                onClick={() => onOpen(t.id)}
              >
                <span className="jc-task-row__status">
                  <StatusBadge status={t.status} reason={t.statusReason} indicator={asIndicator(t.indicator)} />
                </span>
                <span className="jc-task-row__main">
                  <span className="jc-task-row__title">{taskTitle(t)}</span>
                  <span className="jc-task-row__meta">
                    <BackendBadge name={t.backend} displayName={info?.displayName} />
                    {t.model ? <span className="jc-task-row__model">{t.model}</span> : null}
                    {t.summary ? (
                      <span className="jc-task-row__summary" data-testid="task-summary" title={t.summary}>
                        {t.summary}
                      </span>
                    ) : null}
                  </span>
                </span>
                <span className="jc-task-row__side">
                  <span className="jc-task-row__time" title={localTime(t.updatedAt || t.createdAt)}>{relativeTime(t.updatedAt || t.createdAt, now)}</span>
                  {t.hasUnread ? <span className="jc-unread-dot" aria-label="unread" data-testid="unread-marker" /> : null}
                </span>
              </button>
              <DeleteTaskButton task={t} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

/** DeleteTaskButton deletes a task after a second click (within 4 s) confirms it. */
function DeleteTaskButton({ task }: { task: Task }) {
  const deleteTask = useApp((s) => s.deleteTask);
  const [armed, setArmed] = useState(false);
  const [error, setError] = useState("");
  const [dirty, setDirty] = useState(false);
  useEffect(() => {
    if (!armed) return;
    const t = setTimeout(() => setArmed(false), 4000);
    return () => clearTimeout(t);
  }, [armed]);
  async function onClick() {
    if (!armed) {
      setArmed(true);
      setError("");
      return;
    }
    try {
      await deleteTask(task.id);
    } catch (err) {
      setArmed(false);
      const msg = errorMessage(err);
      setError(msg);
      setDirty(/uncommitted changes/i.test(msg));
    }
  }
  async function onDiscard() {
    try {
      await deleteTask(task.id, true);
    } catch (err) {
      setDirty(false);
      setError(errorMessage(err));
    }
  }
  if (dirty) {
    return (
      <span className="jc-task-row__delete-dirty" role="alert">
        <span>{error}</span>
        <button type="button" className="jc-task-row__delete jc-task-row__delete--armed" onClick={() => void onDiscard()}>
          Delete anyway (discard changes)
        </button>
        <button type="button" className="jc-task-row__delete" onClick={() => { setDirty(false); setError(""); }}>
          Keep task
        </button>
      </span>
    );
  }
  return (
    <button
      type="button"
      className={cx("jc-task-row__delete", armed && "jc-task-row__delete--armed", error && "jc-task-row__delete--error")}
      aria-label={armed ? `Confirm delete ${taskTitle(task)}` : `Delete ${taskTitle(task)}`}
      title={error || (armed ? "Click again to delete" : "Delete task")}
      onClick={() => void onClick()}
      onBlur={() => setArmed(false)}
    >
      <TrashIcon size={13} />
      {armed ? <span>Delete?</span> : null}
    </button>
  );
}

// TaskView is the screen of one task: header (status, title, context
// meter), the virtualized message stream, the pending permission/question
// cards (they stay until answered) and the composer.

import { Suspense, useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState, useSyncExternalStore } from "react";
import { lazyScreen } from "../../lib/lazyScreen";
import { TimelineStore } from "../../timeline/store";
import { pendingCards, type RetryInfo } from "../../timeline/state";
import { queueReducer } from "../../timeline/queue";
import type { InteractionMode } from "../../timeline/types";
import { useTaskApi } from "./context";
import { useOptionalAppStore } from "../../state/context";
import type { BackendInfo, TaskInfo } from "./api";
import { MessageList } from "./MessageList";
import { TaskLinks } from "../fork/TaskLinks";
import { ForkDialog, type ForkRequest } from "../fork/ForkDialog";
import { PermissionCard } from "./PermissionCard";
import { QuestionCard } from "./QuestionCard";
import { Composer } from "./Composer";
import { ContextMeter } from "./ContextMeter";
import { OpenActions } from "./OpenActions";
import { TaskIdContext } from "../../lib/opener";
import { readableError, taskStatus } from "../../lib/status";
import { StatusBadge, taskIndicator } from "./StatusBadge";
import { hostDown } from "./hostUnreachable";
import { ProblemCard, type ProblemActions } from "./ProblemCard";
import { useNow } from "../../parts/useNow";
import { formatCost, formatDuration, formatTokens } from "../../parts/util";
import { taskTotals, timelineCosts } from "../../timeline/cost";
import "./task-view.css";
import "../../parts/parts.css";
import { perfMark } from "../../lib/perfMark";

// The diff view is its own chunk, loaded the first time the Diff pane opens.
const DiffView = lazyScreen(() => import("../diff/DiffView").then((m) => m.DiffView));
// The task's shells (xterm.js) too, the first time the Terminal pane opens.
const TaskTerminals = lazyScreen(() => import("../terminal/TaskTerminals").then((m) => m.TaskTerminals));

/** The status reason of a task whose relay was adopted at start (orchestrator.ReasonContinued). */
export const CONTINUED_AFTER_RESTART = "continued after restart";

export interface TaskViewProps {
  taskId: string;
  /** signIn runs the agent's sign-in (resolves false when cancelled). */
  signIn?(backend: string): Promise<boolean>;
  openAgentSettings?(backend: string): void;
  /** A message to scroll to and flash (a search hit). */
  focus?: { messageId: string; at: number };
}

const seenKey = (taskId: string) => `jc:last-seen:${taskId}`;

function readSeen(taskId: string): string | null {
  try {
    return localStorage.getItem(seenKey(taskId));
  } catch {
    return null;
  }
}

function writeSeen(taskId: string, id: string): void {
  try {
    localStorage.setItem(seenKey(taskId), id);
  } catch {
    /* storage unavailable: unread dividers are a nicety */
  }
}

function Working({ since, retry }: { since: number; retry?: RetryInfo }) {
  const now = useNow(true);
  return (
    <div className={`jc-working${retry ? " is-retrying" : ""}`} aria-live="polite">
      <span className="jc-tool-state is-running" aria-hidden="true" />
      {retry ? (
        <span>
          Rate limited, retrying{retry.attempt ? ` (${retry.attempt}${retry.maxRetries ? `/${retry.maxRetries}` : ""})` : ""}
          {retry.retryAfterMs ? ` in ${formatDuration(retry.retryAfterMs)}` : ""}… <span className="jc-meta">{retry.text}</span>
        </span>
      ) : (
        <span>Working…</span>
      )}
      <span className="jc-meta">{formatDuration(now - since)}</span>
    </div>
  );
}

/** TaskTotal is the whole task's cost and tokens (its turns summed). */
function TaskTotal({ totalKey }: { totalKey: string }) {
  if (!totalKey) return null;
  const [cost, inTok, outTok, turns] = totalKey.split("|").map(Number);
  return (
    <span className="jc-chip jc-task-total" data-testid="task-total" title={`This task so far: ${turns} turn${turns === 1 ? "" : "s"}, ${formatTokens(inTok)} input and ${formatTokens(outTok)} output tokens`}>
      {formatCost(cost)}
    </span>
  );
}

/** PAGE_SIZE is how many messages the view loads at once: the newest on opening, older ones as the list scrolls up. */
export const PAGE_SIZE = 200;

export function TaskView({ taskId, focus, signIn, openAgentSettings }: TaskViewProps) {
  const api = useTaskApi();
  const focusRef = useRef(focus);
  focusRef.current = focus;
  const store = useMemo(() => {
    void taskId;
    return new TimelineStore();
  }, [taskId]);
  // Coarse subscriptions: the view re-renders when these change, not on
  // every streamed delta (the stream subscribes to the rows itself).
  const hasRows = useSyncExternalStore(store.subscribe, () => store.getSnapshot().rows.length > 0);
  const pendingCount = useSyncExternalStore(store.subscribe, () => store.getSnapshot().pendingCount);
  const modelUsage = useSyncExternalStore(store.subscribe, () => store.state.modelUsage);
  const retry = useSyncExternalStore(store.subscribe, () => store.state.retry);
  const stateMode = useSyncExternalStore(store.subscribe, () => store.state.mode);
  const stateTitle = useSyncExternalStore(store.subscribe, () => store.state.title);
  // The task's total: the sum of its turns' own costs and tokens.
  const totalKey = useSyncExternalStore(store.subscribe, () => {
    const t = taskTotals(timelineCosts(store.state).values());
    return t.turns ? `${t.costUsd}|${t.inputTokens}|${t.outputTokens}|${t.turns}` : "";
  });
  const [task, setTask] = useState<TaskInfo | null>(null);
  const [forkReq, setForkReq] = useState<ForkRequest | null>(null);
  const down = hostDown(task?.statusReason);
  const appStore = useOptionalAppStore(); // fork and sub-tasks need the app (absent in the view's own tests)
  const [backends, setBackends] = useState<BackendInfo[]>([]);
  const [queue, dispatchQueue] = useReducer(queueReducer, []);
  const [loadErr, setLoadErr] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [unreadFromKey, setUnreadFromKey] = useState<string | null>(null);
  const [busySince, setBusySince] = useState<number>(() => Date.now());
  // What the main area shows: the agent's messages, or the diff of the
  // task's work (its worktree against its base).
  const [pane, setPane] = useState<"messages" | "diff" | "terminal">("messages");
  const [sentCount, setSentCount] = useState(0);
  useEffect(() => setPane("messages"), [taskId]);

  // A layout effect: start loading right after the first commit, not after
  // the first paint.
  useLayoutEffect(() => {
    let alive = true;
    setLoaded(false);
    setLoadErr(null);
    dispatchQueue({ type: "replace", items: [] });
    const offs = [
      api.onAgentEvent((e) => {
        if (e.taskId === taskId) store.push(e);
      }),
      api.onRequestsUpdated((u) => {
        if (u.taskId === taskId) store.setPending(pendingCards(u.requests));
      }),
      api.onQueueUpdated((u) => {
        if (u.taskId === taskId) dispatchQueue({ type: "replace", items: u.items ?? [] });
      }),
      api.onPermissionDecided((u) => {
        if (u.taskId === taskId) store.addDecisions([u.decision]);
      }),
      api.onQuestionAnswered((u) => {
        if (u.taskId === taskId) store.addAnswers([u.answer]);
      }),
      api.onTaskUpdated((t) => {
        if (t.id === taskId) setTask(t);
      }),
    ];
    Promise.all([api.messagePage(taskId, -1, PAGE_SIZE, focusRef.current?.messageId), api.pendingRequests(taskId), api.queue(taskId), api.getTask(taskId).catch(() => null)])
      .then(([page, pending, q, t]) => {
        if (!alive) return;
        const seen = readSeen(taskId);
        perfMark("jc:task-view:load");
        store.loadPage(page, pendingCards(pending));
        perfMark("jc:task-view:loaded");
        api.permissionDecisions(taskId).then((d) => alive && store.addDecisions(d), () => {});
        api.questionAnswers(taskId).then((a) => alive && store.addAnswers(a), () => {});
        dispatchQueue({ type: "replace", items: q });
        if (t) setTask(t);
        const rows = store.getSnapshot().rows;
        if (seen && t?.hasUnread) {
          const i = rows.findIndex((r) => r.key === seen);
          if (i >= 0 && i < rows.length - 1) setUnreadFromKey(rows[i + 1].key);
        }
        setLoaded(true);
        api.markRead(taskId).catch(() => {});
      })
      .catch((e: unknown) => {
        if (alive) setLoadErr(e instanceof Error ? e.message : String(e));
      });
    api.listBackends().then((b) => alive && setBackends(b), () => {});
    return () => {
      alive = false;
      for (const off of offs) off();
    };
  }, [api, store, taskId]);

  const onLastRow = useCallback((key: string) => writeSeen(taskId, key), [taskId]);

  // Older pages: one at a time, when the list nears its top, or reaching
  // back to a message a link jumps to.
  const olderBusy = useRef(false);
  const loadOlder = useCallback(
    (messageId?: string): boolean => {
      if (olderBusy.current || !store.older.has) return false;
      olderBusy.current = true;
      api
        .messagePage(taskId, store.older.cursor, PAGE_SIZE, messageId)
        .then((p) => store.prependPage(p))
        // The rows already shown stay; scrolling up again retries.
        .catch((e: unknown) => console.error("older messages:", e))
        .finally(() => (olderBusy.current = false));
      return true;
    },
    [api, store, taskId],
  );
  // A jump to a message older than what is loaded (search, inbox, a link).
  useEffect(() => {
    if (loaded && focus && !store.state.messages.has(focus.messageId)) loadOlder(focus.messageId);
  }, [focus, loaded, loadOlder, store]);

  // Keep the task read while it is on screen.
  useEffect(() => {
    if (loaded && task?.hasUnread) api.markRead(taskId).catch(() => {});
  }, [api, loaded, task?.hasUnread, taskId]);

  const goIndicator = task?.indicator;
  const indicator =
    pendingCount > 0
      ? "waiting"
      : goIndicator === "none" || goIndicator === "idle" || goIndicator === "busy" || goIndicator === "waiting"
        ? goIndicator
        : taskIndicator(task?.status);
  const busy = task?.status === "running" || task?.status === "waiting" || pendingCount > 0;
  useEffect(() => {
    if (busy) setBusySince(Date.now());
  }, [busy]);

  const problemActions: ProblemActions = {
    install: api.installAgent ? (b) => api.installAgent!(b) : undefined,
    signIn,
    openSettings: openAgentSettings,
    retry: () => (api.retry ? api.retry(taskId) : api.sendMessage(taskId, task?.prompt ?? "")),
  };
  const backend = backends.find((b) => b.name === task?.backend);
  const caps = backend?.capabilities;
  const mode = (stateMode ?? task?.interactionMode) as InteractionMode | undefined;
  const models = useMemo(() => Object.keys(modelUsage ?? {}), [modelUsage]);
  const cards = [...store.state.pending.values()];
  const title = stateTitle || task?.name || task?.prompt?.split("\n")[0] || "Task";

  return (
    <TaskIdContext.Provider value={taskId}>
    <div className="jc-task-view" data-task-id={taskId} data-testid="task-view">
      <header className="jc-task-view__header">
        <StatusBadge status={task?.status} reason={task?.statusReason} pending={pendingCount} indicator={indicator} showLabel />
        <h2 className="jc-task-view__title" title={title}>
          {title}
        </h2>
        <span className="jc-tool__spacer" />
        {task?.backend ? <span className="jc-chip">{backend?.displayName ?? task.backend}</span> : null}
        {task?.model ? <span className="jc-chip" title="model">{task.model}</span> : null}
        <TaskTotal totalKey={totalKey} />
        <ContextMeter usage={modelUsage} />
        <OpenActions taskId={taskId} />
        <div className="jc-task-view__panes" role="group" aria-label="Show">
          <button type="button" className="jc-task-view__pane" aria-pressed={pane === "messages"} onClick={() => setPane("messages")}>
            Messages
          </button>
          <button type="button" className="jc-task-view__pane" aria-pressed={pane === "diff"} onClick={() => setPane("diff")}>
            Diff
          </button>
          <button
            type="button"
            className="jc-task-view__pane"
            aria-pressed={pane === "terminal"}
            onClick={() => setPane("terminal")}
            title="Shells in the task's worktree"
          >
            Shell
          </button>
        </div>
      </header>
      {task?.status === "errored" && task.problem ? (
        <ProblemCard
          problem={task.problem}
          backend={task.backend ?? ""}
          actions={problemActions}
        />
      ) : (task?.status === "errored" || task?.status === "store-error") && task.statusReason ? (
        <div className="jc-tv-notice is-error jc-task-view__banner" role="alert" title={task.statusReason}>
          <strong>{taskStatus(task.status).label}:</strong> {task.status === "errored" ? readableError(task.statusReason).text : task.statusReason}
        </div>
      ) : down ? (
        <div className="jc-tv-notice is-error jc-task-view__banner" role="status" data-testid="host-unreachable">
          <strong>Host unreachable:</strong> {down.text}. Jean-Claude reconnects by itself; the agent keeps running there
          and nothing it writes meanwhile is lost.
          {down.detail ? (
            <details className="jc-task-view__cause">
              <summary>Details</summary>
              <code data-testid="host-unreachable-detail">{down.detail}</code>
            </details>
          ) : null}
        </div>
      ) : task?.statusReason === CONTINUED_AFTER_RESTART && (task.status === "running" || task.status === "waiting") ? (
        <div className="jc-tv-notice jc-task-view__banner" role="status">
          Continued after restart: this agent kept running under its relay while Jean-Claude was closed.
        </div>
      ) : null}
      {/* Under the header in every pane (after the diff it left a band above the composer). */}
      {appStore ? <TaskLinks taskId={taskId} backend={task?.backend ?? ""} /> : null}
      {pane === "diff" ? (
        <div className="jc-task-view__diff">
          <Suspense fallback={<div className="jc-task-view__loading">Loading…</div>}>
            <DiffView taskId={taskId} defaultCommitMessage={task?.name ?? ""} />
          </Suspense>
        </div>
      ) : null}
      {appStore && forkReq ? <ForkDialog req={forkReq} onClose={() => setForkReq(null)} /> : null}
      {pane === "terminal" ? (
        <div className="jc-task-view__terminal">
          <Suspense fallback={<div className="jc-task-view__loading">Loading…</div>}>
            <TaskTerminals taskId={taskId} />
          </Suspense>
        </div>
      ) : null}
      <div className="jc-task-view__stream" hidden={pane !== "messages"}>
        {loadErr ? (
          <div className="jc-tv-notice is-error" role="alert">Could not load this task: {loadErr}</div>
        ) : !loaded ? (
          <div className="jc-task-view__loading">Loading…</div>
        ) : !hasRows ? (
          <div className="jc-task-view__empty">No messages yet.</div>
        ) : (
          <MessageList
            store={store}
            onLastRow={onLastRow}
            unreadFromKey={unreadFromKey}
            focus={focus}
            onNearTop={() => loadOlder()}
            onFork={appStore ? (messageId) => setForkReq({ kind: "fork", taskId, messageId, backend: task?.backend ?? "" }) : undefined}
            footer={busy && cards.length === 0 ? <Working since={busySince} retry={retry} /> : null}
            scrollSignal={sentCount}
          />
        )}
      </div>
      {cards.length > 0 ? (
        <div className="jc-task-view__cards" aria-label="Waiting for you">
          {cards.map((c, i) =>
            c.kind === "permission" ? (
              <PermissionCard
                key={c.request.requestId}
                request={c.request}
                active={i === 0}
                onAnswer={async (a) => {
                  await api.respondToPermission(taskId, c.request.requestId, a);
                  store.removePending(c.request.requestId);
                }}
              />
            ) : (
              <QuestionCard
                key={c.request.requestId}
                request={c.request}
                active={i === 0}
                onAnswer={async (answers) => {
                  await api.respondToQuestion(taskId, c.request.requestId, answers);
                  store.removePending(c.request.requestId);
                }}
              />
            ),
          )}
        </div>
      ) : null}
      <Composer
        busy={busy}
        queue={queue}
        mode={mode}
        modes={(caps?.modes ?? undefined) as InteractionMode[] | undefined}
        model={task?.model}
        models={models}
        canSetMode={caps?.setMode}
        canSetModel={caps?.setModel}
        canStop={true}
        onSend={async (text) => {
          setPane("messages");
          setSentCount((n) => n + 1);
          await api.sendMessage(taskId, text);
          setSentCount((n) => n + 1);
        }}
        onSendQueuedNow={async (q) => {
          dispatchQueue({ type: "remove", id: q.id });
          await api.removeQueued(q.id);
          setSentCount((n) => n + 1);
          await api.sendMessage(taskId, q.text);
        }}
        onStop={() => api.stop(taskId)}
        onEditQueued={async (id, text) => {
          dispatchQueue({ type: "edit", id, text });
          await api.editQueued(id, text);
        }}
        onRemoveQueued={async (id) => {
          dispatchQueue({ type: "remove", id });
          await api.removeQueued(id);
        }}
        onSetMode={async (m) => {
          await api.setMode(taskId, m);
          store.state.mode = m;
          store.publish(true);
        }}
        onSetModel={async (m) => {
          await api.setModel(taskId, m);
          setTask((t) => (t ? { ...t, model: m } : t));
        }}
      />
    </div>
    </TaskIdContext.Provider>
  );
}

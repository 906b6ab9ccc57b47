// App: the shell — projects sidebar, the selected project's task list, and
// the main pane (a task, the new-task form, project or global settings).

import { Suspense, useEffect, useMemo, useState } from "react";
import type { DBHealth } from "./bridge/api";
import { StoreProvider, useApp, useAppStore } from "./state/context";
import { createAppStore, type AppStore, type Theme } from "./state/store";
import { wailsApi } from "./bridge/wails";
import { Sidebar } from "./features/projects/Sidebar";
import { useColumns } from "./features/layout/columns";
import { ColumnsRail } from "./features/layout/ColumnsToggle";
import { AddProjectDialog } from "./features/projects/AddProjectDialog";
import { TaskList } from "./features/tasks/TaskList";
import { AgentsScreen, CompareScreen, HostsScreen, InboxView, NewTaskForm, ProjectSettings, SettingsScreen, TaskView, UsageScreen } from "./screens";
import { inboxTitle } from "./features/inbox/model";
import { setWindowTitle } from "./bridge/bound";
import { LimitBanner } from "./features/usage/LimitBanner";
import { CompareLink } from "./features/compare/CompareLink";
import { SignInHost, useSignIn } from "./features/signin/SignInDialog";
import { SearchPalette } from "./features/search/SearchPalette";
import { ImportLauncher } from "./features/import/ImportDialog";
import { SparkIcon } from "./lib/icons";
import { ErrorBoundary } from "./lib/ErrorBoundary";
import { NAVIGATE_EVENT, applyNavigate, type NavigateRequest } from "./lib/navigate";

/** systemDark: the desktop's colour-scheme preference, as a media query list (absent in some test DOMs). */
function systemDark(): MediaQueryList | undefined {
  return typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : undefined;
}

/**
 * applyTheme sets <html data-theme> to "light" or "dark", resolving "system"
 * from the desktop's preference and following it while chosen (the returned
 * function stops following). The stylesheet keys its one dark block, and the
 * code highlighting, on data-theme alone.
 */
export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement, mql = systemDark()): () => void {
  const set = () => root.setAttribute("data-theme", theme === "system" ? (mql?.matches ? "dark" : "light") : theme);
  set();
  if (theme !== "system" || !mql) return () => {};
  mql.addEventListener("change", set);
  return () => mql.removeEventListener("change", set);
}

export function App({ store }: { store?: AppStore }) {
  const s = useMemo(() => store ?? createAppStore(wailsApi(), window.localStorage), [store]);
  useEffect(() => {
    void s.getState().init();
    return () => s.getState().dispose();
  }, [s]);
  return (
    <StoreProvider store={s}>
      <Shell />
    </StoreProvider>
  );
}

/** handleShortcut: Ctrl/Cmd+N new task, Ctrl/Cmd+, settings, Ctrl/Cmd+Shift+O add project, Ctrl/Cmd+I the inbox. */
export function handleShortcut(e: KeyboardEvent, store: AppStore): boolean {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return false;
  const s = store.getState();
  const key = e.key.toLowerCase();
  if (key === "n" && !e.shiftKey && s.selectedProjectId) {
    s.openScreen({ kind: "new-task", projectId: s.selectedProjectId });
  } else if (key === "," && !e.shiftKey) {
    s.openScreen({ kind: "settings" });
  } else if (key === "o" && e.shiftKey) {
    s.setAddProjectOpen(true);
  } else if (key === "i" && !e.shiftKey) {
    s.openScreen({ kind: "inbox" });
  } else {
    return false;
  }
  e.preventDefault();
  return true;
}

function Shell() {
  const theme = useApp((s) => s.theme);
  const ready = useApp((s) => s.ready);
  const loadError = useApp((s) => s.loadError);
  useEffect(() => applyTheme(theme), [theme]);
  const store = useAppStore();
  useEffect(() => {
    // Notifications go out only while the window is in the background.
    const focus = () => store.getState().setWindowFocused(true);
    const blur = () => store.getState().setWindowFocused(false);
    window.addEventListener("focus", focus);
    window.addEventListener("blur", blur);
    store.getState().setWindowFocused(document.hasFocus());
    return () => {
      window.removeEventListener("focus", focus);
      window.removeEventListener("blur", blur);
    };
  }, [store]);
  useEffect(() => store.getState().api.events.on(NAVIGATE_EVENT, (p) => applyNavigate(p as NavigateRequest, store)), [store]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => handleShortcut(e, store);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [store]);

  const inboxCount = useApp((s) => s.inbox.length);
  useEffect(() => setWindowTitle(inboxTitle(inboxCount)), [inboxCount]);

  const columns = useColumns();
  return (
    <div className="jc-app" data-ready={ready ? "true" : undefined} data-columns={columns}>
      <ColumnsRail columns={columns} />
      <Sidebar />
      <TaskList />
      <main className="jc-main">
        {loadError ? (
          <div className="jc-banner jc-banner--error" role="alert">
            Could not load: {loadError}
          </div>
        ) : null}
        <DatabaseBanner />
        <MainPaneGuarded />
      </main>
      <AddProjectDialog />
      <SignInHost />
      <SearchPalette />
      <ImportLauncher />
    </div>
  );
}

/** DatabaseBanner shows the background database check's findings (corrupt pages). */
export function DatabaseBanner() {
  const api = useApp((s) => s.api);
  const [health, setHealth] = useState<DBHealth | null>(null);
  useEffect(() => {
    const off = api.events.on("db:health", (p) => setHealth(p as DBHealth));
    api.app?.databaseHealth().then((h) => setHealth((cur) => (cur?.checked ? cur : h)), () => {});
    return off;
  }, [api]);
  if (!health?.checked || health.ok) return null;
  return (
    <div className="jc-banner jc-banner--error" role="alert" data-testid="db-health">
      The database file is damaged (PRAGMA quick_check): {health.problems.slice(0, 3).join("; ")}. Stop using it and restore
      a copy, or run <code>sqlite3 … .recover</code> on a copy.
    </div>
  );
}

function StartError({ taskId }: { taskId: string }) {
  const error = useApp((s) => s.startErrors[taskId]);
  // An errored task shows its own problem (with the fixing action) in the
  // task view: the same error is not shown twice.
  const errored = useApp((s) => Object.values(s.tasksByProject).some((ts) => ts?.some((t) => t.id === taskId && t.status === "errored")));
  if (!error || errored) return null;
  return (
    <div className="jc-banner jc-banner--error" role="alert">
      Could not start the agent: {error}
    </div>
  );
}

/** MainPaneGuarded isolates a crashing screen; a new screen gets a fresh boundary. */
function MainPaneGuarded() {
  const screen = useApp((s) => s.screen);
  const key = screen.kind === "task" ? `task:${screen.taskId}` : screen.kind === "empty" ? "empty" : `${screen.kind}:${"projectId" in screen ? screen.projectId : "groupId" in screen ? screen.groupId : ""}`;
  return (
    <ErrorBoundary key={key} what={screen.kind === "task" ? "this task" : "this screen"}>
      <Suspense fallback={<div className="jc-main__loading" aria-busy="true" />}>
        <MainPane />
      </Suspense>
    </ErrorBoundary>
  );
}

function MainPane() {
  const screen = useApp((s) => s.screen);
  const hasProjects = useApp((s) => s.projects.length > 0);
  const setAddProjectOpen = useApp((s) => s.setAddProjectOpen);
  const openScreen = useApp((s) => s.openScreen);
  const signIn = useSignIn();
  switch (screen.kind) {
    case "task":
      return (
        <div className="jc-task-pane">
          <StartError taskId={screen.taskId} />
          <LimitBanner key={`limit:${screen.taskId}`} taskId={screen.taskId} />
          <CompareLink key={`compare:${screen.taskId}`} taskId={screen.taskId} />
          <TaskView
            key={screen.taskId}
            taskId={screen.taskId}
            focus={screen.focusMessageId ? { messageId: screen.focusMessageId, at: screen.focusAt ?? 0 } : undefined}
            openAgentSettings={() => openScreen({ kind: "agents" })}
            signIn={signIn}
          />
        </div>
      );
    case "new-task":
      return <NewTaskForm projectId={screen.projectId} />;
    case "project-settings":
      return <ProjectSettings projectId={screen.projectId} />;
    case "settings":
      return <SettingsScreen />;
    case "agents":
      return <AgentsScreen />;
    case "hosts":
      return <HostsScreen />;
    case "inbox":
      return <InboxView />;
    case "usage":
      return <UsageScreen />;
    case "compare":
      return <CompareScreen groupId={screen.groupId} />;
    case "empty":
      return (
        <div className="jc-welcome">
          <SparkIcon size={28} />
          {hasProjects ? (
            <>
              <h2>Pick a task, or start a new one</h2>
              <p>Tasks run an agent in your project. Their output, questions and permission requests show up here.</p>
            </>
          ) : (
            <>
              <h2>Welcome to Jean-Claude</h2>
              <p>Add a project folder to run coding agents on it, side by side.</p>
              <button type="button" className="jc-btn jc-btn--primary jc-btn--md" onClick={() => setAddProjectOpen(true)}>
                Add project
              </button>
            </>
          )}
        </div>
      );
    default: {
      const _exhaustive: never = screen;
      return _exhaustive;
    }
  }
}

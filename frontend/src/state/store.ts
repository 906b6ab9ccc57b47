// The app store: server data loaded through the Api plus the UI's own state
// (selection, current screen, theme). Built by createAppStore(api) so tests
// pass a fake Api; components reach it through StoreProvider/useApp.

import { createStore, type StoreApi } from "zustand/vanilla";
import type { Api, Unsubscribe } from "../bridge/api";
import { toTask } from "../bridge/api";
import type { BackendInfo, CreateTaskInput, Project, Task } from "../bridge/types";
import { errorMessage } from "../lib/errors";
import { removeTask, sortTasks, upsertTask } from "./taskList";
import type { InboxItem, InboxPayload } from "../features/inbox/model";

export type Theme = "system" | "light" | "dark";

/** The main pane's screen. */
export type Screen =
  | { kind: "empty" }
  /** focusMessageId: scroll to that message (a search hit); focusAt tells two clicks on it apart. */
  | { kind: "task"; taskId: string; focusMessageId?: string; focusAt?: number }
  | { kind: "new-task"; projectId: string }
  | { kind: "project-settings"; projectId: string }
  | { kind: "settings" }
  | { kind: "agents" }
  | { kind: "hosts" }
  /** The attention inbox; focusKey selects one item (a clicked notification), focusAt tells two clicks apart. */
  | { kind: "inbox"; focusKey?: string; focusAt?: number }
  /** A comparison of agents on one prompt (issue 17). */
  | { kind: "compare"; groupId: string }
  /** Cost and tokens per project, agent and day; usage-limit settings. */
  | { kind: "usage" };

export interface AppState {
  /** The bridge, for screens that keep their own data (the Agents page). */
  api: Api;
  ready: boolean;
  loadError: string;
  projects: Project[];
  tasksByProject: Record<string, Task[]>;
  backends: BackendInfo[];
  defaultBackend: string;
  selectedProjectId: string | null;
  screen: Screen;
  theme: Theme;
  addProjectOpen: boolean;
  /** Notification kinds and whether each is on; null until loaded (or when unavailable). */
  notifications: Record<string, boolean> | null;
  /** Background re-normalization of stored messages, while it runs. */
  renormalize: { done: number; total: number } | null;
  /** Why starting a task's session failed, by task id. */
  startErrors: Record<string, string>;
  /** Everything waiting on the user across projects, oldest first ("inbox:updated"). */
  inbox: InboxItem[];
  loadInbox(): Promise<void>;

  init(): Promise<void>;
  dispose(): void;

  selectProject(id: string | null): void;
  openScreen(screen: Screen): void;
  setAddProjectOpen(open: boolean): void;
  pickDirectory(): Promise<string>;
  /** expandPath is what a typed project path becomes ("~" expanded); undefined without a backend that tells. */
  expandPath?: (path: string) => Promise<string>;
  addProject(path: string): Promise<Project>;
  renameProject(id: string, name: string): Promise<void>;
  removeProject(id: string): Promise<void>;
  setProjectBackend(id: string, backend: string): Promise<void>;
  setProjectModel(id: string, model: string): Promise<void>;

  /** reloadProjects reads the stored project list again (another window changed it: "projects:updated"). */
  reloadProjects(): Promise<void>;
  loadTasks(projectId: string): Promise<void>;
  /** createTask creates the task, opens it and, with start, starts its session. */
  createTask(input: CreateTaskInput, opts?: { start?: boolean; beforeStart?: (task: Task) => Promise<void> }): Promise<Task>;
  /** deleteTask deletes a task and its worktree; discardChanges confirms dropping the worktree's uncommitted changes. */
  deleteTask(id: string, discardChanges?: boolean): Promise<void>;
  /** forgetTask drops a task deleted elsewhere. */
  forgetTask(id: string): void;
  applyTaskUpdate(task: Task): void;

  setDefaultBackend(backend: string): Promise<void>;
  setNotificationEnabled(kind: string, enabled: boolean): Promise<void>;
  setWindowFocused(focused: boolean): void;
  setTheme(theme: Theme): void;
}

export interface Storage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

const THEME_KEY = "jc.theme";
const PROJECT_KEY = "jc.selectedProject";

function readTheme(storage?: Storage): Theme {
  const t = storage?.getItem(THEME_KEY);
  return t === "light" || t === "dark" || t === "system" ? t : "system";
}

export type AppStore = StoreApi<AppState>;

type ProjectsView = Pick<AppState, "projects" | "selectedProjectId" | "tasksByProject" | "screen">;

/** projectOfScreen is the project a screen belongs to (undefined: none). */
function projectOfScreen(s: ProjectsView): string | undefined {
  const screen = s.screen;
  switch (screen.kind) {
    case "task":
      return findTask(s, screen.taskId)?.projectId;
    case "new-task":
    case "project-settings":
      return screen.projectId;
    default:
      return undefined;
  }
}

/**
 * withProjects is the state once the stored project list is known anew
 * ("projects:updated": another window, the Hosts page or an import changed
 * it): the list as stored, the selection kept while its project exists
 * (else the first), a removed project's tasks dropped and its screen closed.
 */
export function withProjects(s: ProjectsView, projects: Project[]): ProjectsView {
  const ids = new Set(projects.map((p) => p.id));
  const tasksByProject = Object.fromEntries(Object.entries(s.tasksByProject).filter(([id]) => ids.has(id)));
  const selectedProjectId = s.selectedProjectId && ids.has(s.selectedProjectId) ? s.selectedProjectId : (projects[0]?.id ?? null);
  const shown = projectOfScreen(s);
  const screen: Screen = shown !== undefined && !ids.has(shown) ? { kind: "empty" } : s.screen;
  return { projects, selectedProjectId, tasksByProject, screen };
}

export function createAppStore(api: Api, storage?: Storage): AppStore {
  let subs: Unsubscribe[] = [];

  return createStore<AppState>()((set, get) => {
    function replaceProject(p: Project) {
      set((s) => ({ projects: s.projects.map((x) => (x.id === p.id ? p : x)) }));
    }

    return {
      api,
      ready: false,
      loadError: "",
      projects: [],
      tasksByProject: {},
      backends: [],
      defaultBackend: "",
      selectedProjectId: null,
      screen: { kind: "empty" },
      theme: readTheme(storage),
      addProjectOpen: false,
      startErrors: {},
      notifications: null,
      renormalize: null,
      inbox: [],

      async loadInbox() {
        if (!api.inbox) return;
        const p = await api.inbox.items();
        set({ inbox: p.items ?? [] });
      },

      async init() {
        get().dispose();
        subs = [
          api.events.on("task:updated", (payload) => get().applyTaskUpdate(toTask(payload))),
          api.events.on("renormalize:progress", (payload) => {
            const p = payload as { done?: number; total?: number } | null;
            const done = Number(p?.done ?? 0);
            const total = Number(p?.total ?? 0);
            set({ renormalize: total > 0 && done < total ? { done, total } : null });
          }),
          api.events.on("task:deleted", (payload) => {
            const id = (payload as { id?: string } | null)?.id;
            if (id) get().forgetTask(id);
          }),
          api.events.on("inbox:updated", (payload) => set({ inbox: (payload as InboxPayload | null)?.items ?? [] })),
          api.events.on("projects:updated", () => {
            void get()
              .reloadProjects()
              .catch(() => {}); // the list shown stays; the next change reads it again
          }),
          // A desktop notification was clicked: show exactly that item.
          api.events.on("inbox:open", (payload) => {
            const key = (payload as { key?: string } | null)?.key;
            get().openScreen({ kind: "inbox", focusKey: key || undefined, focusAt: Date.now() });
          }),
        ];
        void get()
          .loadInbox()
          .catch(() => {});
        try {
          const [projects, backends, defaultBackend] = await Promise.all([
            api.projects.list(),
            api.settings.listBackends(),
            api.settings.getDefaultBackend(),
          ]);
          const remembered = storage?.getItem(PROJECT_KEY) ?? null;
          const selected = projects.find((p) => p.id === remembered)?.id ?? projects[0]?.id ?? null;
          set({ projects, backends, defaultBackend, ready: true, loadError: "", selectedProjectId: selected });
          // Every project's tasks: the sidebar shows unread counts for all of them.
          if (selected) await get().loadTasks(selected);
          await Promise.all(projects.filter((p) => p.id !== selected).map((p) => get().loadTasks(p.id).catch(() => {})));
          api.sessions
            ?.notificationSettings()
            .then((n) => set({ notifications: n }))
            .catch(() => set({ notifications: null }));
        } catch (err) {
          set({ ready: true, loadError: errorMessage(err) });
        }
      },

      dispose() {
        subs.forEach((u) => u());
        subs = [];
      },

      selectProject(id) {
        if (id) storage?.setItem(PROJECT_KEY, id);
        set({ selectedProjectId: id, screen: { kind: "empty" } });
        if (id) void get().loadTasks(id).catch(() => {});
      },

      openScreen(screen) {
        set({ screen });
        if (screen.kind === "task") {
          // Opening a task reads it: clear the unread marker locally; the
          // session service marks it read on the Go side.
          const { tasksByProject } = get();
          for (const [pid, list] of Object.entries(tasksByProject)) {
            const t = list.find((x) => x.id === screen.taskId);
            if (t?.hasUnread) {
              set({ tasksByProject: { ...tasksByProject, [pid]: upsertTask(list, { ...t, hasUnread: false }) } });
              void api.sessions?.markRead(t.id).catch(() => {});
            }
          }
        }
      },

      setAddProjectOpen(open) {
        set({ addProjectOpen: open });
      },

      expandPath: api.projects.expandPath ? (p: string) => api.projects.expandPath!(p) : undefined,

      pickDirectory() {
        return api.projects.pickDirectory();
      },

      async addProject(path) {
        const p = await api.projects.add(path);
        set((s) => ({
          projects: [...s.projects.filter((x) => x.id !== p.id), p],
          selectedProjectId: p.id,
          tasksByProject: { ...s.tasksByProject, [p.id]: s.tasksByProject[p.id] ?? [] },
          screen: { kind: "empty" },
          addProjectOpen: false,
        }));
        storage?.setItem(PROJECT_KEY, p.id);
        return p;
      },

      async renameProject(id, name) {
        replaceProject(await api.projects.rename(id, name));
      },

      async removeProject(id) {
        await api.projects.remove(id);
        set((s) => {
          const projects = s.projects.filter((p) => p.id !== id);
          const { [id]: _gone, ...tasksByProject } = s.tasksByProject;
          const selectedProjectId = s.selectedProjectId === id ? (projects[0]?.id ?? null) : s.selectedProjectId;
          return { projects, tasksByProject, selectedProjectId, screen: { kind: "empty" } };
        });
        void get()
          .loadInbox()
          .catch(() => {});
      },

      async setProjectBackend(id, backend) {
        replaceProject(await api.projects.setDefaultBackend(id, backend));
      },

      async setProjectModel(id, model) {
        replaceProject(await api.projects.setDefaultModel(id, model));
      },

      async reloadProjects() {
        const projects = await api.projects.list();
        const known = get().tasksByProject;
        set((s) => withProjects(s, projects));
        // A project added elsewhere: its tasks (the sidebar counts them).
        await Promise.all(projects.filter((p) => !(p.id in known)).map((p) => get().loadTasks(p.id).catch(() => {})));
      },

      async loadTasks(projectId) {
        const tasks = await api.tasks.list(projectId);
        set((s) => ({ tasksByProject: { ...s.tasksByProject, [projectId]: sortTasks(tasks) } }));
      },

      async createTask(input, opts) {
        const task = await api.tasks.create(input);
        get().applyTaskUpdate(task);
        set({ screen: { kind: "task", taskId: task.id } });
        if (opts?.beforeStart) {
          try {
            await opts.beforeStart(task);
          } catch (err) {
            set((s) => ({ startErrors: { ...s.startErrors, [task.id]: errorMessage(err) } }));
            return task; // don't start with options that did not apply
          }
        }
        if (opts?.start && api.sessions) {
          try {
            await api.sessions.start(task.id);
          } catch (err) {
            set((s) => ({ startErrors: { ...s.startErrors, [task.id]: errorMessage(err) } }));
          }
        }
        return task;
      },

      async deleteTask(id, discardChanges) {
        await (discardChanges ? api.tasks.removeDiscardingChanges(id) : api.tasks.remove(id));
        get().forgetTask(id);
      },

      forgetTask(id) {
        set((s) => {
          const tasksByProject: Record<string, Task[]> = {};
          for (const [pid, list] of Object.entries(s.tasksByProject)) tasksByProject[pid] = removeTask(list, id);
          const screen = s.screen.kind === "task" && s.screen.taskId === id ? { kind: "empty" as const } : s.screen;
          return { tasksByProject, screen };
        });
      },

      applyTaskUpdate(task) {
        if (!task.id || !task.projectId) return;
        set((s) => {
          let t = task;
          // The task on screen is being read: don't mark it unread.
          if (s.screen.kind === "task" && s.screen.taskId === task.id && t.hasUnread) t = { ...t, hasUnread: false };
          const tasksByProject = { ...s.tasksByProject, [t.projectId]: upsertTask(s.tasksByProject[t.projectId], t) };
          // A start error is gone once the task runs (its cause was fixed).
          if (s.startErrors[t.id] && (t.status === "running" || t.status === "waiting" || t.status === "completed")) {
            const startErrors = { ...s.startErrors };
            delete startErrors[t.id];
            return { tasksByProject, startErrors };
          }
          return { tasksByProject };
        });
      },

      async setDefaultBackend(backend) {
        await api.settings.setDefaultBackend(backend);
        set({ defaultBackend: backend });
      },

      async setNotificationEnabled(kind, enabled) {
        if (!api.sessions) return;
        await api.sessions.setNotificationEnabled(kind, enabled);
        set((s) => ({ notifications: { ...(s.notifications ?? {}), [kind]: enabled } }));
      },

      setWindowFocused(focused) {
        void api.sessions?.setWindowFocused(focused).catch(() => {});
      },

      setTheme(theme) {
        storage?.setItem(THEME_KEY, theme);
        set({ theme });
      },
    };
  });
}

/** selectedProject returns the project the sidebar has selected. */
export function selectedProject(s: AppState): Project | undefined {
  return s.projects.find((p) => p.id === s.selectedProjectId);
}

/** findTask looks a task up across projects. */
export function findTask(s: Pick<AppState, "tasksByProject">, id: string): Task | undefined {
  for (const list of Object.values(s.tasksByProject)) {
    const t = list.find((x) => x.id === id);
    if (t) return t;
  }
  return undefined;
}

/** backendInfo looks a backend up by name. */
export function backendInfo(s: Pick<AppState, "backends">, name: string): BackendInfo | undefined {
  return s.backends.find((b) => b.name === name);
}

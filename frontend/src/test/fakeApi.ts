// An in-memory Api for tests: validates like the Go services (rejecting with
// a plain string, as Wails does) and records every call.

import type { Api } from "../bridge/api";
import type { BackendInfo, CreateTaskInput, Project, Task } from "../bridge/types";

export const BACKENDS: BackendInfo[] = [
  {
    name: "claude-code",
    displayName: "Claude Code",
    capabilities: { resume: true, fork: true, interrupt: true, setMode: true, setModel: true, compaction: true, questions: true, permissions: true },
  },
  {
    name: "opencode",
    displayName: "OpenCode",
    capabilities: { resume: true, fork: false, interrupt: true, setMode: false, setModel: true, compaction: false, questions: false, permissions: false },
  },
];

export interface FakeApi extends Api {
  calls: string[];
  projectsDb: Project[];
  tasksDb: Task[];
  /** dirtyTasks: ids whose worktree has uncommitted changes (remove refuses them). */
  dirtyTasks: Set<string>;
  emit(name: string, payload: unknown): void;
  pickResult: string;
  startError: string;
  notify: Record<string, boolean>;
}

export function makeProject(over: Partial<Project> = {}): Project {
  return {
    id: "p1",
    name: "alpha",
    path: "/src/alpha",
    isGitRepo: true,
    defaultBackend: "claude-code",
    defaultModel: "",
    createdAt: 1000,
    updatedAt: 1000,
    ...over,
  };
}

export function makeTask(over: Partial<Task> = {}): Task {
  return {
    id: "t1",
    projectId: "p1",
    name: "",
    prompt: "Fix the bug",
    status: "created",
    statusReason: "",
    indicator: "",
    backend: "claude-code",
    model: "",
    interactionMode: "ask",
    sessionId: "",
    hasUnread: false,
    createdAt: 2000,
    updatedAt: 2000,
    ...over,
  };
}

export function fakeApi(init: { projects?: Project[]; tasks?: Task[]; existingDirs?: string[] } = {}): FakeApi {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const dirs = new Set(init.existingDirs ?? ["/src/beta"]);
  let seq = 0;
  let defaultBackend = "claude-code";
  let summaryAgent = "";
  const api: FakeApi = {
    calls: [],
    projectsDb: [...(init.projects ?? [])],
    tasksDb: [...(init.tasks ?? [])],
    dirtyTasks: new Set<string>(),
    pickResult: "",
    startError: "",
    notify: { complete: true, error: true, permission: true, question: false },
    emit(name, payload) {
      listeners.get(name)?.forEach((cb) => cb(payload));
    },
    projects: {
      async pickDirectory() {
        api.calls.push("pickDirectory");
        return api.pickResult;
      },
      async add(path) {
        api.calls.push(`add ${path}`);
        if (!path) throw "project path is empty";
        if (!dirs.has(path)) throw `project path ${path}: no such directory`;
        const p = makeProject({ id: `p${++seq + 100}`, name: path.split("/").pop()!, path, defaultBackend });
        api.projectsDb.push(p);
        return p;
      },
      async list() {
        api.calls.push("listProjects");
        return [...api.projectsDb];
      },
      async rename(id, name) {
        api.calls.push(`rename ${id} ${name}`);
        if (!name.trim()) throw "project name is empty";
        const p = api.projectsDb.find((x) => x.id === id)!;
        Object.assign(p, { name });
        return { ...p };
      },
      async remove(id) {
        api.calls.push(`remove ${id}`);
        api.projectsDb = api.projectsDb.filter((p) => p.id !== id);
      },
      async setDefaultBackend(id, backend) {
        api.calls.push(`setProjectBackend ${id} ${backend}`);
        if (!BACKENDS.some((b) => b.name === backend)) throw `unknown backend "${backend}"`;
        const p = api.projectsDb.find((x) => x.id === id)!;
        Object.assign(p, { defaultBackend: backend });
        return { ...p };
      },
      async setDefaultModel(id, model) {
        api.calls.push(`setProjectModel ${id} ${model}`);
        const p = api.projectsDb.find((x) => x.id === id)!;
        Object.assign(p, { defaultModel: model });
        return { ...p };
      },
    },
    tasks: {
      async create(input: CreateTaskInput) {
        api.calls.push(`create ${JSON.stringify(input)}`);
        if (!input.prompt.trim()) throw "task prompt is empty";
        const p = api.projectsDb.find((x) => x.id === input.projectId);
        if (!p) throw "project not found";
        const backend = input.backend || p.defaultBackend;
        if (!BACKENDS.some((b) => b.name === backend)) throw `unknown backend "${backend}"`;
        const t = makeTask({
          id: `t${++seq + 100}`,
          projectId: p.id,
          prompt: input.prompt,
          name: input.name,
          backend,
          model: input.model || p.defaultModel,
          interactionMode: input.interactionMode,
          createdAt: 5000 + seq,
          updatedAt: 5000 + seq,
        });
        api.tasksDb.push(t);
        return t;
      },
      async list(projectId) {
        api.calls.push(`listTasks ${projectId}`);
        return api.tasksDb.filter((t) => t.projectId === projectId);
      },
      async get(id) {
        const t = api.tasksDb.find((x) => x.id === id);
        if (!t) throw "task not found";
        return t;
      },
      async remove(id) {
        api.calls.push(`deleteTask ${id}`);
        if (api.dirtyTasks.has(id)) throw "task not deleted: worktree has uncommitted changes: 1 untracked file(s)";
        api.tasksDb = api.tasksDb.filter((t) => t.id !== id);
      },
      async removeDiscardingChanges(id) {
        api.calls.push(`deleteTaskDiscarding ${id}`);
        api.tasksDb = api.tasksDb.filter((t) => t.id !== id);
      },
    },
    settings: {
      async getSummaryAgent() {
        return summaryAgent;
      },
      async setSummaryAgent(b) {
        api.calls.push(`setSummaryAgent ${b}`);
        summaryAgent = b;
      },
      async getDefaultBackend() {
        return defaultBackend;
      },
      async setDefaultBackend(b) {
        api.calls.push(`setDefaultBackend ${b}`);
        if (!BACKENDS.some((x) => x.name === b)) throw `unknown backend "${b}"`;
        defaultBackend = b;
      },
      async listBackends() {
        return BACKENDS;
      },
    },
    sessions: {
      async start(taskId) {
        api.calls.push(`start ${taskId}`);
        if (api.startError) throw api.startError;
      },
      async markRead(taskId) {
        api.calls.push(`markRead ${taskId}`);
      },
      async setWindowFocused(focused) {
        api.calls.push(`focused ${focused}`);
      },
      async notificationSettings() {
        return { ...api.notify };
      },
      async setNotificationEnabled(kind, enabled) {
        api.calls.push(`notify ${kind} ${enabled}`);
        if (!(kind in api.notify)) throw `unknown notification kind "${kind}"`;
        api.notify[kind] = enabled;
      },
    },
    events: {
      on(name, cb) {
        if (!listeners.has(name)) listeners.set(name, new Set());
        listeners.get(name)!.add(cb);
        return () => listeners.get(name)!.delete(cb);
      },
    },
  };
  return api;
}

/** memoryStorage is a Storage backed by a Map. */
export function memoryStorage(init: Record<string, string> = {}) {
  const m = new Map(Object.entries(init));
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    map: m,
  };
}

// The typed surface the UI talks to. Stores depend on the Api interface, not
// on Wails, so tests hand them a fake; wails.ts implements it over the
// generated bindings.

import type { BackendInfo, CreateTaskInput, Project, Task } from "./types";
import type { InboxApi } from "../features/inbox/api";

export interface ProjectsApi {
  pickDirectory(): Promise<string>;
  add(path: string): Promise<Project>;
  /** expandPath is what add would store ("~" expanded); rejects a relative path. */
  expandPath?(path: string): Promise<string>;
  list(): Promise<Project[]>;
  rename(id: string, name: string): Promise<Project>;
  remove(id: string): Promise<void>;
  setDefaultBackend(id: string, backend: string): Promise<Project>;
  setDefaultModel(id: string, model: string): Promise<Project>;
}

export interface TasksApi {
  create(input: CreateTaskInput): Promise<Task>;
  list(projectId: string): Promise<Task[]>;
  get(id: string): Promise<Task>;
  /** remove deletes a task and its worktree; refused (the error says "uncommitted changes") when the worktree is dirty. */
  remove(id: string): Promise<void>;
  /** removeDiscardingChanges is remove once the user confirmed discarding the worktree's changes. */
  removeDiscardingChanges(id: string): Promise<void>;
}

export interface SettingsApi {
  getDefaultBackend(): Promise<string>;
  setDefaultBackend(backend: string): Promise<void>;
  /** the backend whose CLI writes a finished task's one-line summary ("" = off). */
  getSummaryAgent(): Promise<string>;
  setSummaryAgent(backend: string): Promise<void>;
  listBackends(): Promise<BackendInfo[]>;
}

export type Unsubscribe = () => void;

export interface EventsApi {
  /** on subscribes to a backend event; the returned function unsubscribes. */
  on(name: string, cb: (payload: unknown) => void): Unsubscribe;
}

export interface SessionsApi {
  start(taskId: string): Promise<void>;
  markRead(taskId: string): Promise<void>;
  /** Desktop notifications are sent only while the window is unfocused. */
  setWindowFocused(focused: boolean): Promise<void>;
  /** Which notification kinds are on (complete, error, permission, question). */
  notificationSettings(): Promise<Record<string, boolean>>;
  setNotificationEnabled(kind: string, enabled: boolean): Promise<void>;
}

/** DBHealth is the background database check's result (PRAGMA quick_check). */
export interface DBHealth {
  checked: boolean;
  ok: boolean;
  problems: string[];
}

export interface AppApi {
  /** databaseHealth returns the background check's result (checked false while it runs); "db:health" carries it when it ends. */
  databaseHealth(): Promise<DBHealth>;
}

export interface Api {
  /** The AppService; absent in tests that do not need it. */
  app?: AppApi;
  projects: ProjectsApi;
  tasks: TasksApi;
  settings: SettingsApi;
  events: EventsApi;
  /** The orchestrator's SessionService; absent until it is bound. */
  sessions?: SessionsApi;
  /** The attention inbox (InboxService); absent in tests that do not need it. */
  inbox?: InboxApi;
}

type Raw = Record<string, unknown>;

function str(v: unknown): string {
  return typeof v === "string" ? v : v == null ? "" : String(v);
}

function num(v: unknown): number {
  return typeof v === "number" ? v : Number(v ?? 0) || 0;
}

/** toProject accepts the service DTO (tolerating the column-style names). */
export function toProject(raw: unknown): Project {
  const r = (raw ?? {}) as Raw;
  return {
    id: str(r.id),
    name: str(r.name),
    path: str(r.path),
    isGitRepo: Boolean(r.isGitRepo),
    defaultBackend: str(r.defaultBackend ?? r.defaultAgentBackend),
    defaultModel: str(r.defaultModel),
    createdAt: num(r.createdAt),
    updatedAt: num(r.updatedAt),
  };
}

/** toTask accepts the service DTO (tolerating the column-style names). */
export function toTask(raw: unknown): Task {
  const r = (raw ?? {}) as Raw;
  return {
    id: str(r.id),
    projectId: str(r.projectId),
    name: str(r.name),
    prompt: str(r.prompt),
    status: str(r.status) || "created",
    statusReason: str(r.statusReason),
    problem: r.problem && typeof r.problem === "object" ? (r.problem as Task["problem"]) : null,
    indicator: str(r.indicator),
    backend: str(r.backend ?? r.agentBackend),
    model: str(r.model),
    interactionMode: str(r.interactionMode) || "ask",
    sessionId: str(r.sessionId),
    hasUnread: Boolean(r.hasUnread),
    createdAt: num(r.createdAt),
    updatedAt: num(r.updatedAt),
    startedAt: r.startedAt == null ? null : num(r.startedAt),
    endedAt: r.endedAt == null ? null : num(r.endedAt),
    summary: str(r.summary),
  };
}

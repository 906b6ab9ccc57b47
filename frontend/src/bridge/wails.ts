// The Api over the Wails runtime: every call goes to the bound Go services
// (window.go.services.*), every subscription to the Wails event bus.

import { toProject, toTask, type Api } from "./api";
import type { BackendInfo, CreateTaskInput } from "./types";

type Fn = (...args: unknown[]) => Promise<unknown>;

interface WailsWindow {
  go?: Record<string, Record<string, Record<string, Fn>>>;
  runtime?: {
    EventsOnMultiple(name: string, cb: (...data: unknown[]) => void, max: number): () => void;
  };
}

function w(): WailsWindow {
  return window as unknown as WailsWindow;
}

function call(service: string, method: string, ...args: unknown[]): Promise<unknown> {
  const fn = w().go?.services?.[service]?.[method];
  if (!fn) return Promise.reject(new Error(`${service}.${method} is not available (no Wails backend)`));
  return fn(...args);
}

/** hasWails reports whether the page runs inside Wails (window or dev server). */
export function hasWails(): boolean {
  return Boolean(w().go?.services);
}

export function wailsApi(): Api {
  return {
    projects: {
      pickDirectory: async () => String((await call("ProjectService", "PickDirectory")) ?? ""),
      add: async (path) => toProject(await call("ProjectService", "Add", path)),
      list: async () => ((await call("ProjectService", "List")) as unknown[] | null ?? []).map(toProject),
      rename: async (id, name) => toProject(await call("ProjectService", "Rename", id, name)),
      remove: async (id) => {
        await call("ProjectService", "Remove", id);
      },
      setDefaultBackend: async (id, backend) =>
        toProject(await call("ProjectService", "SetDefaultBackend", id, backend)),
      setDefaultModel: async (id, model) => toProject(await call("ProjectService", "SetDefaultModel", id, model)),
    },
    tasks: {
      create: async (input: CreateTaskInput) => toTask(await call("TaskService", "Create", input)),
      list: async (projectId) => ((await call("TaskService", "List", projectId)) as unknown[] | null ?? []).map(toTask),
      get: async (id) => toTask(await call("TaskService", "Get", id)),
      remove: async (id) => {
        await call("TaskService", "Delete", id);
      },
    },
    settings: {
      getDefaultBackend: async () => String((await call("SettingsService", "GetDefaultBackend")) ?? ""),
      setDefaultBackend: async (b) => {
        await call("SettingsService", "SetDefaultBackend", b);
      },
      listBackends: async () => ((await call("SettingsService", "ListBackends")) as BackendInfo[] | null) ?? [],
    },
    sessions: {
      start: async (taskId) => {
        await call("SessionService", "Start", taskId);
      },
      markRead: async (taskId) => {
        await call("SessionService", "MarkRead", taskId);
      },
      setWindowFocused: async (focused) => {
        await call("SessionService", "SetWindowFocused", focused);
      },
      notificationSettings: async () =>
        ((await call("SessionService", "NotificationSettings")) as Record<string, boolean> | null) ?? {},
      setNotificationEnabled: async (kind, enabled) => {
        await call("SessionService", "SetNotificationEnabled", kind, enabled);
      },
    },
    events: {
      on(name, cb) {
        const rt = w().runtime;
        if (!rt) return () => {};
        return rt.EventsOnMultiple(name, (...data) => cb(data[0]), -1);
      },
    },
  };
}

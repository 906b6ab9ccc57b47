// The Api over the generated Wails bindings (./wailsjs, from `wails generate
// module`; never edited by hand): every call goes to a bound Go service, every
// subscription to the Wails event bus through the generated runtime.

import { toProject, toTask, type Api, type DBHealth } from "./api";
import type { BackendInfo, CreateTaskInput } from "./types";
import * as ProjectService from "./wailsjs/go/services/ProjectService";
import * as TaskService from "./wailsjs/go/services/TaskService";
import * as SettingsService from "./wailsjs/go/services/SettingsService";
import * as SessionService from "./wailsjs/go/services/SessionService";
import * as AppService from "./wailsjs/go/services/AppService";
import { bound, onEvent } from "./bound";
import { services } from "./wailsjs/go/models";
import { wailsInboxApi } from "../features/inbox/api";

/** hasWails reports whether the page runs inside Wails (window or dev server). */
export function hasWails(): boolean {
  return Boolean((window as unknown as { go?: { services?: unknown } }).go?.services);
}

export function wailsApi(): Api {
  return {
    app: {
      databaseHealth: async () => (await bound(AppService.DatabaseHealth, "AppService.DatabaseHealth")()) as unknown as DBHealth,
    },
    projects: {
      pickDirectory: bound(ProjectService.PickDirectory, "ProjectService.PickDirectory"),
      add: async (path) => toProject(await bound(ProjectService.Add, "ProjectService.Add")(path)),
      expandPath: bound(ProjectService.ExpandPath, "ProjectService.ExpandPath"),
      list: async () => ((await bound(ProjectService.List, "ProjectService.List")()) ?? []).map(toProject),
      rename: async (id, name) => toProject(await bound(ProjectService.Rename, "ProjectService.Rename")(id, name)),
      remove: bound(ProjectService.Remove, "ProjectService.Remove"),
      setDefaultBackend: async (id, b) => toProject(await bound(ProjectService.SetDefaultBackend, "ProjectService.SetDefaultBackend")(id, b)),
      setDefaultModel: async (id, m) => toProject(await bound(ProjectService.SetDefaultModel, "ProjectService.SetDefaultModel")(id, m)),
    },
    tasks: {
      create: async (input: CreateTaskInput) =>
        toTask(await bound(TaskService.Create, "TaskService.Create")(services.CreateTaskInput.createFrom(input))),
      list: async (projectId) => ((await bound(TaskService.List, "TaskService.List")(projectId)) ?? []).map(toTask),
      get: async (id) => toTask(await bound(TaskService.Get, "TaskService.Get")(id)),
      remove: bound(TaskService.Delete, "TaskService.Delete"),
      removeDiscardingChanges: bound(TaskService.DeleteDiscardingChanges, "TaskService.DeleteDiscardingChanges"),
    },
    settings: {
      getDefaultBackend: bound(SettingsService.GetDefaultBackend, "SettingsService.GetDefaultBackend"),
      setDefaultBackend: bound(SettingsService.SetDefaultBackend, "SettingsService.SetDefaultBackend"),
      getSummaryAgent: bound(SettingsService.GetSummaryAgent, "SettingsService.GetSummaryAgent"),
      setSummaryAgent: bound(SettingsService.SetSummaryAgent, "SettingsService.SetSummaryAgent"),
      listBackends: async () =>
        ((await bound(SettingsService.ListBackends, "SettingsService.ListBackends")()) ?? []) as unknown as BackendInfo[],
    },
    sessions: {
      start: bound(SessionService.Start, "SessionService.Start"),
      markRead: bound(SessionService.MarkRead, "SessionService.MarkRead"),
      setWindowFocused: bound(SessionService.SetWindowFocused, "SessionService.SetWindowFocused"),
      notificationSettings: async () =>
        ((await bound(SessionService.NotificationSettings, "SessionService.NotificationSettings")()) ?? {}) as Record<string, boolean>,
      setNotificationEnabled: bound(SessionService.SetNotificationEnabled, "SessionService.SetNotificationEnabled"),
    },
    inbox: wailsInboxApi,
    events: {
      on: (name, cb) => onEvent(name, cb),
    },
  };
}

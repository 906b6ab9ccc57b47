// Screens loaded on demand (issue 20): each is its own chunk, fetched the
// first time it is shown, so the first paint only needs the shell (sidebar,
// task list, welcome). The task view chunk carries the parts and markdown;
// the diff view (features/task-view/TaskView.tsx), Agents page and settings
// are separate chunks.

import { lazyScreen } from "./lib/lazyScreen";

export const TaskView = lazyScreen(() => import("./features/task-view/TaskView").then((m) => m.TaskView));
export const AgentsScreen = lazyScreen(() => import("./features/agents/AgentsScreen").then((m) => m.AgentsScreen));
export const SettingsScreen = lazyScreen(() => import("./features/settings/SettingsScreen").then((m) => m.SettingsScreen));
export const ProjectSettings = lazyScreen(() => import("./features/projects/ProjectSettings").then((m) => m.ProjectSettings));
export const NewTaskForm = lazyScreen(() => import("./features/tasks/NewTaskForm").then((m) => m.NewTaskForm));
export const HostsScreen = lazyScreen(() => import("./features/hosts/HostsScreen").then((m) => m.HostsScreen));
export const InboxView = lazyScreen(() => import("./features/inbox/InboxView").then((m) => m.InboxView));
export const UsageScreen = lazyScreen(() => import("./features/usage/UsageScreen").then((m) => m.UsageScreen));
export const CompareScreen = lazyScreen(() => import("./features/compare/CompareScreen").then((m) => m.CompareScreen));

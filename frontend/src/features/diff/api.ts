// GitApi is the diff view's door to the Go GitService. Components take it
// as a prop (or use wailsGitApi()), so tests and the e2e page supply fakes.
// The Wails implementations go through the generated bindings, wrapped in
// bridge/bound.ts.

import type {
  Branch,
  FileChange,
  MergeInput,
  MergeOutcome,
  ProjectGitSettings,
  TaskDiff,
  TaskGitInfo,
  TaskGitOptions,
  TaskGitStatus,
} from "./types";
import { call as bridgeCall, onEvent } from "../../bridge/bound";
import * as GitService from "../../bridge/wailsjs/go/services/GitService";

export interface GitApi {
  diff(taskId: string): Promise<TaskDiff>;
  fileDiff(taskId: string, path: string): Promise<FileChange>;
  status(taskId: string): Promise<TaskGitStatus>;
  commit(taskId: string, message: string): Promise<TaskGitInfo>;
  merge(taskId: string, input: MergeInput): Promise<MergeOutcome>;
  discard(taskId: string): Promise<TaskGitInfo>;
  /** onUpdated subscribes to "git:updated"; returns the unsubscribe. */
  onUpdated?(cb: (taskId: string) => void): () => void;
}

/** GitProjectApi: worktree settings of a project and per-task options. */
export interface GitProjectApi {
  branches(projectId: string): Promise<Branch[]>;
  projectSettings(projectId: string): Promise<ProjectGitSettings>;
  setProjectSettings(projectId: string, s: ProjectGitSettings): Promise<ProjectGitSettings>;
  /** setTaskOptions records the per-task choice; call it after TaskService.Create, before starting. */
  setTaskOptions(taskId: string, opts: TaskGitOptions): Promise<TaskGitInfo>;
  /** deleteTaskWorkspace removes the task's worktree before the task is deleted. */
  deleteTaskWorkspace(taskId: string, force: boolean): Promise<{ worktreeRemoved: boolean; branchDeleted: boolean; keptBranch?: string; reason?: string }>;
}

function call<T>(method: keyof typeof GitService, ...args: unknown[]): Promise<T> {
  return bridgeCall<T>(GitService[method], `GitService.${method}`, ...args);
}

/** wailsGitApi is the GitApi over the Wails bindings. */
export function wailsGitApi(): GitApi {
  return {
    diff: (taskId) => call<TaskDiff>("Diff", taskId),
    fileDiff: (taskId, path) => call<FileChange>("FileDiff", taskId, path),
    status: (taskId) => call<TaskGitStatus>("Status", taskId),
    commit: (taskId, message) => call<TaskGitInfo>("Commit", taskId, message),
    merge: (taskId, input) => call<MergeOutcome>("Merge", taskId, input),
    discard: (taskId) => call<TaskGitInfo>("Discard", taskId),
    onUpdated: (cb) =>
      onEvent<{ taskId?: string } | null>("git:updated", (payload) => {
        if (payload?.taskId) cb(payload.taskId);
      }),
  };
}

/** wailsGitProjectApi is the GitProjectApi over the Wails bindings. */
export function wailsGitProjectApi(): GitProjectApi {
  return {
    branches: async (projectId) => (await call<Branch[] | null>("Branches", projectId)) ?? [],
    projectSettings: (projectId) => call<ProjectGitSettings>("ProjectSettings", projectId),
    setProjectSettings: (projectId, s) => call<ProjectGitSettings>("SetProjectSettings", projectId, s),
    // The Go side takes *bool: null/undefined means "follow the project".
    setTaskOptions: (taskId, o) =>
      call<TaskGitInfo>("SetTaskOptions", taskId, { useWorktree: o.useWorktree ?? undefined, sourceBranch: o.sourceBranch }),
    deleteTaskWorkspace: (taskId, force) => call("DeleteTaskWorkspace", taskId, force),
  };
}

// The diff feature: a task's git worktree, its diff and the finishing
// actions, plus the project's worktree settings and the new-task option.
export { DiffView, type DiffViewProps, type DiffMode } from "./DiffView";
export { WorktreeSettings, TaskWorktreeOptions } from "./WorktreeSettings";
export { wailsGitApi, wailsGitProjectApi, type GitApi, type GitProjectApi } from "./api";
export type * from "./types";

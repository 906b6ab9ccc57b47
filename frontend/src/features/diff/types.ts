// Types of the GitService DTOs (backend/services/git.go, backend/gitx).

export type ChangeStatus =
  | "added"
  | "modified"
  | "deleted"
  | "renamed"
  | "copied"
  | "type-changed"
  | "unmerged";

/** FileChange is one changed path between the task's base and its files. */
export interface FileChange {
  path: string;
  oldPath?: string;
  status: ChangeStatus | string;
  similarity?: number;
  oldMode?: string;
  newMode?: string;
  binary: boolean;
  added: number;
  removed: number;
  /** The hunks, from the first "@@" line; "" for binary/rename-only/mode-only. */
  patch: string;
  /** The patch was left out of Diff (too large); FileDiff returns it. */
  patchOmitted?: boolean;
}

export interface TaskDiff {
  taskId: string;
  available: boolean;
  reason?: string;
  base: string;
  head: string;
  files: FileChange[] | null;
  added: number;
  removed: number;
  at: number;
}

export interface GitStatusCounts {
  branch: string;
  head: string;
  staged: number;
  unstaged: number;
  untracked: number;
  conflicted: number;
}

export interface TaskGitInfo {
  taskId: string;
  projectId: string;
  isGitRepo: boolean;
  useWorktree: boolean;
  useWorktreeOverride?: boolean | null;
  sourceBranch: string;
  worktreePath: string;
  branchName: string;
  baseCommit: string;
  headCommit: string;
  mergeCommit: string;
  mergedAt?: number | null;
  cwd: string;
}

export interface TaskGitStatus extends TaskGitInfo {
  hasWorktree: boolean;
  status: GitStatusCounts;
  clean: boolean;
  commitsAhead: number;
  canCommit: boolean;
  canMerge: boolean;
  mergeBlocked?: string;
}

export interface MergeInput {
  squash: boolean;
  noFastForward: boolean;
  message: string;
  removeWorktree: boolean;
}

export interface MergeOutcome {
  commit: string;
  fastForward: boolean;
  squashed: boolean;
  worktree?: string;
  into: string;
  worktreeRemoved: boolean;
  task: TaskGitInfo;
  warning?: string;
}

export interface Branch {
  name: string;
  commit: string;
  current: boolean;
  worktree?: string;
}

export interface ProjectGitSettings {
  projectId: string;
  isGitRepo: boolean;
  worktreesEnabled: boolean;
  /** "" = defaultWorktreeRoot. */
  worktreeRoot: string;
  defaultWorktreeRoot: string;
  /** "" = the branch checked out in the project. */
  defaultSourceBranch: string;
}

export interface TaskGitOptions {
  /** null follows the project setting. */
  useWorktree: boolean | null;
  /** "" = the project's default source branch. */
  sourceBranch: string;
}

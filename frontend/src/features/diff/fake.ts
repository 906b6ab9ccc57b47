// A scripted in-memory GitApi for tests, the e2e page and screenshots: a
// task worktree with one change of every kind (added, modified, deleted,
// renamed, binary, mode change) whose files can be changed between polls.

import type { GitApi, GitProjectApi } from "./api";
import type { Branch, FileChange, MergeInput, MergeOutcome, ProjectGitSettings, TaskDiff, TaskGitInfo, TaskGitStatus } from "./types";

export function demoFiles(): FileChange[] {
  return [
    {
      path: "src/auth/login.ts",
      status: "modified",
      oldMode: "100644",
      newMode: "100644",
      binary: false,
      added: 3,
      removed: 1,
      patch: [
        "@@ -10,6 +10,8 @@ export async function login(user: string, password: string) {",
        "   const res = await fetch(\"/api/login\", {",
        "     method: \"POST\",",
        "-    body: JSON.stringify({ user, password }),",
        "+    headers: { \"Content-Type\": \"application/json\" },",
        "+    body: JSON.stringify({ user, password }),",
        "+    credentials: \"include\",",
        "   });",
        "   if (!res.ok) throw new Error(`login failed: ${res.status}`);",
        "   return res.json();",
        "",
      ].join("\n"),
    },
    {
      path: "src/auth/session.ts",
      status: "added",
      newMode: "100644",
      binary: false,
      added: 4,
      removed: 0,
      patch: "@@ -0,0 +1,4 @@\n+export interface Session {\n+  user: string;\n+  expiresAt: number;\n+}\n",
    },
    {
      path: "docs/auth guide.md",
      oldPath: "docs/login.md",
      status: "renamed",
      similarity: 85,
      oldMode: "100644",
      newMode: "100644",
      binary: false,
      added: 1,
      removed: 1,
      patch: "@@ -1,3 +1,3 @@\n-# Login\n+# Authentication guide\n \n Call `login()` with the user's name and password.\n",
    },
    {
      path: "legacy/old-auth.js",
      status: "deleted",
      oldMode: "100644",
      binary: false,
      added: 0,
      removed: 2,
      patch: "@@ -1,2 +0,0 @@\n-module.exports = function auth() {}\n-// TODO remove\n",
    },
    { path: "assets/logo.png", status: "added", newMode: "100644", binary: true, added: 0, removed: 0, patch: "" },
    { path: "scripts/release.sh", status: "modified", oldMode: "100644", newMode: "100755", binary: false, added: 0, removed: 0, patch: "" },
  ];
}

export interface FakeGitApi extends GitApi {
  calls: { method: string; args: unknown[] }[];
  /** setFiles replaces the worktree's changes (as if the agent wrote). */
  setFiles(files: FileChange[]): void;
  /** failNext makes the next call of method reject with message. */
  failNext(method: string, message: string): void;
}

export function createFakeGitApi(taskId = "task-1", files: FileChange[] = demoFiles()): FakeGitApi {
  let current = files;
  let head = "b".repeat(40);
  let clean = false;
  let worktree = true;
  const fails = new Map<string, string>();
  const calls: FakeGitApi["calls"] = [];
  const info = (): TaskGitInfo => ({
    taskId,
    projectId: "p1",
    isGitRepo: true,
    useWorktree: true,
    sourceBranch: "main",
    worktreePath: worktree ? "/home/me/app.worktrees/fix-login-0123abcd" : "",
    branchName: worktree ? "jc/fix-login-0123abcd" : "",
    baseCommit: "a".repeat(40),
    headCommit: head,
    mergeCommit: "",
    cwd: "/home/me/app.worktrees/fix-login-0123abcd",
  });
  const track = async <T>(method: string, args: unknown[], fn: () => T): Promise<T> => {
    calls.push({ method, args });
    const msg = fails.get(method);
    if (msg !== undefined) {
      fails.delete(method);
      throw msg; // Wails rejects with the Go error's message string
    }
    return fn();
  };
  const sum = (k: "added" | "removed") => current.reduce((s, f) => s + f[k], 0);
  return {
    calls,
    setFiles(f) {
      current = f;
      clean = false;
    },
    failNext(method, message) {
      fails.set(method, message);
    },
    diff: (id) =>
      track("diff", [id], (): TaskDiff => ({
        taskId: id,
        available: true,
        base: "a".repeat(40),
        head,
        files: current,
        added: sum("added"),
        removed: sum("removed"),
        at: Date.now(),
      })),
    fileDiff: (id, path) =>
      track("fileDiff", [id, path], () => {
        const f = current.find((x) => x.path === path);
        if (!f) throw `${path}: no change`;
        return { ...f, patchOmitted: false };
      }),
    status: (id) =>
      track("status", [id], (): TaskGitStatus => ({
        ...info(),
        hasWorktree: worktree,
        status: { branch: "jc/fix-login-0123abcd", head, staged: 0, unstaged: clean ? 0 : 3, untracked: clean ? 0 : 2, conflicted: 0 },
        clean,
        commitsAhead: clean ? 1 : 0,
        canCommit: worktree && !clean,
        canMerge: worktree && clean,
        mergeBlocked: clean ? undefined : "commit or discard the uncommitted changes first",
      })),
    commit: (id, message) =>
      track("commit", [id, message], () => {
        head = "c".repeat(40);
        clean = true;
        return info();
      }),
    merge: (id, input: MergeInput) =>
      track("merge", [id, input], (): MergeOutcome => {
        if (input.removeWorktree) worktree = false;
        return { commit: head, fastForward: !input.squash, squashed: input.squash, into: "main", worktreeRemoved: input.removeWorktree, task: info() };
      }),
    discard: (id) =>
      track("discard", [id], () => {
        worktree = false;
        current = [];
        return info();
      }),
  };
}

export interface FakeGitProjectApi extends GitProjectApi {
  calls: { method: string; args: unknown[] }[];
  settings: ProjectGitSettings;
}

/** createFakeGitProjectApi validates like the Go service (absolute folder, known branch). */
export function createFakeGitProjectApi(isGitRepo = true): FakeGitProjectApi {
  const calls: FakeGitProjectApi["calls"] = [];
  const branches: Branch[] = [
    { name: "dev", commit: "d".repeat(40), current: false },
    { name: "main", commit: "a".repeat(40), current: true, worktree: "/home/me/app" },
  ];
  const api: FakeGitProjectApi = {
    calls,
    settings: {
      projectId: "p1",
      isGitRepo,
      worktreesEnabled: true,
      worktreeRoot: "",
      defaultWorktreeRoot: "/home/me/app.worktrees",
      defaultSourceBranch: "",
    },
    async branches(projectId) {
      calls.push({ method: "branches", args: [projectId] });
      return branches;
    },
    async projectSettings(projectId) {
      calls.push({ method: "projectSettings", args: [projectId] });
      return { ...api.settings };
    },
    async setProjectSettings(projectId, s) {
      calls.push({ method: "setProjectSettings", args: [projectId, s] });
      if (s.worktreeRoot && !s.worktreeRoot.startsWith("/")) throw "the worktree folder must be an absolute path";
      if (s.defaultSourceBranch && !branches.some((b) => b.name === s.defaultSourceBranch)) throw `branch "${s.defaultSourceBranch}": branch not found`;
      api.settings = { ...api.settings, ...s };
      return { ...api.settings };
    },
    async setTaskOptions(taskId, o) {
      calls.push({ method: "setTaskOptions", args: [taskId, o] });
      return {} as TaskGitInfo;
    },
    async deleteTaskWorkspace(taskId, force) {
      calls.push({ method: "deleteTaskWorkspace", args: [taskId, force] });
      return { worktreeRemoved: true, branchDeleted: true };
    },
  };
  return api;
}

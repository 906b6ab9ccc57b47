// Git worktrees end to end through the Wails bridge: GitService (bound in
// main.go) prepares a task's worktree next to a real repository, sees the
// files an "agent" writes (added, modified, deleted, renamed, binary),
// commits with a message, merges into main, and refuses to delete a dirty
// worktree until forced — each step checked on disk with git.

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, assert, assertEqual } from "../lib/runner.mjs";

const ident = ["-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"];
const git = (cwd, ...args) => execFileSync("git", [...ident, ...args], { cwd, encoding: "utf8" }).trim();

async function projectAndTask(page, repo, name) {
  return page.evaluate(
    async ({ path, name }) => {
      const svc = window.go.services;
      const projects = await svc.ProjectService.List();
      const p = projects.find((x) => x.path === path) ?? (await svc.ProjectService.Add(path));
      const t = await svc.TaskService.Create({ projectId: p.id, prompt: `do ${name}`, name });
      return { projectId: p.id, taskId: t.id };
    },
    { path: repo, name },
  );
}

const gitCall = (page, method, ...args) =>
  page.evaluate(({ method, args }) => window.go.services.GitService[method](...args), { method, args });

test("git: worktree per task, diff of every kind of change, commit and merge over the bridge", async ({ page, open, makeRepo }) => {
  await open();
  const repo = makeRepo("git-flow");
  writeFileSync(join(repo, "old name.md"), "one\ntwo\nthree\nfour\nfive\n");
  writeFileSync(join(repo, "gone.txt"), "bye\n");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "more");
  // The app runs with a fresh HOME: give the repository an identity (a
  // missing one is reported by Commit as git's "Author identity unknown").
  git(repo, "config", "user.name", "e2e");
  git(repo, "config", "user.email", "e2e@example.invalid");

  const { taskId } = await projectAndTask(page, repo, "Tidy docs");
  const info = await gitCall(page, "PrepareTaskWorktree", taskId);
  const wt = info.worktreePath;
  assert(wt && !wt.startsWith(repo + "/") && wt !== repo, `worktree outside the repository: ${wt}`);
  assertEqual(info.cwd, wt, "the agent's cwd is the worktree");
  assertEqual(info.sourceBranch, "main", "source branch");
  assert(/^jc\/tidy-docs-[0-9a-f]{8}$/.test(info.branchName), `branch named after the task: ${info.branchName}`);
  assertEqual(git(wt, "branch", "--show-current"), info.branchName, "worktree on the task branch");
  assertEqual(info.baseCommit, git(repo, "rev-parse", "main"), "base commit is main's tip");

  // The "agent" writes.
  const readmeBefore = readFileSync(join(wt, "README.md"), "utf8");
  writeFileSync(join(wt, "README.md"), readmeBefore + "\nA line from the agent.\n");
  writeFileSync(join(wt, "notes.txt"), "new file\n");
  rmSync(join(wt, "gone.txt"));
  renameSync(join(wt, "old name.md"), join(wt, "new name.md"));
  writeFileSync(join(wt, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));

  const d = await gitCall(page, "Diff", taskId);
  assert(d.available, `diff available: ${d.reason}`);
  const seen = d.files.map((f) => `${f.status}:${f.oldPath ? f.oldPath + "->" : ""}${f.path}:+${f.added}-${f.removed}${f.binary ? ":bin" : ""}`).sort();
  assertEqual(
    JSON.stringify(seen),
    JSON.stringify([
      "added:logo.png:+0-0:bin",
      "added:notes.txt:+1-0",
      "deleted:gone.txt:+0-1",
      "modified:README.md:+2-0",
      "renamed:old name.md->new name.md:+0-0",
    ]),
    "diff files",
  );
  const readme = d.files.find((f) => f.path === "README.md");
  assertEqual(readme.patch, `@@ -1 +1,3 @@\n ${readmeBefore.trimEnd()}\n+\n+A line from the agent.\n`, "README patch");
  // Diff used a scratch index: the worktree's real index is unchanged.
  const indexed = git(wt, "ls-files").split("\n");
  assert(indexed.includes("gone.txt") && !indexed.includes("notes.txt"), `real index untouched: ${indexed.join(", ")}`);

  // Delete refused while dirty: nothing removed.
  const refused = await gitCall(page, "DeleteTaskWorkspace", taskId, false).then(
    () => null,
    (e) => String(e?.message ?? e),
  );
  assert(refused && /uncommitted changes/.test(refused), `dirty delete refused with a clear message: ${refused}`);
  assert(existsSync(join(wt, "notes.txt")), "refused delete kept the files");

  // Commit with the user's message, merge into main.
  const committed = await gitCall(page, "Commit", taskId, "Tidy the docs\n\nfrom e2e");
  assertEqual(git(wt, "log", "-1", "--format=%s"), "Tidy the docs", "commit subject on disk");
  assertEqual(committed.headCommit, git(wt, "rev-parse", "HEAD"), "head recorded");
  assertEqual(git(wt, "status", "--porcelain"), "", "worktree clean after commit");
  const st = await gitCall(page, "Status", taskId);
  assert(st.canMerge && st.commitsAhead === 1, `merge possible: ${JSON.stringify(st)}`);
  const merged = await gitCall(page, "Merge", taskId, { squash: false, noFastForward: false, message: "", removeWorktree: true });
  assert(merged.fastForward && merged.worktreeRemoved, `merged: ${JSON.stringify(merged)}`);
  assertEqual(readFileSync(join(repo, "notes.txt"), "utf8"), "new file\n", "main worktree has the task's file");
  assertEqual(git(repo, "status", "--porcelain"), "", "main worktree clean");
  assert(!existsSync(wt), "worktree removed after merge");
  assertEqual(git(repo, "branch", "--list", "jc/*"), "", "task branch deleted");
});

test("git: two tasks in parallel are isolated; a forced delete removes only its own worktree", async ({ page, open, makeRepo }) => {
  await open();
  const repo = makeRepo("git-parallel");
  const a = await projectAndTask(page, repo, "Task A");
  const b = await projectAndTask(page, repo, "Task B");
  const [ia, ib] = await Promise.all([gitCall(page, "PrepareTaskWorktree", a.taskId), gitCall(page, "PrepareTaskWorktree", b.taskId)]);
  assert(ia.worktreePath !== ib.worktreePath && ia.branchName !== ib.branchName, "separate worktrees and branches");
  writeFileSync(join(ia.worktreePath, "a.txt"), "a\n");
  writeFileSync(join(ib.worktreePath, "b.txt"), "b\n");
  const [da, db] = await Promise.all([gitCall(page, "Diff", a.taskId), gitCall(page, "Diff", b.taskId)]);
  assertEqual(da.files.map((f) => f.path).join(","), "a.txt", "task A sees only its file");
  assertEqual(db.files.map((f) => f.path).join(","), "b.txt", "task B sees only its file");

  const removed = await gitCall(page, "DeleteTaskWorkspace", a.taskId, true);
  assert(removed.worktreeRemoved, "forced delete removed the worktree");
  assert(!existsSync(ia.worktreePath), "task A's worktree is gone");
  assertEqual(readFileSync(join(ib.worktreePath, "b.txt"), "utf8"), "b\n", "task B's worktree untouched");
  assertEqual(git(repo, "status", "--porcelain"), "", "main worktree untouched");

  // Hostile input is refused by the service, not passed to git as options.
  const bad = await page.evaluate(async (id) => {
    try {
      await window.go.services.GitService.SetTaskOptions(id, { sourceBranch: "--foo" });
      return "accepted";
    } catch (e) {
      return String(e?.message ?? e);
    }
  }, b.taskId);
  assert(/already started|branch/i.test(bad) && bad !== "accepted", `hostile source branch refused: ${bad}`);
  const badPath = await gitCall(page, "FileDiff", b.taskId, "../../etc/passwd").then(
    () => "accepted",
    (e) => String(e?.message ?? e),
  );
  assert(/invalid file path/.test(badPath), `path outside the worktree refused: ${badPath}`);
});

// Diff view end to end: a task's worktree made by the real GitService
// (through the Wails bridge), files written into it as an agent would,
// the diff view in the task view showing them (tree with +/- counts,
// unified and side-by-side, binary/renamed/deleted markers, live refresh),
// then commit with an edited message and merge into main — checked on disk.
// Screenshots go to frontend/test-results/diff-view-*.png.

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { test, assert, assertEqual } from "../lib/runner.mjs";
import { FRONTEND } from "../lib/app.mjs";

const shots = join(FRONTEND, "test-results");
mkdirSync(shots, { recursive: true });
const git = (cwd, ...args) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

test("diff view: worktree changes, both layouts, commit and merge", async ({ page, open, makeRepo }) => {
  await open();
  const repo = makeRepo("diff-view");
  writeFileSync(join(repo, "old name.md"), "one\ntwo\nthree\nfour\nfive\n");
  writeFileSync(join(repo, "gone.txt"), "bye\n");
  // The e2e HOME has no git identity; a user's machine has one. Commits made
  // from the diff view (in the task's worktree) read the repository's config.
  git(repo, "config", "user.name", "e2e");
  git(repo, "config", "user.email", "e2e@example.invalid");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "more");

  // Project and task through the services; the worktree through GitService.
  const { projectId, taskId } = await page.evaluate(async (path) => {
    const p = await window.go.services.ProjectService.Add(path);
    const t = await window.go.services.TaskService.Create({ projectId: p.id, prompt: "Tidy the docs", name: "Tidy docs" });
    return { projectId: p.id, taskId: t.id };
  }, repo);
  const info = await page.evaluate((id) => window.go.services.GitService.PrepareTaskWorktree(id), taskId);
  assert(info.worktreePath && info.worktreePath !== repo, `a worktree outside the repository: ${JSON.stringify(info)}`);
  assertEqual(info.sourceBranch, "main", "source branch");
  const wt = info.worktreePath;

  // The "agent" writes.
  writeFileSync(join(wt, "README.md"), "# diff-view\n\nA line from the agent.\n");
  writeFileSync(join(wt, "notes.txt"), "new file\n");
  rmSync(join(wt, "gone.txt"));
  renameSync(join(wt, "old name.md"), join(wt, "new name.md"));
  writeFileSync(join(wt, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));

  // Open the task, then its diff view.
  await page.reload();
  await page.locator(".jc-app[data-ready]").waitFor();
  await page.getByRole("navigation", { name: "Projects" }).getByTestId("project-item").filter({ hasText: "diff-view" }).click();
  await page.getByTestId("task-row").filter({ hasText: "Tidy docs" }).click();
  await page.getByRole("button", { name: "Diff", exact: true }).click();
  const view = page.getByTestId("diff-view");
  const tree = view.getByRole("tree", { name: "Changed files" });
  await tree.getByText("notes.txt").waitFor();
  const totals = (await view.getByTestId("diff-totals").innerText()).replace(/\s+/g, " ");
  assertEqual(totals, "+4 −2 in 5 files", "totals"); // README: 1 line → 3; notes.txt +1; gone.txt −1
  assert((await tree.getByText("new name.md").getAttribute("title")) === null, "name cell");
  const renamed = tree.getByRole("treeitem").filter({ hasText: "new name.md" });
  assert(/renamed from old name\.md/.test(await renamed.getAttribute("title")), "rename marker");
  assertEqual(await tree.getByRole("treeitem").filter({ hasText: "logo.png" }).locator(".jc-diff-tag").innerText(), "bin", "binary tag");

  await tree.getByText("README.md").click();
  const unified = view.getByTestId("diff-unified");
  await unified.waitFor();
  assertEqual(await unified.locator("tr.is-add").count(), 3, "README added lines");
  await page.screenshot({ path: join(shots, "diff-view-unified.png") });
  await view.getByRole("button", { name: "Side by side" }).click();
  await view.getByTestId("diff-split").waitFor();
  await page.screenshot({ path: join(shots, "diff-view-split.png") });

  // Live refresh: another write shows up without a click.
  writeFileSync(join(wt, "later.txt"), "written while the view is open\n");
  await tree.getByText("later.txt").waitFor({ timeout: 10000 });

  // Commit with an edited message, then merge into main.
  await view.getByLabel("Commit message").fill("Tidy the docs");
  await view.getByRole("button", { name: "Commit all changes" }).click();
  await view.getByText(/^Committed /).waitFor();
  assertEqual(git(wt, "log", "-1", "--format=%s"), "Tidy the docs", "commit message on disk");
  assertEqual(git(wt, "status", "--porcelain"), "", "worktree clean after commit");
  const merge = view.getByRole("button", { name: "Merge into main" });
  await page.waitForFunction(() => !document.querySelector("[data-testid=diff-view] .jc-diff-merge button")?.disabled);
  await merge.click();
  await view.getByText(/^Merged into main/).waitFor();
  assertEqual(readFileSync(join(repo, "notes.txt"), "utf8"), "new file\n", "merged into the main worktree");
  assert(!existsSync(wt), "worktree removed after merge");
  assertEqual(git(repo, "status", "--porcelain"), "", "main worktree clean");
  void projectId;
});

// Issue 17 parts 3-4 end to end, with the replaying fake Claude Code:
// - three agents on one prompt (the fake told apart by its --model), each in
//   its own worktree; the project's check command (set in the project
//   settings, argv without a shell) runs in each as it finishes; the
//   comparison shows them side by side; "Keep this one" merges it into main
//   and, once confirmed, removes the other worktrees and branches from disk;
// - a usage limit ("Claude AI usage limit reached|<epoch>") shows a live
//   countdown above the task, and at the reset the last message is sent
//   again by itself; the usage dashboard charts the turns.
// Screenshots: frontend/test-results/compare-*.png, limit-*.png, usage-*.png.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, assert, assertEqual } from "../lib/runner.mjs";
import { FRONTEND } from "../lib/app.mjs";
import { addProject, until } from "../lib/ui.mjs";

const shots = join(FRONTEND, "test-results");
mkdirSync(shots, { recursive: true });

const ident = ["-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"];
const git = (cwd, ...args) => execFileSync("git", [...ident, ...args], { cwd, encoding: "utf8" }).trim();

test("compare: three agents, a check command in each worktree, keep one and the others leave the disk", async ({ page, open, makeRepo }) => {
  await open();
  const repo = makeRepo("compare");
  git(repo, "config", "user.name", "e2e");
  git(repo, "config", "user.email", "e2e@example.invalid");
  // The fake's wrapper sources this file in the agent's working directory
  // (its worktree) with the CLI's arguments: each model writes its answer.
  writeFileSync(
    join(repo, ".fake-claude.env"),
    `case " $* " in
  *" --model=m-good "*) printf 'good\\n' > answer.txt ;;
  *" --model=m-bad "*) printf 'bad\\n' > answer.txt ;;
  *" --model=m-more "*) printf 'good\\nand more\\n' > answer.txt ;;
esac
FAKE_CLAUDE_LINE_DELAY=30ms
`,
  );
  git(repo, "add", ".fake-claude.env");
  git(repo, "commit", "-q", "-m", "fake agents");
  await addProject(page, repo);

  // The check command, in the project settings.
  await page.getByRole("button", { name: "Project settings" }).click();
  const check = page.getByTestId("check-command");
  await check.getByLabel("Check command").fill(`grep -q "^good" answer.txt`);
  await check.getByRole("button", { name: "Save check" }).click();
  await check.getByRole("button", { name: "Saved" }).waitFor();

  // Run on several agents.
  await page.getByRole("button", { name: "New task" }).click();
  await page.getByLabel("Prompt").fill("Write answer.txt");
  await page.getByLabel("Run on several agents").check();
  const agents = page.getByTestId("compare-agents");
  await agents.getByRole("button", { name: "Add an agent" }).click();
  for (const [i, model] of [[1, "m-good"], [2, "m-bad"], [3, "m-more"]]) {
    await agents.getByLabel(`Agent ${i}`).selectOption("claude-code");
    await agents.getByLabel(`Model ${i}`).fill(model);
  }
  await page.getByRole("button", { name: "Run on 3 agents" }).click();

  const screen = page.getByTestId("compare-screen");
  await screen.waitFor();
  const members = screen.getByTestId("compare-member");
  await until("three checks done", async () => {
    const got = await members.getByTestId("check").evaluateAll((els) => els.map((e) => e.getAttribute("data-check")).join(","));
    return got === "passed,failed,passed" || got;
  }, 60000);
  assertEqual(await members.count(), 3, "three columns");
  const files = await members.getByTestId("files").allTextContents();
  assertEqual(files.map((t) => t.replace(/\s+/g, " ").trim()).join(" | "), "1 +1 −0 | 1 +1 −0 | 1 +2 −0", "files changed per agent");
  assert((await members.nth(1).getByTestId("check").textContent()).includes("exit 1"), "the failed check says its exit status");
  for (const c of await members.getByTestId("cost").allTextContents()) assert(c.startsWith("$"), `cost shown: ${c}`);

  // Where each worktree is, before keeping one.
  const groupId = await page.evaluate(async () => {
    const tasks = await window.go.services.TaskService.List((await window.go.services.ProjectService.List()).find((p) => p.name.startsWith("compare")).id);
    return window.go.services.CompareService.GroupOfTask(tasks[0].id);
  });
  const view = await page.evaluate((id) => window.go.services.CompareService.Get(id), groupId);
  const paths = view.members.map((m) => m.worktreePath);
  assert(paths.every((p) => p && existsSync(p) && p !== repo), `three worktrees on disk: ${paths}`);
  assertEqual(view.members.map((m) => m.check.output === "" && m.check.command === `grep -q "^good" answer.txt`).join(), "true,true,true", "check runs kept");

  await members.nth(2).getByRole("button", { name: "Show diff" }).click();
  await page.screenshot({ path: join(shots, "compare-view.png") });

  await members.nth(2).getByRole("button", { name: "Keep this one" }).click();
  const confirm = page.getByTestId("keep-confirm");
  await confirm.waitFor();
  await page.screenshot({ path: join(shots, "compare-confirm.png") });
  await confirm.getByRole("button", { name: "Keep it, remove the others" }).click();
  await page.getByTestId("keep-outcome").waitFor({ timeout: 30000 });
  await members.nth(2).getByTestId("kept").waitFor();
  await page.screenshot({ path: join(shots, "compare-kept.png") });

  assertEqual(git(repo, "show", "main:answer.txt"), "good\nand more", "the kept answer is merged into main");
  assertEqual(git(repo, "branch", "--format=%(refname:short)"), "main", "every task branch is gone");
  for (const p of paths) assert(!existsSync(p), `worktree removed from disk: ${p}`);
}, { timeoutMs: 120000 });

test("usage limit: a countdown to the reset, then the last message is sent again by itself; the dashboard", async ({ page, open, makeRepo, fakeClaude, app }) => {
  await open();
  const repo = makeRepo("limits");
  const reset = Math.ceil(Date.now() / 1000) + 40;
  const session = "limit-session";
  const lines = [
    { type: "system", subtype: "init", cwd: ".", session_id: session, tools: ["Bash"], model: "claude-fake", permissionMode: "default", uuid: "l-1" },
    {
      type: "assistant",
      message: { id: "msg_limit", type: "message", role: "assistant", model: "<synthetic>", content: [{ type: "text", text: `Claude AI usage limit reached|${reset}` }] },
      session_id: session, uuid: "l-2", error: "rate_limit", isApiErrorMessage: true,
    },
    {
      type: "result", subtype: "success", is_error: true, duration_ms: 5, num_turns: 1, result: `Claude AI usage limit reached|${reset}`,
      session_id: session, total_cost_usd: 0, usage: { input_tokens: 0, output_tokens: 0 }, uuid: "l-3",
    },
  ];
  const script = join(app.tmp, "limit-script.jsonl");
  writeFileSync(script, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  fakeClaude(repo, { FAKE_CLAUDE_SCRIPT: script });
  await page.evaluate(() => window.go.services.UsageService.SetAutoRetry(true));
  await addProject(page, repo);
  await page.getByRole("button", { name: "New task" }).click();
  await page.getByLabel("Backend", { exact: true }).selectOption("claude-code");
  await page.getByLabel("Prompt").fill("Finish the report");
  await page.getByRole("button", { name: "Create task" }).click();

  const banner = page.getByTestId("limit-banner");
  await banner.waitFor({ timeout: 30000 });
  console.log(`        banner after ${Math.round(reset - Date.now() / 1000)} s before the reset`);
  assertEqual(await banner.getAttribute("data-state"), "waiting", "counting down");
  const count = banner.getByTestId("limit-countdown");
  const first = await count.textContent();
  assert(/^\d+s$/.test(first), `countdown in seconds: ${first}`);
  await until("the countdown ticks", async () => (await count.textContent()) !== first || (await count.textContent()));
  await page.screenshot({ path: join(shots, "limit-countdown.png") });

  // At the reset the scheduler sends the last message again; the fake answers it.
  await until("retried", async () => (await banner.getAttribute("data-state")) === "retried" || (await banner.getAttribute("data-state")), 60000);
  assert(Date.now() / 1000 >= reset - 0.5, "not retried before the reset");
  await page.locator(".jc-main").getByText("You said: Finish the report").first().waitFor({ timeout: 15000 });
  await page.screenshot({ path: join(shots, "limit-retried.png") });

  // The dashboard.
  await page.getByRole("button", { name: "Usage", exact: true }).click();
  const usage = page.getByTestId("usage-screen");
  await usage.getByTestId("usage-table").waitFor();
  await usage.getByTestId("usage-chart").locator("canvas").waitFor();
  const table = await usage.getByTestId("usage-table").textContent();
  assert(table.includes("claude-code") && table.includes("limits"), `usage per project and agent: ${table}`);
  await page.screenshot({ path: join(shots, "usage-dashboard.png") });
}, { timeoutMs: 120000 });

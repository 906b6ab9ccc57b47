// The app's MCP server (issue 18) end to end: the fake Claude Code
// (FAKE_CLAUDE_MCP_PROGRESS) reads the --mcp-config file the app wrote,
// calls report_progress on the app's server with its per-task token, and
// the task view shows the tool call (named "Jean-Claude · report progress")
// and the progress report as a status line. Screenshots (light and dark):
// docs/screenshots/mcp-progress-*.png.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test, assert } from "../lib/runner.mjs";
import { REPO } from "../lib/app.mjs";
import { addProject, createTask } from "../lib/ui.mjs";

const shots = join(REPO, "docs/screenshots");
mkdirSync(shots, { recursive: true });
const PROGRESS = "Read the code and ran the tests: 42 pass. Writing the docs next.";

test("mcp: a progress report sent through the app's MCP server shows on the task", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const repo = makeRepo("mcp-progress");
  fakeClaude(repo, { FAKE_CLAUDE_MCP_PROGRESS: `'${PROGRESS}'` });
  await addProject(page, repo);
  const view = await createTask(page, { prompt: "Fix the failing tests and tell me how it goes", name: "Fix the tests, reporting progress", backend: "claude-code" });
  await view.getByTestId("result-summary").first().waitFor({ timeout: 30000 });
  const status = view.locator('.jc-part--status[title="progress"]');
  await status.first().waitFor({ timeout: 15000 });
  assert((await status.first().innerText()).includes(PROGRESS), "the progress report is a status line on the task");
  const tool = view.locator(".jc-tool").filter({ hasText: "report progress" }).first();
  await tool.waitFor({ timeout: 15000 });
  const row = await tool.innerText();
  assert(row.includes("Jean-Claude") && !row.includes("mcp__"), `the MCP tool row names server and tool: ${row}`);
  assert((await tool.getAttribute("data-state")) === "completed", "the MCP tool call completed");
  const results = await view.getByTestId("result-summary").count();
  assert(results === 1, `one turn, one result row (got ${results})`);
  // The live view shows rows as the dev server's websocket delivered them
  // (not always in order); the screenshots show the task as stored: reload.
  await page.reload();
  await page.locator(".jc-app[data-ready]").waitFor();
  await page.getByText("Fix the tests, reporting progress").first().click();
  await page.getByTestId("task-view").getByTestId("result-summary").first().waitFor({ timeout: 15000 });
  const rows = await page.getByTestId("task-view").locator(".jc-tool, .jc-part--status, .jc-result").allInnerTexts();
  // The tool call's line reaches the app on the agent's stdout (through its
  // relay, by default) and the progress over MCP's HTTP: which is stored
  // first is not defined, only that both come before the turn's result.
  const toolAt = rows.findIndex((r) => r.includes("report progress") && r.includes("Used"));
  const progressAt = rows.findIndex((r) => r.includes(PROGRESS) && !r.includes("Used"));
  assert(rows.length === 3 && toolAt >= 0 && progressAt >= 0 && toolAt !== progressAt && rows[2].includes("Done"), `stored rows: ${rows}`);
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
    await page.waitForTimeout(150);
    await page.screenshot({ path: join(shots, `mcp-progress-${theme}.png`) });
  }
});

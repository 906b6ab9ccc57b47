// Search end to end (issue 16): a fake Claude Code run writes 300 long
// messages, one of them (far above the bottom the task opens at, older
// than the newest page the view loads: issue 20) holding a unique word;
// opened, the task shows its newest page and loads the older one when
// scrolled to the top, keeping its place; Ctrl+K opens the search, typing
// finds it with the match highlighted, a click opens the task scrolled to
// that message; "Fork from here" on it makes a new task linked both ways.
// Screenshots: frontend/test-results/search-*.png.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, assert, assertEqual } from "../lib/runner.mjs";
import { FRONTEND, REPO } from "../lib/app.mjs";
import { tempDir } from "../lib/tmp.mjs";

const shots = join(FRONTEND, "test-results");
mkdirSync(shots, { recursive: true });
const WORD = "zanzibarQuokka";
const N = 300; // messages: more than the view's page (TaskView PAGE_SIZE, 200)

// longRun builds a one-turn Claude Code stream-json script from a real
// recording: its init line, N assistant text messages, its result line.
function longRun() {
  const lines = readFileSync(join(REPO, "backend/agent/agenttest/testdata/claude/bidi_main_bypass.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const init = lines.find((l) => l.type === "system" && l.subtype === "init");
  const text = lines.find((l) => l.type === "assistant" && l.message.content[0].type === "text");
  const result = lines.find((l) => l.type === "result");
  const out = [init];
  for (let i = 0; i < N; i++) {
    const m = structuredClone(text);
    m.message.id = `msg_e2e_search_${i}`;
    m.uuid = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    const body = Array.from({ length: 6 }, (_, k) => `Paragraph ${i}.${k}: the agent explains step ${i} of the refactor in some detail.`).join("\n\n");
    m.message.content = [{ type: "text", text: i === 12 ? `${body}\n\nThe hidden marker is ${WORD} in parse_config_file.` : body }];
    out.push(m);
  }
  out.push(result);
  const dir = tempDir("jc-e2e-search-");
  const file = join(dir, "long.jsonl");
  writeFileSync(file, out.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return file;
}

test("search: Ctrl+K finds a message in any task and opens the task scrolled to it", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const repo = makeRepo("search-demo");
  fakeClaude(repo, { FAKE_CLAUDE_SCRIPT: longRun() });
  const nav = page.getByRole("navigation", { name: "Projects" });
  await nav.getByRole("button", { name: "Add project" }).click();
  const dialog = page.getByRole("dialog", { name: "Add project" });
  await dialog.getByLabel("Project folder").fill(repo);
  await dialog.getByRole("button", { name: "Add project" }).click();
  await dialog.waitFor({ state: "detached" });
  await page.getByRole("button", { name: "New task" }).click();
  await page.getByLabel("Prompt").fill("Explain the refactor");
  await page.getByLabel("Name").fill("Long run");
  await page.getByLabel("Backend", { exact: true }).selectOption("claude-code");
  const start = page.getByLabel("Start the agent now");
  if (!(await start.isChecked())) await start.check();
  await page.getByRole("button", { name: "Create task" }).click();
  const view = page.getByTestId("task-view");
  // Done when the task list shows it idle (the result row may be scrolled out of the virtualized list).
  await page.locator('[data-testid="task-row"] [data-status="idle"]').first().waitFor({ timeout: 120000 });

  // The task opens at its newest page; the top of the list loads the older
  // one and the row that was on top stays in view.
  await page.getByTestId("task-row").first().click();
  const stream = view.getByTestId("message-stream");
  await stream.waitFor();
  const rows0 = Number(await stream.getAttribute("data-rows"));
  assert(rows0 > 100 && rows0 < N, `the view opened with its newest page (${rows0} rows of ${N + 2} messages)`);
  const taskId = await view.getAttribute("data-task-id");
  // The newest page's oldest message: the top row before the older page comes.
  const topId = await page.evaluate(async (id) => (await window.go.services.SessionService.MessagePage(id, -1, 200, "")).messages[0].id, taskId);
  await stream.evaluate((el) => (el.scrollTop = 0));
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid="message-stream"]').dataset.rows) > n, rows0, { timeout: 10000 });
  await page.waitForTimeout(400);
  const kept = await stream.evaluate((el, id) => {
    const r = id && el.querySelector(`.jc-stream__row[data-message-id="${id}"]`)?.getBoundingClientRect();
    const s = el.getBoundingClientRect();
    return { scrollTop: el.scrollTop, inView: !!r && r.bottom > s.top && r.top < s.bottom };
  }, topId);
  assert(kept.scrollTop > 500 && kept.inView, `the older page came above the view, which kept its place: ${JSON.stringify(kept)} (top row ${topId})`);
  assert(!(await page.locator(".jc-jump").isVisible()), "older messages are not counted as new ones");
  await page.screenshot({ path: join(shots, "search-older-page.png") });

  // Leave the task, then search from anywhere.
  await page.getByRole("button", { name: "New task" }).click();
  await page.keyboard.press("Control+k");
  const search = page.getByRole("dialog", { name: "Search all tasks" });
  await search.getByLabel("Search").fill("zanzibar");
  const hit = search.getByRole("listbox", { name: "Results" }).getByRole("option").first();
  await hit.waitFor({ timeout: 10000 });
  assertEqual(await hit.locator("mark").first().innerText(), WORD, "the match is highlighted");
  assert((await hit.innerText()).includes("Long run"), "the hit names its task");
  await search.getByLabel("Role").selectOption("assistant");
  await hit.waitFor();
  await page.screenshot({ path: join(shots, "search-results.png") });

  await hit.click();
  await search.waitFor({ state: "detached" });
  const row = view.locator('.jc-stream__row[data-focused="true"]');
  await row.waitFor({ timeout: 10000 });
  await page.screenshot({ path: join(shots, "search-opened-flash.png") });
  await page.waitForTimeout(400); // measured rows settle
  assert((await row.innerText()).includes(WORD), "the focused row is the hit's message");
  const inView = await row.evaluate((el) => {
    const s = el.closest(".jc-stream").getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.bottom > s.top && r.top < s.bottom;
  });
  assert(inView, "the message is in view");
  const marker = view.getByText(WORD, { exact: false });
  assert(await marker.isVisible(), "the marker text is visible");
  await page.screenshot({ path: join(shots, "search-opened.png") });

  // Fork from that message: a new task linked both ways.
  await row.hover();
  await row.getByRole("button", { name: "Fork from here" }).click();
  const forkDialog = page.getByRole("dialog", { name: "Fork from here" });
  await forkDialog.getByLabel("Prompt").fill("Summarize the refactor");
  await forkDialog.getByRole("button", { name: "Fork and start" }).click();
  await forkDialog.waitFor({ state: "detached" });
  const links = page.getByTestId("task-links");
  await links.getByText("Forked from").waitFor({ timeout: 15000 });
  await page.screenshot({ path: join(shots, "search-forked.png") });
  await links.getByRole("button", { name: "Long run" }).click();
  await page.getByTestId("task-links").getByRole("button", { name: /Fork of Long run/ }).waitFor({ timeout: 15000 });
}, { timeoutMs: 300000 });

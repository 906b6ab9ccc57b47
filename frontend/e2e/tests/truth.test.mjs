// Issues 22 and 23 end to end, through the dev binary and the fake Claude
// Code: Stop reads as stopped (not failed) and a message queued before it
// offers "Send now"; an "always" rule edited to a prefix covers a second,
// different command; each turn shows its own cost; sending brings the
// stream to the bottom; links open in the browser (xdg-open), a file: link
// is refused, file paths open in the editor at their line (`code -g`), and
// the task's "Open in…" actions run the terminal and the file manager — the
// webview's URL never changes.
//
// At import this puts fake `xdg-open`, `code` and `x-terminal-emulator` on
// the app's PATH; each appends what it was called with to a log.

import { writeFileSync, chmodSync, readFileSync, existsSync, mkdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { test, assert, assertEqual } from "../lib/runner.mjs";
import { FRONTEND } from "../lib/app.mjs";
import { tempDir } from "../lib/tmp.mjs";
import { addProject, createTask } from "../lib/ui.mjs";

const bin = tempDir("jc-e2e-openers-");
const LOG = join(bin, "calls.log");
for (const name of ["xdg-open", "code", "x-terminal-emulator"]) {
  const p = join(bin, name);
  // Each echo is its own write: "--" ends a call, so a call is read only once whole.
  writeFileSync(p, `#!/bin/sh\n{ echo "== ${name}"; echo "cwd=$PWD"; for a in "$@"; do echo "arg=$a"; done; echo "--"; } >> '${LOG}'\n`);
  chmodSync(p, 0o755);
}
process.env.PATH = `${bin}:${process.env.PATH}`;
const RULES = join(FRONTEND, "e2e/testdata/claude-rules.jsonl");
const shots = join(FRONTEND, "test-results");
mkdirSync(shots, { recursive: true });

/** calls returns the recorded calls, each once written whole: [{ name, cwd, args }]. */
function calls() {
  if (!existsSync(LOG)) return [];
  const out = [];
  let call;
  for (const line of readFileSync(LOG, "utf8").split("\n")) {
    if (line.startsWith("== ")) call = { name: line.slice(3), cwd: "", args: [] };
    else if (line.startsWith("cwd=")) call.cwd = line.slice(4);
    else if (line.startsWith("arg=")) call.args.push(line.slice(4));
    else if (line === "--") out.push(call);
  }
  return out;
}

async function waitCall(page, n, what) {
  for (let i = 0; i < 100; i++) {
    if (calls().length >= n) return calls()[n - 1];
    await page.waitForTimeout(100);
  }
  throw new Error(`${what}: no call recorded (calls: ${JSON.stringify(calls())})`);
}

async function newTask(page, repo, { name, prompt }) {
  await addProject(page, repo);
  return createTask(page, { prompt, name, backend: "claude-code" });
}

test("Stop reads as Stopped, not failed; a message queued before it offers Send now", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const repo = makeRepo("stop");
  fakeClaude(repo, { FAKE_CLAUDE_HANG: "1" });
  const view = await newTask(page, repo, { name: "Stop me", prompt: "work forever" });
  await view.locator('.jc-task-view__header [data-status="busy"]').waitFor();
  await view.getByLabel("Message").fill("and then this");
  await view.getByRole("button", { name: "Queue" }).click();
  await view.getByTestId("queued-message").waitFor();
  await view.getByRole("button", { name: "Stop" }).click();
  const result = view.getByTestId("result-summary").last();
  await result.waitFor({ timeout: 15000 });
  assertEqual(await result.getAttribute("data-outcome"), "stopped", "the turn's outcome");
  assertEqual((await result.locator(".jc-result__label").textContent()).trim(), "Stopped", "the turn's label");
  assert(!(await result.textContent()).includes("aborted_streaming"), "the raw code is not in the bar");
  await result.locator(".jc-result__bar").click();
  assert((await view.getByTestId("result-code").textContent()).includes("aborted_streaming"), "the raw code on demand");
  assertEqual(await view.locator(".jc-msg--user", { hasText: "[Request interrupted" }).count(), 0, "no interrupt bubble");
  const badge = view.locator(".jc-task-view__header .jc-status");
  await page.waitForFunction(() => document.querySelector(".jc-task-view__header .jc-status")?.getAttribute("data-state") === "stopped");
  assertEqual((await badge.textContent()).trim(), "Stopped", "header label");
  assertEqual(await badge.getAttribute("data-tone"), "neutral", "header tone");
  const row = page.getByTestId("task-row").filter({ hasText: "Stop me" });
  assertEqual(await row.getAttribute("title"), "Stopped", "list tooltip says the same");
  // The queued message was not sent: it offers Send now.
  const sendNow = view.getByTestId("send-now");
  await sendNow.waitFor();
  await page.screenshot({ path: join(shots, "truth-stopped.png") });
  await sendNow.click();
  await view.getByTestId("queued-message").waitFor({ state: "detached" });
  await view.locator(".jc-msg--user", { hasText: "and then this" }).waitFor();
  await page.evaluate(() => {
    const v = document.querySelector("[data-task-id]");
    return window.go.services.SessionService.Stop(v.getAttribute("data-task-id"));
  });
});

test("an 'always' rule edited to a prefix covers a second command; each turn shows its own cost; sending scrolls down", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const repo = makeRepo("rules");
  fakeClaude(repo, { FAKE_CLAUDE_SCRIPT: RULES });
  const view = await newTask(page, repo, { name: "Rules", prompt: "run the tests" });
  const card = view.getByTestId("permission-card");
  await card.waitFor({ timeout: 15000 });
  const input = card.getByTestId("rule-input");
  assertEqual(await input.inputValue(), "npm test:*", "the suggested rule is a prefix, shown before it is made");
  assert((await card.getByTestId("rule-desc").textContent()).includes("npm test"), "what it covers, in words");
  await page.screenshot({ path: join(shots, "truth-rule-card.png") });
  await card.getByRole("button", { name: /Always for this task/ }).click();
  await card.waitFor({ state: "detached" });
  await view.getByTestId("result-summary").first().waitFor({ timeout: 15000 });
  // Scrolled up, then send: the view comes down to the new message.
  await page.setViewportSize({ width: 1000, height: 300 });
  const stream = view.getByTestId("message-stream");
  await page.waitForTimeout(200);
  const overflow = await stream.evaluate((el) => el.scrollHeight > el.clientHeight + 50);
  assert(overflow, "the stream must overflow for the scroll check");
  await stream.evaluate((el) => (el.scrollTop = 0));
  await page.waitForTimeout(100);
  await view.getByLabel("Message").fill("again");
  await view.getByLabel("Message").press("Enter");
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="result-summary"]').length >= 2, null, { timeout: 15000 });
  await page.waitForTimeout(300);
  const gap = await stream.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
  assert(gap < 60, `after sending the stream is at the bottom (gap ${gap}px)`);
  assertEqual(await view.getByTestId("permission-card").count(), 0, "the second command was not asked about");
  const second = view.locator('[data-tool-id="toolu_rules_2"]');
  const chip = second.locator(".jc-chip.is-decision");
  assert((await chip.textContent()).includes("Bash(npm test:*)"), `the rule answered it: ${await chip.textContent()}`);
  // Claude's total_cost_usd is cumulative (0.01248 then 0.03): the second turn cost 0.01752.
  const costs = await view.getByTestId("turn-cost").allTextContents();
  assertEqual(costs.join(" "), "$0.01 $0.02", "per-turn costs");
  assertEqual((await view.getByTestId("task-total").textContent()).trim(), "$0.03", "task total");
  await page.setViewportSize({ width: 1280, height: 800 });
  // Listed and revocable in the project settings.
  await page.getByRole("button", { name: "Project settings" }).click();
  const rules = page.getByTestId("rule-row");
  await rules.first().waitFor();
  assert((await rules.first().textContent()).includes("Bash(npm test:*)"), "rule listed");
  await rules.first().getByRole("button", { name: /Revoke/ }).click();
  await rules.first().waitFor({ state: "detached" });
});

test("links open in the browser, file: is refused, paths open in the editor, Open in… actions; the webview stays", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const repo = makeRepo("links");
  execFileSync("sh", ["-c", "seq 1 20 > notes.txt && git add notes.txt && git -c user.name=e2e -c user.email=e2e@example.invalid commit -qm notes"], { cwd: repo });
  const script = join(repo, ".links.jsonl");
  const text = "See [the docs](https://example.com/docs) and https://example.org/raw and [a file](file:///etc/passwd).";
  const session = "11111111-2222-3333-4444-555555555555";
  const lines = [
    { type: "system", subtype: "init", cwd: repo, session_id: session, tools: ["Read"], model: "claude-opus-5-5", permissionMode: "default", uuid: "a0000000-0000-0000-0000-000000000001" },
    { type: "assistant", message: { id: "msg_links_1", type: "message", role: "assistant", model: "claude-opus-5-5", content: [{ type: "text", text }], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } }, parent_tool_use_id: null, session_id: session, uuid: "a0000000-0000-0000-0000-000000000002" },
    { type: "assistant", message: { id: "msg_links_2", type: "message", role: "assistant", model: "claude-opus-5-5", content: [{ type: "tool_use", id: "toolu_links_read", name: "Read", input: { file_path: join(repo, "notes.txt"), offset: 7, limit: 3 } }], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } }, parent_tool_use_id: null, session_id: session, uuid: "a0000000-0000-0000-0000-000000000003" },
    { type: "user", message: { role: "user", content: [{ tool_use_id: "toolu_links_read", type: "tool_result", content: "     7→7\n     8→8\n     9→9" }] }, parent_tool_use_id: null, session_id: session, uuid: "a0000000-0000-0000-0000-000000000004" },
    { type: "result", subtype: "success", is_error: false, duration_ms: 10, duration_api_ms: 5, num_turns: 1, result: "ok", session_id: session, total_cost_usd: 0.001, usage: { input_tokens: 1, output_tokens: 1 }, terminal_reason: "completed", uuid: "a0000000-0000-0000-0000-000000000005" },
  ];
  writeFileSync(script, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  fakeClaude(repo, { FAKE_CLAUDE_SCRIPT: script });
  const view = await newTask(page, repo, { name: "Links", prompt: "show links" });
  await view.getByTestId("result-summary").first().waitFor({ timeout: 15000 });
  const url = page.url();
  const before = calls().length;

  const docs = view.getByRole("link", { name: "the docs" });
  assertEqual(await docs.getAttribute("title"), "https://example.com/docs", "hover shows the full URL");
  await docs.hover();
  await page.getByTestId("link-status").waitFor();
  assertEqual((await page.getByTestId("link-status").textContent()).trim(), "https://example.com/docs", "the status line shows the full URL on hover");
  // The app's own tooltip (lib/tooltip.ts), not the toolkit's: themed and inside the window.
  const tip = page.locator("#jc-tooltip");
  await tip.waitFor({ state: "visible" });
  assertEqual((await tip.textContent()).trim(), "https://example.com/docs", "the tooltip shows the full URL");
  await page.screenshot({ path: join(shots, "truth-link-hover.png") });
  const themeBtn = page.getByRole("button", { name: /^Theme:/ });
  await themeBtn.hover();
  await page.waitForFunction(() => /^Theme:/.test(document.getElementById("jc-tooltip")?.textContent ?? "") && !document.getElementById("jc-tooltip").hidden);
  const box = await tip.boundingBox();
  const vp = page.viewportSize() ?? (await page.evaluate(() => ({ width: innerWidth, height: innerHeight })));
  assert(box.x >= 0 && box.y >= 0 && box.x + box.width <= vp.width && box.y + box.height <= vp.height, `theme tooltip inside the window: ${JSON.stringify(box)} in ${JSON.stringify(vp)}`);
  assertEqual(await themeBtn.getAttribute("title"), null, "no native tooltip while ours shows");
  await page.screenshot({ path: join(shots, "truth-tooltip-edge.png") });
  await page.mouse.move(vp.width / 2, vp.height / 2);
  await page.keyboard.press("Shift");
  assert(await tip.isHidden(), "the tooltip hides");
  await docs.click();
  let c = await waitCall(page, before + 1, "link click");
  assertEqual(c.name, "xdg-open", "the browser opener");
  assertEqual(c.args.join(" "), "https://example.com/docs", "the link");
  assertEqual(page.url(), url, "webview URL after a link click");

  await view.getByRole("link", { name: "https://example.org/raw" }).click();
  c = await waitCall(page, before + 2, "bare link click");
  assertEqual(c.args.join(" "), "https://example.org/raw", "the bare link");

  await view.getByRole("link", { name: "a file" }).click();
  await page.getByTestId("notice").waitFor();
  assert((await page.getByTestId("notice").textContent()).includes("only http, https and mailto"), "a short notice");
  await page.waitForTimeout(500);
  assertEqual(calls().length, before + 2, "the file: link opened nothing");
  assertEqual(page.url(), url, "webview URL after a refused link");

  await view.getByTestId("path-link").first().click();
  c = await waitCall(page, before + 3, "path click");
  assertEqual(c.name, "code", "the editor");
  assertEqual(c.args[0], "-g", "VS Code's goto flag");
  assert(c.args[1].endsWith("/notes.txt:7"), `file and line: ${c.args[1]}`);
  assertEqual(page.url(), url, "webview URL after a path click");

  await view.getByTestId("open-terminal").click();
  c = await waitCall(page, before + 4, "open in terminal");
  assertEqual(c.name, "x-terminal-emulator", "the system terminal");
  assert(c.cwd.endsWith(repo.split("/").pop()) || c.cwd.includes("worktree"), `terminal in the task folder: ${c.cwd}`);
  await view.getByTestId("open-folder").click();
  c = await waitCall(page, before + 5, "open folder");
  assertEqual(c.name, "xdg-open", "the file manager");
  await view.getByTestId("open-editor").click();
  c = await waitCall(page, before + 6, "open in editor");
  assertEqual(c.name, "code", "the editor for the folder");
  assertEqual(page.url(), url, "webview URL after the Open in… actions");
  await view.getByTestId("open-terminal").hover();
  await page.waitForTimeout(600);
  await page.screenshot({ path: join(shots, "truth-open-actions.png") });
  // The bridge refuses what the UI never sends.
  const refused = await page.evaluate(() => window.go.services.OpenService.OpenURL("javascript:alert(1)").then(() => "opened", (e) => String(e)));
  assert(refused.includes("Only http"), `OpenURL refuses javascript: (${refused})`);
  const escaped = await page.evaluate((id) => window.go.services.OpenService.OpenInEditor(id, "../../../../etc/passwd", 1).then(() => "opened", (e) => String(e)), await view.getAttribute("data-task-id"));
  assert(escaped.includes("cannot be opened"), `a path outside the worktree is refused (${escaped})`);
});

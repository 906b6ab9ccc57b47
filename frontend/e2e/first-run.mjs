#!/usr/bin/env node
// The first run, end to end, with fake agents (`node e2e/first-run.mjs
// [--no-build] [--keep]`, also `make e2e-first-run`): an empty profile and
// no Claude Code on PATH → add a project (a "~/" path, expanded before
// saving; a relative one refused) → create a task while the agent is
// missing (the prompt is kept, one error with "Install Claude Code") →
// Install (the real npm, from a package tarball this script makes and
// serves on 127.0.0.1: no network) → the prompt is retried → "not signed
// in" → Sign in through the embedded terminal (the fake CLI's login) →
// the result. Then a second launch of the same profile: it exits at once
// and the database is byte-identical. Screenshots of each step go to
// docs/screenshots/first-run-*.png.

import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEV_BINARY, FRONTEND, REPO, makeGitRepo, startApp } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { stopSync } from "./lib/procs.mjs";
import { serveTarball } from "./lib/npmregistry.mjs";
import { CLAUDE_RECORDINGS } from "./lib/fakeagents.mjs";

const args = process.argv.slice(2);
const noBuild = args.includes("--no-build");
const keep = args.includes("--keep");
const SHOTS = join(REPO, "docs/screenshots");
const PKG = "@anthropic-ai/claude-code";
const VERSION = "2.1.330";
const PROMPT = "Count the lines of README.md";
const LOGIN_CODE = "fake-code-4711";

let app = null;
let registry = null;
let browser = null;
process.on("exit", () => app && stopSync(app.child));

function assert(c, msg) {
  if (!c) throw new Error("assertion failed: " + msg);
  console.log("first-run: ok: " + msg);
}

function sh(cmd, argv, opt = {}) {
  return execFileSync(cmd, argv, { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", ...opt });
}

/** recordings writes the two turns the fake Claude Code replays: not signed in, and a normal answer. */
function recordings(dir) {
  const lines = readFileSync(join(CLAUDE_RECORDINGS, "bidi_perm_deny.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const [control, init] = lines;
  const sid = init.session_id;
  const msg = (id, text) => ({
    type: "assistant", session_id: sid, parent_tool_use_id: null, uuid: id,
    message: { id, type: "message", role: "assistant", model: "claude-opus-5-5", content: [{ type: "text", text }], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } },
  });
  const result = (text, isError) => ({ type: "result", subtype: "success", is_error: isError, result: text, session_id: sid, duration_ms: 20, duration_api_ms: 10, num_turns: 1, total_cost_usd: 0, usage: { input_tokens: 10, output_tokens: 5 } });
  const notSigned = "Not logged in · Please run /login";
  const write = (name, rows) => {
    const p = join(dir, name);
    writeFileSync(p, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    return p;
  };
  return {
    notSignedIn: write("not_signed_in.jsonl", [control, init, msg("msg_fake_login_1", notSigned), result(notSigned, true)]),
    ok: write("ok.jsonl", [control, init, msg("msg_fake_ok_1", "README.md has 1 line: the project's title."), result("README.md has 1 line: the project's title.", false)]),
  };
}

/** fakePackage makes the npm tarball of a fake Claude Code: --version, `auth login`, and stream-json through fakeclaude. */
function fakePackage(tmp, fakeclaude, recs) {
  const dir = join(tmp, "pkg");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: PKG, version: VERSION, bin: { claude: "cli.js" }, license: "UNLICENSED" }));
  writeFileSync(
    join(dir, "cli.js"),
    `#!/usr/bin/env node
// Fake Claude Code for the first-run e2e test.
const { spawnSync } = require("child_process");
const fs = require("fs"), os = require("os"), path = require("path");
const args = process.argv.slice(2);
const cred = path.join(os.homedir(), ".claude", ".credentials.json");
if (args[0] === "--version") { console.log("${VERSION} (Claude Code)"); process.exit(0); }
if (args[0] === "auth" && args[1] === "login") {
  process.stdout.write("Fake Claude Code sign-in\\r\\nOpen https://example.invalid/oauth and paste the code here: ");
  let buf = "";
  process.stdin.on("data", (d) => {
    buf += d.toString();
    if (!buf.includes("\\n") && !buf.includes("\\r")) return;
    const code = buf.trim();
    if (!code) { console.log("\\r\\nNo code: sign-in cancelled."); process.exit(1); }
    fs.mkdirSync(path.dirname(cred), { recursive: true });
    fs.writeFileSync(cred, JSON.stringify({ fake: true }), { mode: 0o600 });
    process.stdout.write("\\r\\nLogin successful.\\r\\n");
    process.exit(0);
  });
  return;
}
const script = fs.existsSync(cred) ? ${JSON.stringify(recs.ok)} : ${JSON.stringify(recs.notSignedIn)};
const r = spawnSync(${JSON.stringify(fakeclaude)}, args, { stdio: "inherit", env: { ...process.env, FAKE_CLAUDE_SCRIPT: script } });
process.exit(r.status ?? 1);
`,
  );
  chmodSync(join(dir, "cli.js"), 0o755);
  const out = sh("npm", ["pack", "--silent", "--pack-destination", tmp], { cwd: dir }).trim().split("\n").pop();
  return join(tmp, out);
}

async function shot(page, name) {
  const p = join(SHOTS, `first-run-${name}.png`);
  await page.screenshot({ path: p });
  console.log(`first-run: screenshot ${p}`);
}

function dbDigest(dbPath) {
  const h = createHash("sha256");
  for (const f of [dbPath, dbPath + "-wal", dbPath + "-shm"]) if (existsSync(f)) h.update(f).update(readFileSync(f));
  return h.digest("hex");
}

/**
 * armPaintClock measures, in the page, from the click (a capturing
 * listener) to the frame after the n-th agent card is in the DOM, without
 * playwright's round trips; readPaintClock reads it ("… ms").
 */
async function armPaintClock(page, n) {
  await page.evaluate((n) => {
    window.__jcPaint = new Promise((ok) => {
      let t0 = 0;
      document.addEventListener("click", () => (t0 = performance.now()), { capture: true, once: true });
      const obs = new MutationObserver(() => {
        if (!t0 || document.querySelectorAll("[data-testid^='agent-']").length < n) return;
        obs.disconnect();
        const dom = performance.now() - t0;
        requestAnimationFrame(() => ok(`${dom.toFixed(0)} ms to the DOM, ${(performance.now() - t0).toFixed(0)} ms to the next frame`));
      });
      obs.observe(document.body, { subtree: true, childList: true });
    });
  }, n);
}

async function readPaintClock(page) {
  return page.evaluate(() => window.__jcPaint);
}

/** secondLaunch starts the dev binary again on the same profile; resolves with its exit code and stderr. */
function secondLaunch(env) {
  return new Promise((ok) => {
    const child = spawn("xvfb-run", ["-a", "dbus-run-session", "--", DEV_BINARY, "-devserver", "127.0.0.1:1", "-assetdir", join(FRONTEND, "dist")], { env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    const t = setTimeout(() => child.kill("SIGKILL"), 30000);
    child.on("exit", (code) => {
      clearTimeout(t);
      ok({ code, err });
    });
  });
}

async function main() {
  if (!noBuild) {
    sh("npx", ["vite", "build", "--logLevel", "warn"], { cwd: FRONTEND, stdio: "inherit" });
    sh("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], { cwd: REPO, stdio: "inherit" });
  }
  const binDir = join(REPO, "build/bin/e2e");
  mkdirSync(binDir, { recursive: true });
  const fakeclaude = join(binDir, "fakeclaude");
  sh("go", ["build", "-o", fakeclaude, "./backend/agent/agenttest/fakeclaude"], { cwd: REPO, stdio: "inherit" });
  const { mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const tmp = mkdtempSync(join(tmpdir(), "jc-first-run-"));
  const recs = recordings(tmp);
  const tarball = fakePackage(tmp, fakeclaude, recs);
  registry = await serveTarball({ name: PKG, version: VERSION, tarball, bin: { claude: "cli.js" } });
  // The system PATH (node, npm, git) and no `claude` on it.
  const path = process.env.PATH.split(":").filter((d) => !existsSync(join(d, "claude"))).join(":");
  const npmEnv = { npm_config_registry: registry.url, npm_config_cache: join(tmp, "npm-cache"), npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false" };
  app = await startApp({ tmp, keepTmp: keep, env: { ...npmEnv, PATH: path } });
  console.log(`first-run: app at ${app.baseURL} (tmp ${tmp})`);
  const repo = makeGitRepo(app.home, "proj");
  browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on("pageerror", (e) => {
    if (!/\/wails\/ipc\.js:/.test(e.stack || "") || /\/assets\//.test(e.stack || "")) errors.push(String(e.stack || e));
  });

  // 1. An empty profile.
  await page.goto(app.baseURL + "/");
  await page.locator(".jc-app[data-ready]").waitFor({ timeout: 20000 });
  await page.getByRole("heading", { name: "Welcome to Jean-Claude" }).waitFor();
  await shot(page, "1-empty");

  // 2. Add a project: a relative path is refused, "~/proj" is expanded and shown.
  await page.getByRole("button", { name: "Add project" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add project" });
  await dialog.getByLabel("Project folder").fill("../..");
  await dialog.getByRole("button", { name: "Add project" }).click();
  await dialog.getByText(/relative path/).waitFor();
  assert(true, "a relative project path (../..) is refused with a message");
  await dialog.getByLabel("Project folder").fill("~/proj");
  await dialog.getByTestId("resolved-path").getByText(repo).waitFor();
  await shot(page, "2-add-project");
  await dialog.getByRole("button", { name: "Add project" }).click();
  await dialog.waitFor({ state: "detached" });
  const projects = await page.evaluate(() => window.go.services.ProjectService.List());
  assert(projects.length === 1 && projects[0].path === repo, `the project is stored with its absolute path ${repo}`);

  // 3. A task while Claude Code is missing: the prompt is kept, one actionable error.
  await page.getByRole("button", { name: "New task" }).click();
  await page.getByLabel("Backend", { exact: true }).selectOption("claude-code");
  await page.getByLabel("Prompt").fill(PROMPT);
  await page.getByRole("button", { name: "Create task" }).click();
  const problem = page.locator(".jc-problem");
  await problem.waitFor({ timeout: 20000 });
  await page.getByRole("button", { name: "Install Claude Code" }).waitFor();
  await page.locator(".jc-task-view__stream").getByText(PROMPT, { exact: true }).waitFor();
  const alerts = await page.getByRole("alert").allInnerTexts();
  assert(alerts.length === 1 && /Claude Code is not installed/.test(alerts[0]), `one error, in words: ${JSON.stringify(alerts)}`);
  assert(!/orchestrator|start task|[0-9a-f]{8}-[0-9a-f]{4}/.test(alerts[0]), "no internal ids or error chains");
  const header = await page.locator(".jc-task-view__header .jc-status__label").innerText();
  const listTitle = await page.locator("[data-testid=task-item] [title]").first().getAttribute("title").catch(() => "");
  assert(header === "Failed", `the header says Failed like the list (${header} / ${listTitle})`);
  await shot(page, "3-not-installed");

  // 4. Install (the real npm against the local registry), then the same prompt again → not signed in.
  await page.getByRole("button", { name: "Install Claude Code" }).click();
  await page.locator('.jc-problem[data-problem="not-signed-in"]').waitFor({ timeout: 240000 });
  assert(registry.hits.some((h) => h.includes(".tgz")), "npm fetched the package from the local registry");
  const userRows = await page.locator(".jc-task-view__stream").getByText(PROMPT, { exact: true }).count();
  assert(userRows === 1, `the prompt shows once after the retry (${userRows})`);
  await page.getByText("Not logged in · Please run /login").first().waitFor();
  await shot(page, "4-not-signed-in");

  // 5. Sign in through the embedded terminal (the fake CLI's own login).
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  const signIn = page.getByTestId("sign-in-dialog");
  await signIn.waitFor();
  await signIn.locator(".xterm-rows").getByText(/paste the code/).waitFor({ timeout: 20000 });
  await signIn.getByTestId("terminal").click();
  await page.keyboard.type(LOGIN_CODE);
  await shot(page, "5-sign-in");
  await page.keyboard.press("Enter");
  await signIn.waitFor({ state: "detached", timeout: 20000 });
  assert(existsSync(join(app.home, ".claude/.credentials.json")), "the fake login wrote its credentials");

  // 6. The prompt is retried and the result shows.
  await page.getByText("README.md has 1 line: the project's title.").first().waitFor({ timeout: 60000 });
  await page.locator(".jc-problem").waitFor({ state: "detached", timeout: 20000 });
  // The header's badge says Done (its label text is hidden when the header is narrow).
  await page.locator('.jc-task-view__header .jc-status[data-state="done"]').waitFor({ timeout: 20000 });
  const alertsAfter = await page.getByRole("alert").count();
  assert(alertsAfter === 0, "no banner left once its cause is gone");
  await shot(page, "6-result");
  assert(errors.length === 0, `no page errors ${errors.join("; ")}`);

  // 7. The Agents page paints from the last known state, then refreshes;
  // no keyring runs here, so it says where secrets are kept.
  const agentCount = (await page.evaluate(() => window.go.services.AgentService.LastKnown())).length;
  assert(agentCount > 0, `the last known state holds ${agentCount} agents`);
  const t0 = Date.now();
  await armPaintClock(page, agentCount);
  await page.getByRole("button", { name: "Agents", exact: true }).click();
  await page.locator("[data-testid^='agent-']").nth(agentCount - 1).waitFor();
  const paintMs = Date.now() - t0;
  console.log(`first-run: Agents page: ${agentCount} agents painted ${paintMs} ms after the click (last known state; detection still running; in the page: ${await readPaintClock(page)})`);
  await page.getByTestId("secrets-note").waitFor();
  const claudeCard = page.getByTestId("agent-claude-code");
  await claudeCard.getByText("signed in", { exact: true }).waitFor({ timeout: 60000 });
  await shot(page, "7-agents");

  // 7b. Right after a (re)start the first visit paints from the state
  // inlined into index.html (no round trip), its chunk fetched when idle.
  await page.evaluate(() => localStorage.removeItem("jc.agents.lastKnown"));
  await page.reload();
  await page.locator(".jc-app[data-ready]").waitFor({ timeout: 20000 });
  const inlined = await page.evaluate(() => (JSON.parse(document.getElementById("jc-snapshot").textContent).agents || []).length);
  assert(inlined === agentCount, `index.html carries the ${inlined} agents' last known state`);
  assert((await page.getByTestId("agents").count()) === 0, "after the reload the Agents page is not open yet");
  const t1 = Date.now();
  await armPaintClock(page, agentCount);
  await page.getByRole("button", { name: "Agents", exact: true }).click();
  await page.locator("[data-testid^='agent-']").nth(agentCount - 1).waitFor();
  const reloadMs = Date.now() - t1;
  console.log(`first-run: Agents page right after a reload: ${agentCount} agents painted ${reloadMs} ms after the click (inlined snapshot; in the page: ${await readPaintClock(page)})`);

  // 8. A second launch of the same profile changes nothing and exits.
  await new Promise((r) => setTimeout(r, 1500));
  const before = dbDigest(app.dbPath);
  const second = await secondLaunch({ ...process.env, HOME: app.home, JEAN_CLAUDE_DB: app.dbPath, XDG_RUNTIME_DIR: tmp, TMPDIR: tmp });
  const after = dbDigest(app.dbPath);
  assert(second.code === 0 && /already running/.test(second.err), `the second launch exits 0 saying so (${second.code}: ${second.err.trim()})`);
  assert(before === after, "the database is byte-identical after the second launch");
  const tasks = await page.evaluate((id) => window.go.services.TaskService.List(id), projects[0].id);
  assert(tasks.length === 1 && tasks[0].status === "completed", `the first instance's task is untouched (${tasks[0]?.status})`);
}

let code = 1;
try {
  await main();
  code = 0;
  console.log("first-run: passed");
} catch (err) {
  console.error(`first-run: FAILED: ${err?.stack || err}`);
  if (app) {
    try {
      console.error(execFileSync("tail", ["-n", "40", app.logPath], { encoding: "utf8" }));
    } catch {}
  }
} finally {
  if (browser) await browser.close().catch(() => {});
  if (registry) await registry.close();
  if (app) await app.stop();
  app = null;
}
process.exit(code);

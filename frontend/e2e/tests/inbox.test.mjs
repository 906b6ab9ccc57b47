// The attention inbox end to end (issue 17): four projects whose fake
// Claude Code (backend/agent/agenttest/fakeclaude replaying recordings)
// asks a permission, asks a question, asks to approve a plan
// (ExitPlanMode) and crashes; the inbox lists them oldest first across
// projects, the sidebar and the title count them, and the permission, the
// question and the plan are answered from the inbox with the keyboard only.
// Screenshots: docs/screenshots/inbox-{light,dark}.png (the four items,
// the plan selected) and frontend/test-results/inbox-*.png.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test, assert, assertEqual } from "../lib/runner.mjs";
import { FRONTEND, REPO } from "../lib/app.mjs";
import { tempDir } from "../lib/tmp.mjs";

const REC = join(REPO, "backend/agent/agenttest/testdata/claude");
const shots = join(FRONTEND, "test-results");
mkdirSync(shots, { recursive: true });

const PLAN = `# Plan: split the store

1. Move the task queries from **store.go** into \`tasks.go\`.
2. Add a test per query.
3. Run \`go test ./backend/store/\`.

| step | risk |
|---|---|
| move | low |
| tests | none |`;

/** planScript is a Claude Code run in plan mode that asks to exit it (ExitPlanMode). */
function planScript(repo) {
  const session = "22222222-3333-4444-5555-666666666666";
  const u = (n) => `b0000000-0000-0000-0000-00000000000${n}`;
  const lines = [
    { type: "system", subtype: "init", cwd: repo, session_id: session, tools: ["Read", "ExitPlanMode"], model: "claude-opus-5-5", permissionMode: "plan", uuid: u(1) },
    { type: "assistant", message: { id: "msg_plan_1", type: "message", role: "assistant", model: "claude-opus-5-5", content: [{ type: "tool_use", id: "toolu_plan_1", name: "ExitPlanMode", input: { plan: PLAN } }], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } }, parent_tool_use_id: null, session_id: session, uuid: u(2) },
    { type: "control_request", request_id: "plan-req-1", request: { subtype: "can_use_tool", tool_name: "ExitPlanMode", input: { plan: PLAN }, tool_use_id: "toolu_plan_1" } },
    { type: "user", message: { role: "user", content: [{ tool_use_id: "toolu_plan_1", type: "tool_result", content: "User has approved your plan." }] }, parent_tool_use_id: null, session_id: session, uuid: u(3) },
    { type: "result", subtype: "success", is_error: false, duration_ms: 10, duration_api_ms: 5, num_turns: 1, result: "Plan approved; starting.", session_id: session, total_cost_usd: 0.001, usage: { input_tokens: 1, output_tokens: 1 }, terminal_reason: "completed", uuid: u(4) },
  ];
  const file = join(repo, ".plan.jsonl");
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return file;
}

async function startTask(page, repo, name, prompt) {
  return page.evaluate(
    async ({ repo, name, prompt }) => {
      const svc = window.go.services;
      const p = await svc.ProjectService.Add(repo);
      const t = await svc.TaskService.Create({ projectId: p.id, prompt, name });
      await svc.SessionService.Start(t.id);
      return t.id;
    },
    { repo, name, prompt },
  );
}

async function kinds(page) {
  return page.getByTestId("inbox-item").evaluateAll((els) => els.map((e) => e.dataset.kind));
}

async function waitKinds(page, pred, what) {
  for (let i = 0; i < 150; i++) {
    const k = await kinds(page);
    if (pred(k)) return k;
    await page.waitForTimeout(100);
  }
  throw new Error(`inbox never showed ${what}: ${await kinds(page)}`);
}

/** selectKind moves the selection with j/k only, onto the first item of kind. */
async function selectKind(page, kind) {
  const k = await kinds(page);
  const want = k.indexOf(kind);
  assert(want >= 0, `no ${kind} in ${k}`);
  const at = await page.getByTestId("inbox-item").evaluateAll((els) => els.findIndex((e) => e.getAttribute("aria-selected") === "true"));
  const key = want > at ? "j" : "k";
  for (let i = 0; i < Math.abs(want - at); i++) await page.keyboard.press(key);
  await page.locator(`[data-testid="inbox-detail"][data-kind="${kind}"]`).waitFor({ timeout: 5000 });
}

async function shoot(page, name, docs) {
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(shots, `inbox-${name}-${theme}.png`) });
    if (docs) await page.screenshot({ path: join(REPO, "docs/screenshots", `inbox-${theme}.png`) });
  }
  await page.evaluate(() => document.documentElement.setAttribute("data-theme", "light"));
}

test("inbox: a permission, a question and a plan from three projects answered with the keyboard; an error listed", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  // The suite shares one app: earlier tests leave unread results. Read them
  // (Dismiss) so this test's counts are its own.
  const left = await page.evaluate(async () => {
    const svc = window.go.services.InboxService;
    for (const it of (await svc.Items()).items ?? []) if (it.kind === "result" || it.kind === "error") await svc.Dismiss(it.taskId);
    return ((await svc.Items()).items ?? []).map((it) => it.kind);
  });
  assertEqual(left.join(","), "", "nothing else waits on the user when the test starts");
  const perm = makeRepo("inbox-perm");
  fakeClaude(perm, { FAKE_CLAUDE_SCRIPT: join(REC, "bidi_perm_allow.jsonl") });
  const ask = makeRepo("inbox-ask");
  fakeClaude(ask, { FAKE_CLAUDE_SCRIPT: join(REC, "ask_user.jsonl") });
  const plan = makeRepo("inbox-plan");
  fakeClaude(plan, { FAKE_CLAUDE_SCRIPT: planScript(plan) });
  const fail = makeRepo("inbox-fail");
  fakeClaude(fail, { FAKE_CLAUDE_SCRIPT: join(REC, "bidi_perm_allow.jsonl"), FAKE_CLAUDE_CRASH_AFTER: "2" });

  await startTask(page, fail, "Build the release", "build it");
  await startTask(page, perm, "Create the marker", "Create the marker file");
  await startTask(page, ask, "Pick a greeting", "greet me");
  await startTask(page, plan, "Split the store", "plan the split");

  // The projects were added behind the page's back: reload to list them.
  await open();
  await page.getByTestId("inbox-nav").click();
  await page.getByTestId("inbox").waitFor();
  const all = await waitKinds(page, (k) => ["permission", "question", "plan", "error"].every((x) => k.includes(x)), "all four kinds");
  assertEqual(all.length, 4, `four items: ${all}`);
  assertEqual(all[0], "error", "oldest first: the crash came before the others asked");
  assertEqual((await page.getByTestId("inbox-nav-count").textContent()).trim(), "4", "sidebar count");
  assertEqual(await page.title(), "(4) Jean-Claude", "window title count");

  await selectKind(page, "plan");
  const planView = page.getByTestId("inbox-plan");
  await planView.getByRole("heading", { name: "Plan: split the store" }).waitFor();
  assert(await planView.locator("table").count(), "the plan's table is rendered");
  await shoot(page, "four", true);

  // The permission: j/k onto it, 1 = allow once.
  await selectKind(page, "permission");
  await shoot(page, "permission", false);
  await page.keyboard.press("1");
  await waitKinds(page, (k) => !k.includes("permission") && k.includes("result"), "the permission answered and its task's result");

  // The question: 1 = "Hello".
  await selectKind(page, "question");
  assert((await page.getByTestId("inbox-detail").textContent()).includes("Which greeting?"), "the question shown");
  await shoot(page, "question", false);
  await page.keyboard.press("1");
  await waitKinds(page, (k) => !k.includes("question") && k.filter((x) => x === "result").length === 2, "the question answered and its result");

  // The plan: 1 = approve.
  await selectKind(page, "plan");
  await page.keyboard.press("1");
  await waitKinds(page, (k) => !k.includes("plan") && k.filter((x) => x === "result").length === 3, "the plan approved and its result");
  assertEqual((await kinds(page)).join(","), "error,result,result,result", "left: the error and three unread results");
  await shoot(page, "results", false);

  // The answers reached the agents: the question's run says so.
  const doneText = await page.getByTestId("inbox-item").allTextContents();
  assert(doneText.some((t) => t.includes("Hello it is.")), `the question's result: ${doneText}`);

  // Enter opens the selected item's task; reading it takes its result out.
  await selectKind(page, "error");
  await page.keyboard.press("Enter");
  await page.getByTestId("task-view").waitFor();
  await page.getByTestId("inbox-nav").click();
  await waitKinds(page, (k) => k.length === 3 && !k.includes("error"), "the opened error read");
  assertEqual(await page.title(), "(3) Jean-Claude", "title follows");
}, { timeoutMs: 180000 });

/** longAskScript is a Claude Code run asking one AskUserQuestion with twelve options. */
function longAskScript(repo) {
  const session = "33333333-4444-5555-6666-777777777777";
  const u = (n) => `c0000000-0000-0000-0000-00000000000${n}`;
  const input = {
    questions: [
      {
        question: "Which region should the bucket live in?",
        header: "Region",
        multiSelect: false,
        options: Array.from({ length: 12 }, (_, i) => ({ label: `region-${i + 1}`, description: i === 11 ? "the last one, past the digits" : `zone ${i + 1}` })),
      },
    ],
  };
  const lines = [
    { type: "system", subtype: "init", cwd: repo, session_id: session, tools: ["AskUserQuestion"], model: "claude-fake", permissionMode: "default", uuid: u(1) },
    { type: "assistant", message: { id: "msg_long_1", type: "message", role: "assistant", model: "claude-fake", content: [{ type: "tool_use", id: "toolu_long_1", name: "AskUserQuestion", input }], usage: { input_tokens: 1, output_tokens: 1 } }, parent_tool_use_id: null, session_id: session, uuid: u(2) },
    { type: "control_request", request_id: "long-req-1", request: { subtype: "can_use_tool", tool_name: "AskUserQuestion", input, tool_use_id: "toolu_long_1" } },
    { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_long_1", content: "User has answered your questions." }] }, parent_tool_use_id: null, session_id: session, uuid: u(3) },
    { type: "result", subtype: "success", is_error: false, duration_ms: 10, num_turns: 1, result: "Region chosen.", session_id: session, total_cost_usd: 0.001, usage: { input_tokens: 1, output_tokens: 1 }, terminal_reason: "completed", uuid: u(4) },
  ];
  const file = join(repo, ".long.jsonl");
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return file;
}

test("inbox: a question past its ninth option answered by keyboard; a permission denied with a reason", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  await page.evaluate(async () => {
    const svc = window.go.services.InboxService;
    for (const it of (await svc.Items()).items ?? []) if (it.kind === "result" || it.kind === "error") await svc.Dismiss(it.taskId);
  });
  const long = makeRepo("inbox-long");
  const longIn = join(long, ".stdin.log");
  fakeClaude(long, { FAKE_CLAUDE_SCRIPT: longAskScript(long), FAKE_CLAUDE_STDIN_LOG: longIn });
  const deny = makeRepo("inbox-deny");
  const denyIn = join(deny, ".stdin.log");
  fakeClaude(deny, { FAKE_CLAUDE_SCRIPT: join(REC, "bidi_perm_deny.jsonl"), FAKE_CLAUDE_STDIN_LOG: denyIn });
  await startTask(page, long, "Choose a region", "where should it live?");
  await startTask(page, deny, "Clean the tree", "clean up");
  await open();
  await page.getByTestId("inbox-nav").click();
  await waitKinds(page, (k) => k.includes("question") && k.includes("permission"), "the question and the permission");

  // Twelve options: o focuses the list, ↓ eleven times reaches the twelfth.
  await selectKind(page, "question");
  const opts = page.getByTestId("inbox-question").locator("[data-option]");
  assertEqual(await opts.count(), 12, "every option is listed");
  await page.keyboard.press("o");
  for (let i = 0; i < 11; i++) await page.keyboard.press("ArrowDown");
  assertEqual(await page.evaluate(() => document.activeElement?.textContent ?? ""), "region-12the last one, past the digits", "the twelfth option focused");
  await page.screenshot({ path: join(REPO, "docs/screenshots", "inbox-long-question-light.png") });
  await page.keyboard.press("Enter");
  await waitKinds(page, (k) => !k.includes("question"), "the long question answered");
  const longSent = await until("the answer reached the agent", () => existsSync(longIn) && readFileSync(longIn, "utf8").includes("region-12"));
  assert(longSent, "region-12 sent");

  // Deny with a reason: 4 opens the field; keys typed there answer nothing.
  await selectKind(page, "permission");
  await page.keyboard.press("4");
  await page.getByRole("textbox", { name: "Reason" }).waitFor();
  await page.keyboard.type("use git clean -n first, 1 step at a time");
  assertEqual((await kinds(page)).includes("permission"), true, "typing the reason answered nothing");
  await page.screenshot({ path: join(REPO, "docs/screenshots", "inbox-deny-reason-light.png") });
  await page.keyboard.press("Enter");
  await waitKinds(page, (k) => !k.includes("permission"), "the permission denied");
  await until("the reason reached the agent", () => existsSync(denyIn) && readFileSync(denyIn, "utf8").includes("use git clean -n first, 1 step at a time"));
  const deniedLine = readFileSync(denyIn, "utf8").split("\n").find((l) => l.includes("use git clean -n first"));
  assert(deniedLine.includes('"deny"'), `the answer is a deny: ${deniedLine}`);
}, { timeoutMs: 120000 });

// The notification daemon: backend/notify/notifytest/fakenotifyd, activated
// by the app's private session bus (dbus-run-session in lib/app.mjs) from a
// .service file in the app's XDG_DATA_HOME, the first time the app looks
// for org.freedesktop.Notifications after the file appears.
const notifyBin = tempDir("jc-e2e-notifyd-");
execFileSync("go", ["build", "-o", join(notifyBin, "fakenotifyd"), "./backend/notify/notifytest/fakenotifyd"], { cwd: REPO, stdio: "inherit" });

function readJSONL(path) {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

async function until(what, fn, timeout = 20000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("notifications: clicking one brings the window up on exactly its item; answering it in the app withdraws it", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const repo = makeRepo("notify-perm");
  fakeClaude(repo, { FAKE_CLAUDE_SCRIPT: join(REC, "bidi_perm_allow.jsonl") });
  const tmp = dirname(dirname(repo)); // the app's temp dir (lib/app.mjs: tmp/repos/NAME)
  const notes = join(tmp, "notes");
  const services = join(tmp, "home/.local/share/dbus-1/services");
  mkdirSync(services, { recursive: true });
  writeFileSync(
    join(services, "org.freedesktop.Notifications.service"),
    `[D-BUS Service]\nName=org.freedesktop.Notifications\nExec=${join(notifyBin, "fakenotifyd")} -dir ${notes}\n`,
  );
  // The app looks for a notification server again at most every 5 s.
  await page.waitForTimeout(5500);
  // Notifications only go out while the window is in the background.
  await page.evaluate(() => window.go.services.SessionService.SetWindowFocused(false));
  const taskId = await startTask(page, repo, "Notify me", "Create the marker file");

  const shown = await until("the permission's notification", () =>
    readJSONL(join(notes, "shown.jsonl")).find((n) => n.Body.includes("touch perm_test.txt")),
  );
  assertEqual(shown.Actions.join(","), "default,Open", "a default action");
  assert(shown.Summary.includes("Notify me"), `the title names the task: ${shown.Summary}`);

  // The user is elsewhere in the app when the notification is clicked.
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  writeFileSync(join(notes, "click"), String(shown.ID));
  await until("the daemon to click", () => !existsSync(join(notes, "click")));
  const detail = page.locator('[data-testid="inbox-detail"][data-kind="permission"]');
  await detail.waitFor({ timeout: 20000 });
  const selected = await page.locator('[data-testid="inbox-item"][aria-selected="true"]').getAttribute("data-key");
  assert(selected.startsWith(`request:${taskId}:`), `the clicked item is selected: ${selected}`);
  await page.screenshot({ path: join(shots, "inbox-notification-opened.png") });

  // Still in the background (the result's notification must go out too).
  await page.evaluate(() => window.go.services.SessionService.SetWindowFocused(false));
  await page.keyboard.press("1");
  // A clicked notification is closed by the server; the task's result gets
  // one of its own, which reading the result in the app withdraws.
  const done = await until("the result's notification", () =>
    readJSONL(join(notes, "shown.jsonl")).find((n) => n.Body.startsWith("Done:") && n.Summary.includes("Notify me")),
  );
  const key = `result:${taskId}`;
  await page.locator(`[data-testid="inbox-item"][data-key="${key}"]`).waitFor({ timeout: 10000 });
  const keys = await page.getByTestId("inbox-item").evaluateAll((els) => els.map((e) => e.dataset.key));
  const at = await page.getByTestId("inbox-item").evaluateAll((els) => els.findIndex((e) => e.getAttribute("aria-selected") === "true"));
  const want = keys.indexOf(key);
  for (let i = 0; i < Math.abs(want - at); i++) await page.keyboard.press(want > at ? "j" : "k");
  await page.locator('[data-testid="inbox-detail"][data-kind="result"]').waitFor();
  await page.keyboard.press("1"); // Mark read
  await until("the result's notification withdrawn", () => readJSONL(join(notes, "closed.jsonl")).some((c) => c.id === done.ID));
}, { timeoutMs: 120000 });

// Task view end to end: real Claude Code / OpenCode backends driven by the
// project's fake agent programs replaying real recordings (fakeclaude from
// backend/agent/agenttest through the harness's per-repo fakeClaude, and
// fakeopencode from backend/agent/opencode), through the orchestrator,
// SQLite and the Wails bridge into the task view.
//
// At import (before the harness starts the app) this builds fakeopencode
// behind an `opencode` wrapper in a temporary bin directory put on PATH; the
// wrapper replays the recording named in opencode.script there.
// Screenshots (light and dark) go to frontend/test-results/task-view-*.png.
// The OpenCode server is one process per app that reads its recording when
// it starts, so only one OpenCode scenario runs per app (the question).

import { execFileSync } from "node:child_process";
import { writeFileSync, chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test, assert, assertEqual } from "../lib/runner.mjs";
import { FRONTEND, REPO } from "../lib/app.mjs";
import { tempDir } from "../lib/tmp.mjs";
import { addProject, createTask } from "../lib/ui.mjs";

const bin = tempDir("jc-e2e-fakes-");
execFileSync("go", ["build", "-o", join(bin, "fakeopencode"), "./backend/agent/opencode/testdata/fakeopencode"], { cwd: REPO, stdio: "inherit" });
const wrapper = (name, envVar, real, extra = "") => {
  const p = join(bin, name);
  writeFileSync(p, `#!/bin/sh\n${envVar}="$(cat '${join(bin, name + ".script")}' 2>/dev/null)"\nexport ${envVar}\n${extra}exec '${join(bin, real)}' "$@"\n`);
  chmodSync(p, 0o755);
};
wrapper("opencode", "FAKE_OC_SCRIPT", "fakeopencode");
process.env.PATH = `${bin}:${process.env.PATH}`;

const CLAUDE_REC = join(REPO, "backend/agent/agenttest/testdata/claude");
const OC_REC = join(REPO, "backend/agent/opencode/testdata");
const shots = join(FRONTEND, "test-results");
mkdirSync(shots, { recursive: true });

function replayOpenCode(file) {
  writeFileSync(join(bin, "opencode.script"), file);
}


async function newTask(page, makeRepo, { backend, name, prompt, mode = "Ask", setup }) {
  const repo = makeRepo(name.toLowerCase().replace(/\W+/g, "-"));
  setup?.(repo);
  await addProject(page, repo);
  return createTask(page, { prompt, name, backend, mode });
}

async function screenshot(page, name) {
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
    await page.waitForTimeout(150);
    await page.screenshot({ path: join(shots, `task-view-${name}-${theme}.png`) });
  }
  await page.evaluate(() => document.documentElement.setAttribute("data-theme", "light"));
}

// partTypes walks the whole (virtualized) stream from top to bottom and
// returns the part classes and tool kinds that rendered on the way.
async function partTypes(view) {
  return view.evaluate(async (root) => {
    const el = root.querySelector(".jc-stream");
    const classes = new Set();
    const kinds = new Set();
    const collect = () => {
      for (const n of root.querySelectorAll("[class*='jc-part--'], .jc-tool, .jc-result")) {
        for (const c of n.classList) if (c.startsWith("jc-part--") || c === "jc-tool" || c === "jc-result") classes.add(c);
        const k = n.getAttribute("data-tool-kind");
        if (k) kinds.add(k);
      }
    };
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    if (el) {
      el.scrollTop = 0;
      await frame();
      for (let i = 0; i < 200; i++) {
        collect();
        if (el.scrollTop + el.clientHeight >= el.scrollHeight - 2) break;
        el.scrollTop += Math.max(100, el.clientHeight / 2);
        await frame();
      }
    }
    collect();
    return { classes: [...classes].sort(), kinds: [...kinds].sort() };
  });
}

const claudeReplay = (fakeClaude, file, delay = "15ms") => (repo) => fakeClaude(repo, { FAKE_CLAUDE_SCRIPT: file, FAKE_CLAUDE_LINE_DELAY: delay });

test("claude: a recorded run asks permission, a follow-up is queued, the answer lets it finish", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const view = await newTask(page, makeRepo, {
    backend: "claude-code",
    name: "Claude permission",
    prompt: "Create the marker file",
    setup: claudeReplay(fakeClaude, join(CLAUDE_REC, "bidi_perm_allow.jsonl")),
  });
  const card = view.getByTestId("permission-card");
  await card.waitFor({ timeout: 30000 });
  assert((await card.innerText()).includes("Bash"), "card names the tool");
  // the tool card in the stream waits for approval
  await view.locator('.jc-tool[data-tool-kind="execute"]').first().waitFor();

  // a follow-up typed while the agent waits is queued
  const box = view.getByLabel("Message");
  await box.fill("Now list the directory");
  await box.press("Enter");
  const queued = view.getByTestId("queued-message");
  await queued.waitFor({ timeout: 10000 });
  assert((await queued.innerText()).includes("Now list the directory"), "queued text shown");
  await screenshot(page, "claude-permission");

  // answer with the keyboard shortcut (focus out of the composer first)
  await view.locator(".jc-task-view__header").click();
  await page.keyboard.press("1");
  await card.waitFor({ state: "detached", timeout: 15000 });
  await view.getByTestId("result-summary").first().waitFor({ timeout: 30000 });
  const tool = view.locator('.jc-tool[data-tool-kind="execute"]').first();
  await tool.locator('[data-state="completed"], .jc-tool-state.is-completed').first().waitFor({ timeout: 15000 }).catch(() => {});
  assertEqual(await tool.getAttribute("data-state"), "completed", "tool card completed after allow");
  // the queued follow-up is sent once the turn ends (the fake answers "You said: ...")
  await view.getByText("You said: Now list the directory").waitFor({ timeout: 30000 });
  const { classes } = await partTypes(view);
  for (const t of ["jc-part--text", "jc-tool", "jc-result"]) assert(classes.includes(t), `renders ${t}: ${classes}`);
  await screenshot(page, "claude-done");
});

// A real Claude Code turn recorded with --include-partial-messages (the
// fake's own embedded recording): its last text arrives in six
// content_block_delta stream events before the whole assistant line. Lines
// 400 ms apart: the task view must show the text growing, delta by delta,
// before the message is whole and the turn ends.
test("claude: text streams live from partial messages, delta by delta", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const view = await newTask(page, makeRepo, {
    backend: "claude-code",
    name: "Claude streaming",
    prompt: "Create hello.txt, then list the directory",
    mode: "Bypass",
    setup: claudeReplay(fakeClaude, join(REPO, "backend/agent/agenttest/fakeclaude/partial_turn.jsonl"), "400ms"),
  });
  const full = "Done: hello.txt was created and the directory listing shows it.";
  const seen = [];
  const deadline = Date.now() + 60000;
  for (;;) {
    const now = await view.evaluate((root) => {
      const parts = [...root.querySelectorAll(".jc-part--text")].map((e) => e.textContent ?? "");
      return { text: parts.find((t) => t.includes("Done:")) ?? "", ended: !!root.querySelector('[data-testid="result-summary"]') };
    });
    const text = now.text.trim();
    if (text && !now.ended && seen.at(-1) !== text) seen.push(text);
    if (now.ended || Date.now() > deadline) break;
    await page.waitForTimeout(40);
  }
  await view.getByText(full).waitFor({ timeout: 10000 });
  const partial = seen.filter((t) => t !== full && full.startsWith(t));
  assert(partial.length >= 2, `the text grew in the view before the turn ended (seen: ${JSON.stringify(seen)})`);
  for (let i = 1; i < seen.length; i++) assert(seen[i].startsWith(seen[i - 1]), `each view extends the last: ${JSON.stringify(seen)}`);
});

test("claude: a question is answered from the card", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const view = await newTask(page, makeRepo, {
    backend: "claude-code",
    name: "Claude question",
    prompt: "Ask me something",
    setup: claudeReplay(fakeClaude, join(CLAUDE_REC, "ask_user.jsonl")),
  });
  const card = view.getByTestId("question-card");
  await card.waitFor({ timeout: 30000 });
  await screenshot(page, "claude-question");
  await card.locator(".jc-option").first().click();
  await card.getByRole("button", { name: /Send answer/ }).click();
  await card.waitFor({ state: "detached", timeout: 15000 });
  await view.getByTestId("result-summary").first().waitFor({ timeout: 30000 });
  await answeredChip(view);
  await screenshot(page, "claude-question-answered");
});

// answeredChip waits for the question tool's card to say what the user
// answered (the answer as stored, before it was sent).
async function answeredChip(view) {
  const chip = view.locator('.jc-tool[data-tool-kind="ask-user"] .jc-chip.is-decision').first();
  await chip.waitFor({ timeout: 15000 });
  const text = await chip.textContent();
  assert(/^answered by you: \S/.test(text), `the question's card shows the stored answer: ${text}`);
}

test("claude: the synthetic recording renders every part type", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const view = await newTask(page, makeRepo, {
    backend: "claude-code",
    name: "Claude all parts",
    prompt: "Show everything",
    setup: claudeReplay(fakeClaude, join(REPO, "backend/agent/claude/testdata/synthetic_cases.jsonl")),
  });
  const q = view.getByTestId("question-card");
  await Promise.race([q.waitFor({ timeout: 30000 }), view.getByTestId("result-summary").first().waitFor({ timeout: 30000 })]);
  if (await q.count()) {
    await q.locator(".jc-option").first().click();
    await q.getByRole("button", { name: /Send answer/ }).click();
  }
  await view.getByTestId("result-summary").first().waitFor({ timeout: 30000 });
  await view.locator(".jc-part--compact").first().waitFor();
  const { classes, kinds } = await partTypes(view);
  for (const t of ["jc-part--text", "jc-part--user-text", "jc-part--reasoning", "jc-part--compact", "jc-part--status", "jc-tool", "jc-result"]) {
    assert(classes.includes(t), `renders ${t}: ${classes}`);
  }
  for (const k of ["ask-user", "edit", "skill", "sub-agent", "todo"]) assert(kinds.includes(k), `tool kind ${k}: ${kinds}`);
  // one summary for the turn, and the sub-agent's own tool renders inside its card
  await view.evaluate((root) => (root.querySelector(".jc-stream").scrollTop = 0));
  const sub = view.locator('.jc-tool[data-tool-kind="sub-agent"]').first();
  await sub.waitFor();
  await sub.locator(".jc-tool__header").first().click();
  await sub.locator('.jc-tool[data-tool-kind="search"]').waitFor();
  await screenshot(page, "claude-all-parts");
  await view.evaluate((root) => (root.querySelector(".jc-stream").scrollTop = 1e9));
  await page.waitForTimeout(300);
  assertEqual(await view.getByTestId("result-summary").count(), 1, "one result summary for the turn");
  await screenshot(page, "claude-all-parts-end");
});

test("opencode: a recorded run asks a question; the answer is sent", async ({ page, open, makeRepo }) => {
  replayOpenCode(join(OC_REC, "serve-question.sse"));
  await open();
  const view = await newTask(page, makeRepo, { backend: "opencode", name: "OpenCode question", prompt: "Which greeting?" });
  const card = view.getByTestId("question-card");
  await card.waitFor({ timeout: 40000 });
  await screenshot(page, "opencode-question");
  await card.locator(".jc-option").first().click();
  await card.getByRole("button", { name: /Send answer/ }).click();
  await card.waitFor({ state: "detached", timeout: 15000 });
  await view.locator(".jc-tool").first().waitFor({ timeout: 30000 });
  const { classes, kinds } = await partTypes(view);
  for (const t of ["jc-part--text", "jc-tool"]) assert(classes.includes(t), `renders ${t}: ${classes}`);
  assert(kinds.includes("ask-user"), `the question tool has its card: ${kinds}`);
  await answeredChip(view);
  await screenshot(page, "opencode-question-done");
});

// A Gemini CLI turn of several tool calls, end to end: a stand-in `gemini`
// (set as the agent's binary path in the Agents settings, so other tests
// see no Gemini on PATH) prints stream-json lines as Gemini CLI 0.61 does;
// the turn shows as steps (text, then its tool call and result), one
// assistant message each, in order, every tool call ends completed, and
// the stored messages say the same.
// Screenshot: frontend/test-results/steps-gemini.png.

import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, assert, assertEqual } from "../lib/runner.mjs";
import { FRONTEND } from "../lib/app.mjs";
import { tempDir } from "../lib/tmp.mjs";
import { addProject, createTask, until } from "../lib/ui.mjs";

const shots = join(FRONTEND, "test-results");
mkdirSync(shots, { recursive: true });

const SID = "0b8e4c55-2f0e-4d7a-9a43-5d2f3b9b7e11";
const ts = (s) => `2026-11-29T10:00:${String(s).padStart(2, "0")}.000Z`;

/** The turn's lines: three steps of a sentence and a shell command, then a closing sentence. */
function recording() {
  const lines = [
    { type: "init", timestamp: ts(0), session_id: SID, model: "gemini-test" },
    { type: "message", timestamp: ts(1), role: "user", content: "Check the three files." },
  ];
  let t = 2;
  for (const n of [1, 2, 3]) {
    const id = `run_shell_command__run_shell_command_${n}`;
    lines.push({ type: "message", timestamp: ts(t++), role: "assistant", content: `Step ${n}: looking at `, delta: true });
    lines.push({ type: "message", timestamp: ts(t++), role: "assistant", content: `file${n}.txt.`, delta: true });
    lines.push({ type: "tool_use", timestamp: ts(t++), tool_name: "run_shell_command", tool_id: id, parameters: { command: `wc -l file${n}.txt` } });
    lines.push({ type: "tool_result", timestamp: ts(t++), tool_id: id, status: "success", output: `${n * 10} file${n}.txt` });
  }
  lines.push({ type: "message", timestamp: ts(t++), role: "assistant", content: "All three files checked.", delta: true });
  lines.push({ type: "result", timestamp: ts(t++), status: "success", stats: { total_tokens: 30, input_tokens: 20, output_tokens: 10, duration_ms: 900, tool_calls: 3 } });
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

/** fakeGemini writes the stand-in: it reads the prompt from stdin and prints the recording. */
function fakeGemini() {
  const dir = tempDir("jc-e2e-gemini-");
  const rec = join(dir, "turn.jsonl");
  writeFileSync(rec, recording());
  const bin = join(dir, "gemini");
  writeFileSync(
    bin,
    `#!/bin/sh
# e2e stand-in for Gemini CLI (frontend/e2e/tests/steps.test.mjs)
case "$1" in --version) echo 0.61.0; exit 0 ;; esac
cat >/dev/null
cat '${rec}'
`,
  );
  chmodSync(bin, 0o755);
  return bin;
}

test("gemini: a turn of tool calls shows as steps, in order, every tool call completed", async ({ page, open, makeRepo }) => {
  await open();
  const bin = fakeGemini();
  await page.evaluate(
    (binaryPath) => window.go.services.AgentService.SaveSettings("gemini", { binaryPath, extraArgs: [], env: {}, defaultModel: "", defaultMode: "" }),
    bin,
  );
  const repo = makeRepo("gemini-steps");
  await addProject(page, repo);
  const view = await createTask(page, { prompt: "Check the three files.", name: "Gemini steps", backend: "gemini", mode: "Bypass" });
  await view.getByTestId("result-summary").first().waitFor({ timeout: 30000 });

  // The window: the three commands, each completed, and the texts in order.
  const tools = view.locator('.jc-tool[data-tool-kind="execute"]');
  await until("three tool cards", async () => (await tools.count()) === 3);
  for (let i = 0; i < 3; i++) assertEqual(await tools.nth(i).getAttribute("data-state"), "completed", `tool ${i + 1} completed`);
  const text = await view.innerText();
  const at = ["Step 1: looking at file1.txt.", "Step 2: looking at file2.txt.", "Step 3: looking at file3.txt.", "All three files checked."].map((s) => text.indexOf(s));
  assert(at.every((i) => i >= 0), `every step's text shown: ${at}`);
  assert(at.every((i, k) => k === 0 || i > at[k - 1]), `the steps' texts in order: ${at}`);
  await page.screenshot({ path: join(shots, "steps-gemini.png") });

  // The store: one assistant message per step, each with its text (and its tool call), in order.
  const stored = await page.evaluate(async () => {
    const projects = await window.go.services.ProjectService.List();
    for (const p of projects) {
      const task = (await window.go.services.TaskService.List(p.id)).find((t) => t.name === "Gemini steps");
      if (!task) continue;
      const pg = await window.go.services.SessionService.MessagePage(task.id, -1, 100, "");
      return pg.messages.filter((m) => m.role === "assistant").map((m) => m.parts.map((p) => p.type + (p.state ? ":" + p.state : "")).join(","));
    }
    return null;
  });
  assertEqual(
    JSON.stringify(stored),
    JSON.stringify([...Array(3).fill("text,tool-use:completed,tool-result"), "text"]),
    "stored assistant messages: one per step",
  );
});

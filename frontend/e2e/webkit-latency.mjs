#!/usr/bin/env node
// Issue 23: "the very first task of a fresh start showed nothing for ~8 s
// after its permission request was stored (later tasks ~1 s)". Measured in
// the REAL WebKitGTK window:
//   node e2e/webkit-latency.mjs [--no-build] [--keep] [--tasks N]
//
// 1. A first launch of the dev binary adds a project whose fake Claude Code
//    asks a permission at once (e2e/testdata/claude-rules.jsonl).
// 2. A second launch (a fresh start of the process and of the window): for
//    each task, Chromium on the dev server creates it, the WebKit window is
//    sent to it ("app:navigate", as the window's own New task form opens the
//    task it created) and the session starts. Meanwhile the window is grabbed
//    in a loop (ImageMagick `import`); the card is visible in the first frame
//    whose card area (above the composer) is no longer blank. The request's
//    stored time is pending_requests.createdAt (PendingRequests).
// Prints per task: stored-after-start and visible-after-stored, in ms, and
// writes the first frame showing the card to docs/screenshots/webkit/.

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FRONTEND, REPO, DEV_BINARY, startApp, makeGitRepo } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { buildFakeAgents, setFakeClaude } from "./lib/fakeagents.mjs";
import { stopSync } from "./lib/procs.mjs";
import { navigate, xwin } from "./webkit-shots.mjs";

const args = process.argv.slice(2);
const keep = args.includes("--keep");
const tasksAt = args.indexOf("--tasks");
const TASKS = tasksAt >= 0 ? Number(args[tasksAt + 1]) : 3;
const OUT = join(REPO, "docs/screenshots/webkit");
const W = 1280;
const H = 800;
// The card's area at 1280×800 with all columns: the main pane, above the composer.
const CARD_AREA = "680x200+570+470";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** blank says whether the card area of a frame is one flat colour (no card yet). */
function blank(file) {
  const sd = execFileSync("convert", [file, "-crop", CARD_AREA, "+repage", "-colorspace", "Gray", "-format", "%[fx:standard_deviation]", "info:"], { encoding: "utf8" });
  return Number(sd) < 0.01;
}

async function withApp(tmp, fakeBin, fn) {
  const displayFile = join(tmp, "display");
  const app = await startApp({ tmp, keepTmp: true, pathPrefix: [fakeBin], screen: `${W}x${H}`, displayFile });
  const onExit = () => stopSync(app.child);
  process.on("exit", onExit);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: W, height: H } });
    await page.goto(app.baseURL + "/");
    await page.locator(".jc-app[data-ready]").waitFor();
    return await fn(page, displayFile);
  } finally {
    await browser.close();
    await app.stop();
    process.off("exit", onExit);
  }
}

/** measure starts one task and returns { stored, visible } in ms after the start. */
async function measure(page, win, projectId, n, frames) {
  const id = await page.evaluate(
    async ([projectId, n]) =>
      (await window.go.services.TaskService.Create({ projectId, prompt: `Run the tests (${n})`, name: "", backend: "claude-code", model: "", interactionMode: "ask" })).id,
    [projectId, n],
  );
  await navigate(page, { projectId, screen: { kind: "task", taskId: id }, theme: "light" });
  const t0 = Date.now();
  await page.evaluate((id) => window.go.services.SessionService.Start(id), id);
  let stored = 0;
  let visible = 0;
  let first = "";
  for (let i = 0; Date.now() - t0 < 30000 && !(stored && visible); i++) {
    const file = join(frames, `task${n}-${String(i).padStart(3, "0")}.png`);
    win.grab(file);
    const at = Date.now() - t0;
    if (!stored) {
      const p = await page.evaluate((id) => window.go.services.SessionService.PendingRequests(id), id);
      if (p?.length) stored = p[0].createdAt - t0;
    }
    if (!visible && !blank(file)) {
      visible = at;
      first = file;
    }
  }
  return { id, stored, visible, first };
}

async function main() {
  if (!args.includes("--no-build")) {
    execFileSync("npx", ["vite", "build", "--logLevel", "warn"], { cwd: FRONTEND, stdio: "inherit" });
    execFileSync("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], { cwd: REPO, stdio: "inherit" });
  }
  const fakeBin = buildFakeAgents();
  const tmp = mkdtempSync(join(tmpdir(), "jc-latency-"));
  const frames = join(tmp, "frames");
  mkdirSync(frames, { recursive: true });
  mkdirSync(OUT, { recursive: true });
  const repo = makeGitRepo(join(tmp, "repos"), "asks-at-once");
  setFakeClaude(repo, { FAKE_CLAUDE_SCRIPT: join(REPO, "frontend/e2e/testdata/claude-rules.jsonl") });
  const projectId = await withApp(tmp, fakeBin, (page) => page.evaluate(async (r) => (await window.go.services.ProjectService.Add(r)).id, repo));
  // A fresh start: a new process and a new window on that database.
  const results = await withApp(tmp, fakeBin, async (page, displayFile) => {
    const win = xwin(displayFile);
    win.size(W, H);
    await sleep(8000); // the window's first load (software rendering under Xvfb)
    const out = [];
    for (let n = 1; n <= TASKS; n++) {
      const r = await measure(page, win, projectId, n, frames);
      console.log(`latency: task ${n}: stored ${r.stored} ms after Start, card visible ${r.visible} ms after Start = ${r.visible - r.stored} ms after stored (${r.first})`);
      out.push(r);
      await sleep(1500);
    }
    return out;
  });
  results.forEach((r, i) => r.first && copyFileSync(r.first, join(OUT, `latency-task${i + 1}-first-frame.png`)));
  console.log(`latency: frames in ${frames}${keep ? "" : " (removed; --keep keeps them)"}`);
  if (!keep) execFileSync("rm", ["-rf", tmp]);
}

await main();

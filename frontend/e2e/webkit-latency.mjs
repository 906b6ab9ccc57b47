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

import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, mkdtempSync } from "node:fs";
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
const run = promisify(execFile);

/** blank says whether the card area of a frame is one flat colour (no card yet). */
async function blank(file) {
  const { stdout } = await run("convert", [file, "-crop", CARD_AREA, "+repage", "-colorspace", "Gray", "-format", "%[fx:standard_deviation]", "info:"]);
  return Number(stdout) < 0.01;
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

/**
 * measure starts one task and returns, in ms after the start, when its request
 * was stored (createdAt, the Go clock) and the first frame showing the card
 * (the time the grab finished). Frames are raw xwd grabs of the window,
 * checked afterwards; the start and the pending poll run in the page without
 * blocking the grabs.
 */
async function measure(page, win, projectId, n, frames) {
  const id = await page.evaluate(
    async ([projectId, n]) =>
      (await window.go.services.TaskService.Create({ projectId, prompt: `Run the tests (${n})`, name: "", backend: "claude-code", model: "", interactionMode: "ask" })).id,
    [projectId, n],
  );
  await navigate(page, { projectId, screen: { kind: "task", taskId: id }, theme: "light" });
  await sleep(2000); // the (empty) task view is open, as after the New task form
  const t0 = Date.now();
  await page.evaluate((id) => {
    void window.go.services.SessionService.Start(id);
  }, id);
  let stored = 0;
  const poll = (async () => {
    while (!stored && Date.now() - t0 < 60000) {
      const p = await page.evaluate((id) => window.go.services.SessionService.PendingRequests(id), id);
      if (p?.length) stored = p[0].createdAt - t0;
      else await sleep(100);
    }
  })();
  // Grab until 15 s after the request was stored (the machine may be loaded:
  // checking frames afterwards keeps the grabs as close together as they go).
  const shots = [];
  for (let i = 0; Date.now() - t0 < 60000 && !(stored && Date.now() - t0 > stored + 15000); i++) {
    const file = join(frames, `task${n}-${String(i).padStart(3, "0")}.xwd`);
    await run("xwd", ["-id", win.wid, "-silent", "-out", file], { env: win.env });
    shots.push({ file, at: Date.now() - t0 });
  }
  await poll;
  let visible = 0;
  let before = 0; // the last frame without the card: the card appeared between before and visible
  let first = "";
  for (const f of shots) {
    if (await blank(f.file)) before = f.at;
    else {
      visible = f.at;
      first = f.file;
      break;
    }
  }
  const count = shots.length;
  return { id, stored, before, visible, first, frames: count };
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
      console.log(
        `latency: task ${n}: stored ${r.stored} ms after Start; card first seen ${r.visible} ms after Start = ${r.visible - r.stored} ms after stored (not yet at ${r.before - r.stored} ms; ${r.frames} frames, ${r.first})`,
      );
      out.push(r);
      await sleep(1500);
    }
    return out;
  });
  results.forEach((r, i) => r.first && execFileSync("convert", [r.first, join(OUT, `latency-task${i + 1}-first-frame.png`)]));
  console.log(`latency: frames in ${frames}${keep ? "" : " (removed; --keep keeps them)"}`);
  if (!keep) execFileSync("rm", ["-rf", tmp]);
}

await main();

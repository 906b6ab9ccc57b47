#!/usr/bin/env node
// What the real WebKitGTK window spends on a streaming task, with and
// without an environment (issue 20: a JavaScriptCore setting that saves idle
// memory must not cost the window's work):
//   node e2e/webkit-cpu.mjs [--no-build] [--rounds N] [--lines N] [--env "K=V,K=V"] [--shot DIR] [--idle SECONDS]
//                           [--variant-binary PATH --variant-assets DIR]
//
// Each run: a fresh profile, the dev binary under Xvfb, a project whose fake
// Claude Code streams a recorded turn with partial messages (--lines lines,
// one every 20 ms), a task created from Chromium on the dev server and the
// WebKit window sent to it ("app:navigate"), then the session started. It
// reads the CPU time (user + system) of the window's web process from the
// session's start to the task's end, and its anonymous memory at the end.
// Runs alternate: default, then --env, N rounds; prints each run and the
// medians. The app starts its web process with JavaScriptCore's tiering
// thresholds at 20000 (startup.go, webProcessEnv; a variable set by the
// user wins), so JSC's own defaults are the variant
//   --env "JSC_thresholdForOptimizeAfterWarmUp=1000,JSC_thresholdForOptimizeSoon=1000"
// (make cpu-webkit). With --variant-binary (a dev binary) and
// --variant-assets (its built frontend) the variant is another build, e.g.
// the code before a change (a git worktree's build). Memory is read when
// the session starts and when the task has ended (the web process's and the
// app's).

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FRONTEND, REPO, DEV_BINARY, startApp, makeGitRepo } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { buildFakeAgents, setFakeClaude } from "./lib/fakeagents.mjs";
import { descendants, stopSync } from "./lib/procs.mjs";
import { navigate, xwin } from "./webkit-shots.mjs";

const args = process.argv.slice(2);
const opt = (name, d) => (args.includes(name) ? args[args.indexOf(name) + 1] : d);
const ROUNDS = Number(opt("--rounds", 3));
const LINES = Number(opt("--lines", 1500));
const IDLE_S = Number(opt("--idle", 0)); // then the web process's CPU over this many idle seconds, the task view shown
const SHOT = opt("--shot", ""); // a directory: the window at the end of each run
const VARIANT = Object.fromEntries(
  opt("--env", "")
    .split(",")
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
);
const VARIANT_BUILD = {
  binary: opt("--variant-binary", undefined),
  assetDir: opt("--variant-assets", undefined),
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TICK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));

/** cpuSeconds is a process's user + system time. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / TICK;
}

/** anonMB is a process's anonymous memory (smaps_rollup). */
function anonMB(pid) {
  const m = /^Anonymous:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** childNamed is the first of the app's processes whose name passes named
 * (startApp's child is the Xvfb wrapper: the app and its web process are below it). */
function childNamed(app, named, what) {
  const pid = descendants(app.child.pid).find((p) => {
    try {
      return named(readFileSync(`/proc/${p}/comm`, "utf8").trim());
    } catch {
      return false;
    }
  });
  if (!pid) throw new Error(`no ${what} under the app`);
  return pid;
}

const appProcess = (app) => childNamed(app, (n) => n.startsWith("jean-claude"), "app process");
const webProcess = (app) => childNamed(app, (n) => n === "WebKitWebProces", "WebKit web process");

async function oneRun(name, fakeBin, env, build = {}) {
  const tmp = mkdtempSync(join(tmpdir(), "jc-webkit-cpu-"));
  const repo = makeGitRepo(join(tmp, "repos"), "streams");
  setFakeClaude(repo, { FAKE_CLAUDE_REPEAT: String(LINES), FAKE_CLAUDE_REPEAT_SHAPE: "recorded", FAKE_CLAUDE_LINE_DELAY: "20ms" });
  const displayFile = join(tmp, "display");
  const app = await startApp({ tmp, keepTmp: true, pathPrefix: [fakeBin], env, displayFile, ...build });
  const onExit = () => stopSync(app.child);
  process.on("exit", onExit);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.baseURL + "/");
    await page.locator(".jc-app[data-ready]").waitFor();
    const win = xwin(displayFile);
    win.size(1280, 800);
    await sleep(8000); // the window's first load (software rendering under Xvfb)
    const projectId = await page.evaluate(async (r) => (await window.go.services.ProjectService.Add(r)).id, repo);
    const id = await page.evaluate(
      async (projectId) =>
        (await window.go.services.TaskService.Create({ projectId, prompt: "Stream", name: "", backend: "claude-code", model: "", interactionMode: "bypass" })).id,
      projectId,
    );
    await navigate(page, { projectId, screen: { kind: "task", taskId: id }, theme: "light" });
    await sleep(3000);
    const web = webProcess(app);
    const before = cpuSeconds(web);
    const anon0 = anonMB(web);
    const appPid = appProcess(app);
    const app0 = anonMB(appPid);
    const t0 = Date.now();
    await page.evaluate((id) => window.go.services.SessionService.Start(id), id);
    for (;;) {
      const t = await page.evaluate(async ([p, id]) => (await window.go.services.TaskService.List(p)).find((x) => x.id === id), [projectId, id]);
      if (t && ["completed", "errored", "interrupted"].includes(t.status)) {
        if (t.status !== "completed") throw new Error(`the task ended ${t.status}`);
        break;
      }
      if (Date.now() - t0 > 10 * 60_000) throw new Error("the task did not end in 10 minutes");
      await sleep(250);
    }
    await sleep(1000); // the window draws the end
    if (SHOT) win.grab(join(SHOT, `webkit-cpu-${name}.png`));
    const run = { cpu: cpuSeconds(web) - before, wall: (Date.now() - t0) / 1000, anon: anonMB(web), grew: anonMB(web) - anon0, appGrew: anonMB(appPid) - app0 };
    if (IDLE_S > 0) {
      // The task view stays shown, nothing streams: what the window spends
      // doing nothing, and the memory it comes back to.
      await sleep(10000);
      const idle0 = cpuSeconds(web);
      await sleep(IDLE_S * 1000);
      run.idlePct = ((cpuSeconds(web) - idle0) / IDLE_S) * 100;
      run.idleAnon = anonMB(web);
    }
    return run;
  } finally {
    await browser.close();
    await app.stop();
    process.off("exit", onExit);
    rmSync(tmp, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  if (!args.includes("--no-build")) {
    execFileSync("npx", ["vite", "build", "--logLevel", "warn"], { cwd: FRONTEND, stdio: "inherit" });
    execFileSync("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], { cwd: REPO, stdio: "inherit" });
  }
  const fakeBin = buildFakeAgents();
  const res = { default: [], variant: [] };
  for (let r = 1; r <= ROUNDS; r++) {
    for (const [name, env, build] of [["default", {}, {}], ["variant", VARIANT, VARIANT_BUILD]]) {
      const x = await oneRun(name, fakeBin, env, build);
      res[name].push(x);
      console.log(`webkit-cpu: round ${r} ${name}: web process ${x.cpu.toFixed(2)} s CPU over ${x.wall.toFixed(1)} s streaming ${LINES} lines (${((x.cpu / LINES) * 1000).toFixed(2)} ms/line), anon ${x.anon.toFixed(1)} MB (grew ${x.grew.toFixed(1)}; the app grew ${x.appGrew.toFixed(1)})${x.idlePct === undefined ? "" : `; idle ${IDLE_S} s: ${x.idlePct.toFixed(2)} % of a core, anon ${x.idleAnon.toFixed(1)} MB`}`);
    }
  }
  for (const name of ["default", "variant"]) {
    const xs = res[name];
    const what = name === "variant" ? JSON.stringify({ ...VARIANT, ...VARIANT_BUILD }) : "";
    console.log(`webkit-cpu: ${name} ${what}: median CPU ${median(xs.map((x) => x.cpu)).toFixed(2)} s, anon ${median(xs.map((x) => x.anon)).toFixed(1)} MB, grew ${median(xs.map((x) => x.grew)).toFixed(1)} MB, the app grew ${median(xs.map((x) => x.appGrew)).toFixed(1)} MB${IDLE_S > 0 ? `, idle ${median(xs.map((x) => x.idlePct)).toFixed(2)} % of a core, idle anon ${median(xs.map((x) => x.idleAnon)).toFixed(1)} MB` : ""} (${ROUNDS} runs)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

#!/usr/bin/env node
// make soak (issue 20): five tasks with the fake Claude Code streaming for
// SOAK_MINUTES (default 60) while Chromium switches the view between them;
// memory is sampled every minute. When the tasks have ended and the task
// view is closed, memory must come back within 10 % of where it started.
//
// Runs the dev binary (Wails dev mode, frontend/e2e/lib/app.mjs) under Xvfb
// with a fresh profile, drives it with playwright-core + Debian's Chromium,
// and measures:
//   app PSS   the dev binary and its WebKit processes (/proc/*/smaps_rollup)
//   JS heap   the Chromium page's used JS heap after a forced GC (CDP)
// Writes build/soak/samples.tsv and a chart (SOAK_CHART, default
// docs/soak.png) drawn as SVG and rendered to PNG by the same Chromium.
// Exit status 1 when memory does not return within 10 %.
//
// Env: SOAK_MINUTES (60), SOAK_LINE_DELAY_MS (250: each fake agent writes a
// ~300-byte line every 250 ms), SOAK_SWITCH_SECONDS (5), SOAK_SAMPLE_SECONDS
// (60), SOAK_CHART (docs/soak.png), SOAK_KEEP=1 keeps the temp dir.

import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startApp, makeGitRepo, REPO } from "../../frontend/e2e/lib/app.mjs";
import { launchBrowser } from "../../frontend/e2e/lib/browser.mjs";
import { buildFakeAgents, setFakeClaude } from "../../frontend/e2e/lib/fakeagents.mjs";
import { descendants } from "../../frontend/e2e/lib/procs.mjs";
import { chartSVG } from "./chart.mjs";

const env = (k, d) => Number(process.env[k] ?? d);
const MINUTES = env("SOAK_MINUTES", 60);
const LINE_DELAY_MS = env("SOAK_LINE_DELAY_MS", 250);
const SWITCH_S = env("SOAK_SWITCH_SECONDS", 5);
const SAMPLE_S = env("SOAK_SAMPLE_SECONDS", 60);
const CHART = join(REPO, process.env.SOAK_CHART ?? "docs/soak.png");
const TASKS = 5;
const OUT = join(REPO, "build/soak");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function pssMB(pid) {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

function comm(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** appPSS: the dev binary and everything below it (its WebKit processes, agents while they run). */
function appPSS(rootPid) {
  const app = descendants(rootPid).find((p) => comm(p).startsWith("jean-claude"));
  if (!app) throw new Error("the app process is gone");
  return [app, ...descendants(app)].reduce((s, p) => s + pssMB(p), 0);
}

async function jsHeapMB(cdp) {
  await cdp.send("HeapProfiler.collectGarbage");
  const { usedSize } = await cdp.send("Runtime.getHeapUsage");
  return usedSize / 2 ** 20;
}

async function setup(page, tmp) {
  const repo = makeGitRepo(tmp, "soak");
  const lines = Math.max(1, Math.round((MINUTES * 60_000) / LINE_DELAY_MS));
  setFakeClaude(repo, { FAKE_CLAUDE_REPEAT: String(lines), FAKE_CLAUDE_LINE_DELAY: `${LINE_DELAY_MS}ms` });
  const project = await page.evaluate((p) => window.go.services.ProjectService.Add(p), repo);
  await page.getByTestId("project-item").filter({ hasText: "soak" }).click();
  return { projectId: project.id, lines };
}

async function startTasks(page, projectId) {
  const ids = [];
  for (let i = 1; i <= TASKS; i++) {
    const t = await page.evaluate(
      ([projectId, i]) =>
        window.go.services.TaskService.Create({ projectId, prompt: `Soak task ${i}`, name: "", backend: "claude-code", model: "", interactionMode: "bypass" }),
      [projectId, i],
    );
    await page.evaluate((id) => window.go.services.SessionService.Start(id), t.id);
    ids.push(t.id);
  }
  return ids;
}

async function statuses(page, projectId) {
  return page.evaluate(async (projectId) => (await window.go.services.TaskService.List(projectId)).map((t) => t.status), projectId);
}

function dbMB(dbPath) {
  let n = 0;
  for (const f of [dbPath, dbPath + "-wal"]) {
    try {
      n += statSync(f).size;
    } catch {
      /* no WAL */
    }
  }
  return n / 2 ** 20;
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const fakeDir = buildFakeAgents();
  const app = await startApp({ pathPrefix: [fakeDir], keepTmp: process.env.SOAK_KEEP === "1" });
  const browser = await launchBrowser();
  const stopAll = async () => {
    await browser.close().catch(() => {});
    await app.stop();
  };
  process.on("SIGINT", () => stopAll().then(() => process.exit(130)));
  try {
    return await soak(app, browser);
  } finally {
    await stopAll();
  }
}

async function soak(app, browser) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(app.baseURL + "/");
  await page.locator(".jc-app[data-ready]").waitFor({ timeout: 30000 });
  const cdp = await page.context().newCDPSession(page);
  const { projectId, lines } = await setup(page, app.tmp);
  await sleep(5000);
  const samples = [];
  const t0 = Date.now();
  const sample = async (phase) => {
    const s = { min: (Date.now() - t0) / 60000, phase, appMB: appPSS(app.child.pid), heapMB: await jsHeapMB(cdp), dbMB: dbMB(app.dbPath) };
    samples.push(s);
    console.log(`soak: ${s.min.toFixed(1)} min ${phase.padEnd(8)} app PSS ${s.appMB.toFixed(1)} MB, JS heap ${s.heapMB.toFixed(1)} MB, db ${s.dbMB.toFixed(1)} MB`);
    return s;
  };
  const start = await sample("start");
  console.log(`soak: ${TASKS} tasks x ${lines} lines, one every ${LINE_DELAY_MS} ms (${MINUTES} min), view switch every ${SWITCH_S} s`);
  await startTasks(page, projectId);
  const rows = page.getByTestId("task-row");
  let nextSample = Date.now() + SAMPLE_S * 1000;
  const deadline = Date.now() + (MINUTES + 10) * 60000;
  for (let i = 0; ; i++) {
    await rows.nth(i % TASKS).click().catch((e) => console.error("switch:", e.message));
    await sleep(SWITCH_S * 1000);
    if (Date.now() >= nextSample) {
      await sample("running");
      nextSample += SAMPLE_S * 1000;
      const st = await statuses(page, projectId);
      if (st.every((s) => s !== "running" && s !== "queued" && s !== "starting")) break;
      if (Date.now() > deadline) throw new Error(`tasks still running after ${MINUTES + 10} min: ${st.join(", ")}`);
    }
  }
  console.log(`soak: tasks ended: ${(await statuses(page, projectId)).join(", ")}`);
  // Close the views: the main pane shows the Settings screen, no task view.
  await page.getByRole("button", { name: "Settings" }).click();
  await sleep(30000);
  const end = await sample("closed");
  await sleep(30000);
  const end2 = await sample("closed");
  return report(start, end2 ?? end, samples, browser);
}

async function report(start, end, samples, browser) {
  const tsv = ["minute\tphase\tapp_pss_mb\tjs_heap_mb\tdb_mb", ...samples.map((s) => [s.min.toFixed(2), s.phase, s.appMB.toFixed(1), s.heapMB.toFixed(1), s.dbMB.toFixed(1)].join("\t"))];
  writeFileSync(join(OUT, "samples.tsv"), tsv.join("\n") + "\n");
  const peak = samples.reduce((m, s) => ({ appMB: Math.max(m.appMB, s.appMB), heapMB: Math.max(m.heapMB, s.heapMB) }), { appMB: 0, heapMB: 0 });
  const appRatio = end.appMB / start.appMB;
  const heapRatio = end.heapMB / start.heapMB;
  const title = `make soak: ${TASKS} fake agents for ${MINUTES} min, view switched every ${SWITCH_S} s`;
  const page = await browser.newPage({ viewport: { width: 900, height: 480 } });
  await page.setContent(`<body style="margin:0;background:#fff">${chartSVG(samples, title)}</body>`);
  mkdirSync(join(CHART, ".."), { recursive: true });
  await page.locator("svg").screenshot({ path: CHART });
  console.log(`soak: chart ${CHART}, samples ${join(OUT, "samples.tsv")}`);
  console.log(`soak: app PSS start ${start.appMB.toFixed(1)} MB, peak ${peak.appMB.toFixed(1)} MB, end ${end.appMB.toFixed(1)} MB (end/start ${appRatio.toFixed(3)}, goal <= 1.10)`);
  console.log(`soak: JS heap start ${start.heapMB.toFixed(1)} MB, peak ${peak.heapMB.toFixed(1)} MB, end ${end.heapMB.toFixed(1)} MB (end/start ${heapRatio.toFixed(3)}, goal <= 1.10)`);
  const ok = appRatio <= 1.1 && heapRatio <= 1.1;
  console.log(ok ? "soak: PASS" : "soak: FAIL: memory did not return within 10 % of the start");
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error("soak:", err.stack ?? err);
    process.exit(1);
  },
);

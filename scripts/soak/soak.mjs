#!/usr/bin/env node
// make soak (issue 20): five tasks with the fake Claude Code streaming for
// SOAK_MINUTES (default 60) while the view switches between them, in the
// app's own WebKitGTK window and in a Chromium page on its dev server;
// memory is sampled every minute. When the tasks have ended and the task
// views are closed, memory must come back within 10 % of where it started.
//
// Runs the dev binary (Wails dev mode, frontend/e2e/lib/app.mjs) under Xvfb
// with a fresh profile, drives it with playwright-core + Debian's Chromium,
// and measures:
//   app anon  anonymous memory of the dev binary and its WebKit processes
//             (/proc/*/smaps_rollup; PSS is printed too, see memMB)
//             (the window shows what Chromium shows: showInWindow)
//   JS heap   the Chromium page's used JS heap after a forced GC (CDP),
//             and at the start and the end its data apart from its
//             compiled code (heapSplit): the data must come back too
// Writes build/soak/samples.tsv and a chart (SOAK_CHART, default
// docs/soak.png) drawn as SVG and rendered to PNG by the same Chromium.
// Exit status 1 when memory does not return within 10 %.
//
// Env: SOAK_MINUTES (60), SOAK_LINE_DELAY_MS (250: each fake agent writes a
// ~300-byte line every 250 ms), SOAK_SWITCH_SECONDS (5), SOAK_SAMPLE_SECONDS
// (60), SOAK_SETTLE_SECONDS (180: how long memory may take to come back once
// the view is closed), SOAK_WARMUP_SECONDS (60: how long the warm-up task
// streams before the start is measured), SOAK_CHART (docs/soak.png), SOAK_SAMPLES
// (build/soak/samples.tsv), SOAK_KEEP=1 keeps the
// temp dir, SOAK_BINARY (a dev binary other than build/bin/jean-claude-dev,
// for before/after), SOAK_ASSETS (a built frontend other than
// frontend/dist, for before/after: both the window and Chromium load it),
// SOAK_APP_ENV ("K=V K=V": more environment for the app,
// e.g. GODEBUG=gctrace=1, whose lines go to the app log: SOAK_KEEP=1),
// SOAK_PPROF=1 (the app serves Go's profiles, JEAN_CLAUDE_PPROF: each sample
// also prints the Go runtime's heap figures, and the app's Go heap
// profile and /proc/PID/smaps (and the window's web process's) at the start
// and the end are saved next to
// SOAK_SAMPLES), SOAK_HEAP_SNAPSHOTS=1 (the page's JS heap snapshot at the
// start and the end, NAME-start.heapsnapshot …, next to SOAK_SAMPLES: open
// them in Chromium's DevTools, Memory, "Comparison").

import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { startApp, makeGitRepo, freePort, REPO } from "../../frontend/e2e/lib/app.mjs";
import { launchBrowser } from "../../frontend/e2e/lib/browser.mjs";
import { buildFakeAgents, setFakeClaude } from "../../frontend/e2e/lib/fakeagents.mjs";
import { descendants } from "../../frontend/e2e/lib/procs.mjs";
import { navigate, xwin } from "../../frontend/e2e/webkit-shots.mjs";
import { chartSVG } from "./chart.mjs";

const env = (k, d) => Number(process.env[k] ?? d);
const MINUTES = env("SOAK_MINUTES", 60);
const LINE_DELAY_MS = env("SOAK_LINE_DELAY_MS", 250);
const SWITCH_S = env("SOAK_SWITCH_SECONDS", 5);
const SAMPLE_S = env("SOAK_SAMPLE_SECONDS", 60);
const SETTLE_S = Math.max(30, env("SOAK_SETTLE_SECONDS", 180));
const WARMUP_S = env("SOAK_WARMUP_SECONDS", 60);
const CHART = join(REPO, process.env.SOAK_CHART ?? "docs/soak.png");
const TASKS = 5;
const OUT = join(REPO, "build/soak");
const SAMPLES = join(REPO, process.env.SOAK_SAMPLES ?? "build/soak/samples.tsv");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * memMB reads /proc/PID/smaps_rollup: anonymous memory (heaps, JIT, buffers:
 * what a leak grows) and PSS. PSS and USS count library pages too, shared
 * with every process mapping them machine-wide, so they move when other
 * WebKit apps start or stop; anonymous memory does not: the check uses it.
 */
function memMB(pid) {
  try {
    const t = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, "m").exec(t)?.[1] ?? 0);
    return { anon: kb("Anonymous") / 1024, pss: kb("Pss") / 1024 };
  } catch {
    return { anon: 0, pss: 0 };
  }
}

function comm(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** appMem: anonymous memory and PSS by process name of the dev binary and its WebKit processes (agents apart). */
function appMem(rootPid) {
  const app = descendants(rootPid).find((p) => comm(p).startsWith("jean-claude"));
  if (!app) throw new Error("the app process is gone");
  const by = {};
  for (const p of [app, ...descendants(app)]) {
    const name = comm(p).startsWith("WebKit") || p === app ? comm(p) : "agents";
    const m = memMB(p);
    by[name] = { anon: (by[name]?.anon ?? 0) + m.anon, pss: (by[name]?.pss ?? 0) + m.pss };
  }
  return by;
}

const sum = (by, k) =>
  Object.entries(by)
    .filter(([n]) => n !== "agents")
    .reduce((a, [, v]) => a + v[k], 0);
const fmtBy = (by) =>
  Object.entries(by)
    .sort((a, b) => b[1].anon - a[1].anon)
    .map(([k, v]) => `${k} ${v.anon.toFixed(0)}`)
    .join(", ");

/**
 * countDeliveries counts, in the page, what the app sends it: scripts are
 * the Wails events (the dev server's websocket calls window.wails.
 * EventsNotify once per event, and each is also one script run in the
 * Wails window, Wails v2 ExecJS), with their bytes; events are the events
 * by name, whether a script carried them or, since the event feed
 * (eventbatch.go: no script per event, the page's open fetch of
 * /_jc/events streams them), a fetch. takeDeliveries reads and resets them.
 */
async function countDeliveries(page) {
  await page.evaluate(() => {
    const w = window;
    w.__soakDeliveries = { scripts: 0, events: 0, bytes: 0, names: {} };
    const count = (name) => {
      const c = w.__soakDeliveries;
      c.events++;
      c.names[name] = (c.names[name] ?? 0) + 1;
    };
    const notify = w.wails.EventsNotify;
    w.wails.EventsNotify = (msg) => {
      const c = w.__soakDeliveries;
      c.scripts++;
      c.bytes += msg.length;
      const { name } = JSON.parse(msg);
      count(name);
      return notify(msg);
    };
    const fetch = w.fetch;
    w.fetch = async (...a) => {
      const res = await fetch(...a);
      const url = String(a[0]);
      if (!url.startsWith("/_jc/events") || url.includes("wake=") || !res.ok || !res.body) return res;
      // The feed's answer streams a page per line: count them as they come.
      const [mine, theirs] = res.body.tee();
      (async () => {
        const reader = mine.getReader();
        const dec = new TextDecoder();
        let buf = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          buf += dec.decode(value, { stream: true });
          for (let nl; (nl = buf.indexOf("\n")) >= 0; buf = buf.slice(nl + 1)) {
            const line = buf.slice(0, nl);
            if (line.trim()) for (const e of JSON.parse(line).events) count(e.name);
          }
        }
      })().catch(() => {});
      return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
    };
  });
}

async function takeDeliveries(page) {
  return page.evaluate(() => {
    const c = window.__soakDeliveries ?? { scripts: 0, events: 0, bytes: 0, names: {} };
    window.__soakDeliveries = { scripts: 0, events: 0, bytes: 0, names: {} };
    return c;
  });
}

async function jsHeapMB(cdp) {
  await cdp.send("HeapProfiler.collectGarbage");
  const { usedSize } = await cdp.send("Runtime.getHeapUsage");
  return usedSize / 2 ** 20;
}

/**
 * goHeap reads the Go runtime's figures from the app's profile server
 * (SOAK_PPROF=1, pprof_dev.go's /debug/jc/mem: runtime/metrics, no
 * collection, next to no garbage; the heap profile read before made
 * ~0.5 MB of garbage per sample, all the app allocated while idle): the
 * live heap as the last collection marked it, the heap's objects (live or
 * not yet swept), the heap the runtime keeps resident (objects, free space
 * in its spans, free spans), what it returned to the OS, all it mapped,
 * collections and goroutines. Null without SOAK_PPROF.
 */
async function goHeap(app) {
  if (!app.pprof) return null;
  try {
    const m = await (await fetch(`http://${app.pprof}/debug/jc/mem`)).json();
    const mb = (n) => n / 2 ** 20;
    return { live: mb(m.live), objects: mb(m.objects), resident: mb(m.objects + m.unused + m.free), released: mb(m.released), total: mb(m.total), gc: m.gcs, goroutines: m.goroutines };
  } catch (e) {
    return { error: e.message };
  }
}

/** webProcess is the window's WebKit web process under root (undefined: none). */
const webProcess = (root) => descendants(root).find((p) => comm(p).startsWith("WebKitWebProces"));

/** printWebProcessEnv prints the window's web process's JSC_ and MALLOC_ variables (startup.go webProcessEnv). */
function printWebProcessEnv(app) {
  const pid = webProcess(app.child.pid);
  if (!pid) return console.log("soak: no web process found");
  try {
    const vars = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter((kv) => /^(JSC_|MALLOC_)/.test(kv));
    console.log(`soak: the window's web process runs with ${vars.join(" ") || "no JSC_ or MALLOC_ variable"}`);
  } catch (e) {
    console.error(`soak: the web process's environment: ${e.message}`);
  }
}

/** saveProfile keeps the app's heap profile and smaps next to the samples (SOAK_PPROF=1): NAME-heap-start.pb.gz, NAME-smaps-end.txt, … */
async function saveProfile(app, when) {
  if (!app.pprof) return;
  const name = `${basename(SAMPLES, ".tsv")}-${when}`;
  const pid = descendants(app.child.pid).find((p) => comm(p).startsWith("jean-claude"));
  try {
    const dir = dirname(SAMPLES);
    writeFileSync(join(dir, `${name}-heap.pb.gz`), Buffer.from(await (await fetch(`http://${app.pprof}/debug/pprof/heap`)).arrayBuffer()));
    writeFileSync(join(dir, `${name}-smaps.txt`), readFileSync(`/proc/${pid}/smaps`, "utf8"));
    const web = webProcess(pid);
    if (web) writeFileSync(join(dir, `${name}-webprocess-smaps.txt`), readFileSync(`/proc/${web}/smaps`, "utf8"));
    console.log(`soak: saved ${join(dir, name)}-heap.pb.gz, -smaps.txt and -webprocess-smaps.txt`);
  } catch (e) {
    console.error(`soak: profile ${name}: ${e.message}`);
  }
}

/**
 * heapSplit takes the page's JS heap snapshot and splits what the V8 heap
 * holds into compiled code (nodes of type "code": machine code, bytecode
 * and their metadata, which grow as more functions get hot and are bounded
 * by the app's code) and the rest, the page's data (objects, strings,
 * arrays, closures, shapes: what a leak grows); Blink's own objects
 * ("native") are outside the V8 heap and not counted. Run 16's thirty
 * minutes: code 3.68 -> 4.36 MB, data 2.52 -> 2.57 MB. With
 * SOAK_HEAP_SNAPSHOTS=1 the snapshot is kept next to the samples
 * (NAME-start.heapsnapshot …: open it in Chromium's DevTools, Memory,
 * "Comparison").
 */
async function heapSplit(cdp, when) {
  const chunks = [];
  const onChunk = (e) => chunks.push(e.chunk);
  cdp.on("HeapProfiler.addHeapSnapshotChunk", onChunk);
  try {
    await cdp.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  } catch (e) {
    console.error(`soak: heap snapshot ${when}: ${e.message}`);
    return null; // the report says the data could not be measured (a FAIL)
  } finally {
    cdp.off("HeapProfiler.addHeapSnapshotChunk", onChunk);
  }
  const text = chunks.join("");
  if (process.env.SOAK_HEAP_SNAPSHOTS === "1") {
    const file = join(dirname(SAMPLES), `${basename(SAMPLES, ".tsv")}-${when}.heapsnapshot`);
    writeFileSync(file, text);
    console.log(`soak: saved ${file}`);
  }
  const { snapshot, nodes } = JSON.parse(text);
  const fields = snapshot.meta.node_fields;
  const [types] = snapshot.meta.node_types;
  const [type, size] = [fields.indexOf("type"), fields.indexOf("self_size")];
  let code = 0;
  let data = 0;
  for (let i = 0; i < nodes.length; i += fields.length) {
    const t = types[nodes[i + type]];
    if (t === "code") code += nodes[i + size];
    else if (t !== "native") data += nodes[i + size];
  }
  const split = { codeMB: code / 2 ** 20, dataMB: data / 2 ** 20 };
  console.log(`soak: JS heap ${when}: data ${split.dataMB.toFixed(2)} MB, compiled code ${split.codeMB.toFixed(2)} MB (heap snapshot)`);
  return split;
}

/**
 * showInWindow shows a screen in the app's own WebKitGTK window too
 * ("app:navigate", src/lib/navigate.ts: Wails dev mode passes an event the
 * Chromium page emits on to the window), so the window's web process (in
 * "app anon") renders the streaming task views as a user's window would,
 * not only Chromium's page.
 */
async function showInWindow(page, req) {
  await navigate(page, req).catch((e) => console.error("soak: window:", e.message));
}

/** grabWindow saves the app's window as CHART's name with -window-WHEN.png (looked at after a run). */
function grabWindow(win, when) {
  const file = CHART.replace(/\.png$/, "") + `-window-${when}.png`;
  try {
    win.grab(file);
    console.log(`soak: window ${file}`);
  } catch (e) {
    console.error(`soak: window grab: ${e.message}`);
  }
}

async function setup(page, tmp) {
  const repo = makeGitRepo(tmp, "soak");
  const lines = Math.max(1, Math.round((MINUTES * 60_000) / LINE_DELAY_MS));
  setFakeClaude(repo, { FAKE_CLAUDE_REPEAT: String(lines), FAKE_CLAUDE_LINE_DELAY: `${LINE_DELAY_MS}ms` });
  return { projectId: await addProject(page, repo), lines };
}

const nav = (page, name) => page.getByRole("navigation", { name: "Projects" }).getByRole("button", { name, exact: true });

async function addProject(page, repo) {
  await page.getByRole("navigation", { name: "Projects" }).getByRole("button", { name: "Add project" }).click();
  const dialog = page.getByRole("dialog", { name: "Add project" });
  await dialog.getByLabel("Project folder").fill(repo);
  await dialog.getByRole("button", { name: "Add project" }).click();
  await dialog.waitFor({ state: "detached" });
  return page.evaluate(async (p) => (await window.go.services.ProjectService.List()).find((x) => x.path === p).id, repo);
}

/**
 * warmUp loads every screen's code once (a task's view with its diff pane,
 * Agents, Settings) and runs the streaming path for SOAK_WARMUP_SECONDS
 * (60): one task streams while the view switches between it and Settings,
 * so the page's JIT has compiled that path before "start" is measured
 * (code, once loaded and compiled, stays) and the soak measures what
 * streaming leaves behind, not code.
 */
async function warmUp(page, tmp) {
  const repo = makeGitRepo(tmp, "warmup");
  setFakeClaude(repo, { FAKE_CLAUDE_REPEAT: String(Math.max(30, Math.round((WARMUP_S * 1000) / LINE_DELAY_MS))), FAKE_CLAUDE_LINE_DELAY: `${LINE_DELAY_MS}ms` });
  const projectId = await addProject(page, repo);
  const [id] = await startTasks(page, projectId, 1);
  const task = { projectId, screen: { kind: "task", taskId: id } };
  for (let i = 0; (await statuses(page, projectId))[0] !== "completed"; i++) {
    await (i % 2 ? nav(page, "Settings") : page.getByTestId("task-row").first()).click();
    await showInWindow(page, i % 2 ? { screen: { kind: "settings" } } : task);
    await sleep(Math.min(SWITCH_S, 2) * 1000);
  }
  await page.getByTestId("task-row").first().click();
  await page.getByRole("button", { name: "Diff", exact: true }).click();
  await showInWindow(page, { ...task, press: "Diff" });
  await sleep(2000);
  await page.getByRole("button", { name: "Messages", exact: true }).click();
  await showInWindow(page, { ...task, press: "Messages" });
  await nav(page, "Agents").click();
  await showInWindow(page, { screen: { kind: "agents" } });
  await sleep(2000);
  await nav(page, "Settings").click();
  await showInWindow(page, { screen: { kind: "settings" } });
  await page.evaluate((id) => window.go.services.TaskService.Delete?.(id), id).catch(() => {});
}

async function startTasks(page, projectId, n = TASKS) {
  const ids = [];
  for (let i = 1; i <= n; i++) {
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
  const binary = process.env.SOAK_BINARY ? join(REPO, process.env.SOAK_BINARY) : undefined;
  const appEnv = Object.fromEntries((process.env.SOAK_APP_ENV ?? "").split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
  if (process.env.SOAK_PPROF === "1") appEnv.JEAN_CLAUDE_PPROF = `127.0.0.1:${await freePort()}`;
  const assetDir = process.env.SOAK_ASSETS ? join(REPO, process.env.SOAK_ASSETS) : undefined;
  const tmp = mkdtempSync(join(tmpdir(), "jc-soak-")); // the app's, removed when it stops (unless SOAK_KEEP=1)
  const displayFile = join(tmp, "display"); // the window's X display (showInWindow, grabWindow)
  const app = await startApp({ tmp, binary, assetDir, pathPrefix: [fakeDir], keepTmp: process.env.SOAK_KEEP === "1", env: appEnv, displayFile });
  app.pprof = appEnv.JEAN_CLAUDE_PPROF;
  if (process.env.SOAK_KEEP === "1") console.log(`soak: app log ${app.logPath}`);
  const browser = await launchBrowser();
  const stopAll = async () => {
    await browser.close().catch(() => {});
    await app.stop();
  };
  process.on("SIGINT", () => stopAll().then(() => process.exit(130)));
  try {
    return await soak(app, browser, displayFile);
  } finally {
    await stopAll();
  }
}

async function soak(app, browser, displayFile) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (e) => console.error("page error:", e.stack ?? e.message));
  await page.goto(app.baseURL + "/");
  await page.locator(".jc-app[data-ready]").waitFor({ timeout: 30000 });
  const cdp = await page.context().newCDPSession(page);
  const win = xwin(displayFile);
  await warmUp(page, app.tmp);
  const { projectId, lines } = await setup(page, app.tmp);
  await nav(page, "Settings").click();
  await showInWindow(page, { projectId, screen: { kind: "settings" } });
  // The app trims its memory 45 s after the last turn ended (the idle
  // trim, orchestrator_wiring.go): the start is measured after the one
  // that follows the warm-up, as the end is after the one that follows
  // the soak's tasks.
  await sleep(55000);
  const samples = [];
  await countDeliveries(page);
  const t0 = Date.now();
  let tLast = t0;
  const sample = async (phase) => {
    const by = appMem(app.child.pid);
    const d = await takeDeliveries(page);
    const perMin = 60000 / Math.max(1, Date.now() - tLast);
    tLast = Date.now();
    const s = { min: (Date.now() - t0) / 60000, phase, appMB: sum(by, "anon"), pssMB: sum(by, "pss"), heapMB: await jsHeapMB(cdp), dbMB: dbMB(app.dbPath) };
    samples.push(s);
    const g = await goHeap(app);
    if (g)
      console.log(
        g.error
          ? `soak: go heap: ${g.error}`
          : `soak:   go heap live ${g.live.toFixed(1)} MB (objects ${g.objects.toFixed(1)}), resident ${g.resident.toFixed(1)}, returned ${g.released.toFixed(1)}, runtime total ${g.total.toFixed(1)} MB, ${g.gc} GCs, ${g.goroutines} goroutines`,
      );
    console.log(
      `soak: ${s.min.toFixed(1)} min ${phase.padEnd(8)} app anon ${s.appMB.toFixed(1)} MB (${fmtBy(by)}; PSS ${s.pssMB.toFixed(1)}), JS heap ${s.heapMB.toFixed(1)} MB, db ${s.dbMB.toFixed(1)} MB; ` +
        `${Math.round(d.scripts * perMin)} scripts/min (${((d.bytes * perMin) / 2 ** 20).toFixed(2)} MB), ${Math.round(d.events * perMin)} events/min (` +
        `${Object.entries(d.names).sort((a, b) => b[1] - a[1]).map(([n, k]) => `${n} ${Math.round(k * perMin)}`).join(", ")})`,
    );
    return s;
  };
  const start = await sample("start");
  printWebProcessEnv(app);
  await saveProfile(app, "start");
  start.heap = await heapSplit(cdp, "start");
  grabWindow(win, "start");
  console.log(`soak: ${TASKS} tasks x ${lines} lines, one every ${LINE_DELAY_MS} ms (${MINUTES} min), view switch every ${SWITCH_S} s, in Chromium and in the app's window`);
  const ids = await startTasks(page, projectId);
  const rows = page.getByTestId("task-row");
  let nextSample = Date.now() + SAMPLE_S * 1000;
  const deadline = Date.now() + (MINUTES + 10) * 60000;
  let grabbed = false;
  for (let i = 0; ; i++) {
    await rows.nth(i % TASKS).click().catch((e) => console.error("switch:", e.message));
    await showInWindow(page, { projectId, screen: { kind: "task", taskId: ids[i % TASKS] } });
    await sleep(SWITCH_S * 1000);
    if (Date.now() >= nextSample) {
      const sampled = await sample("running");
      if (!grabbed && sampled.min >= MINUTES / 2) {
        grabWindow(win, "running");
        grabbed = true;
      }
      nextSample += SAMPLE_S * 1000;
      const st = await statuses(page, projectId);
      if (st.every((s) => s !== "running" && s !== "queued" && s !== "starting")) break;
      if (Date.now() > deadline) throw new Error(`tasks still running after ${MINUTES + 10} min: ${st.join(", ")}`);
    }
  }
  console.log(`soak: tasks ended: ${(await statuses(page, projectId)).join(", ")}`);
  // Close the views: the main pane shows the Settings screen, no task view,
  // in Chromium and in the window.
  await nav(page, "Settings").click();
  await showInWindow(page, { screen: { kind: "settings" } });
  // Garbage collectors give memory back late (Go's scavenger, WebKit's GC
  // on its own timers): sample every 30 s for SOAK_SETTLE_SECONDS.
  let end;
  for (let waited = 0; waited < SETTLE_S; waited += 30) {
    await sleep(30000);
    end = await sample("closed");
  }
  await saveProfile(app, "end");
  end.heap = await heapSplit(cdp, "end");
  grabWindow(win, "closed");
  return report(start, end, samples, browser);
}

async function report(start, end, samples, browser) {
  const tsv = ["minute\tphase\tapp_anon_mb\tapp_pss_mb\tjs_heap_mb\tdb_mb", ...samples.map((s) => [s.min.toFixed(2), s.phase, s.appMB.toFixed(1), s.pssMB.toFixed(1), s.heapMB.toFixed(1), s.dbMB.toFixed(1)].join("\t"))];
  writeFileSync(SAMPLES, tsv.join("\n") + "\n");
  const peak = samples.reduce((m, s) => ({ appMB: Math.max(m.appMB, s.appMB), heapMB: Math.max(m.heapMB, s.heapMB) }), { appMB: 0, heapMB: 0 });
  const appRatio = end.appMB / start.appMB;
  const heapRatio = end.heapMB / start.heapMB;
  const dataRatio = start.heap && end.heap ? end.heap.dataMB / start.heap.dataMB : NaN;
  const title = `make soak: ${TASKS} fake agents for ${MINUTES} min, view switched every ${SWITCH_S} s`;
  const page = await browser.newPage({ viewport: { width: 900, height: 480 } });
  await page.setContent(`<body style="margin:0;background:#fff">${chartSVG(samples, title)}</body>`);
  mkdirSync(join(CHART, ".."), { recursive: true });
  await page.locator("svg").screenshot({ path: CHART });
  console.log(`soak: chart ${CHART}, samples ${SAMPLES}`);
  console.log(`soak: app anon start ${start.appMB.toFixed(1)} MB, peak ${peak.appMB.toFixed(1)} MB, end ${end.appMB.toFixed(1)} MB (end/start ${appRatio.toFixed(3)}, goal <= 1.10)`);
  const mb = (h, k) => (h ? h[k].toFixed(2) : "?");
  console.log(`soak: JS heap start ${start.heapMB.toFixed(1)} MB, peak ${peak.heapMB.toFixed(1)} MB, end ${end.heapMB.toFixed(1)} MB (end/start ${heapRatio.toFixed(3)}; compiled code ${mb(start.heap, "codeMB")} -> ${mb(end.heap, "codeMB")} MB)`);
  console.log(`soak: JS data start ${mb(start.heap, "dataMB")} MB, end ${mb(end.heap, "dataMB")} MB (end/start ${dataRatio.toFixed(3)}, goal <= 1.10${Number.isNaN(dataRatio) ? ": no heap snapshot, not measured" : ""})`);
  const ok = appRatio <= 1.1 && dataRatio <= 1.1;
  console.log(ok ? "soak: PASS" : "soak: FAIL: memory did not return within 10 % of the start");
  return ok ? 0 : 1;
}

/** chartOnly redraws the chart from a samples.tsv: node soak.mjs --chart FILE "TITLE". */
async function chartOnly(file, title) {
  const [, ...rows] = readFileSync(file, "utf8").trim().split("\n");
  const samples = rows.map((r) => {
    const [min, phase, appMB, pssMB, heapMB, dbMB] = r.split("\t");
    return { min: +min, phase, appMB: +appMB, pssMB: +pssMB, heapMB: +heapMB, dbMB: +dbMB };
  });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 900, height: 480 } });
    await page.setContent(`<body style="margin:0;background:#fff">${chartSVG(samples, title)}</body>`);
    await page.locator("svg").screenshot({ path: CHART });
  } finally {
    await browser.close();
  }
  console.log(`soak: chart ${CHART}`);
  return 0;
}

const chartArg = process.argv.indexOf("--chart");
(chartArg > 0 ? chartOnly(process.argv[chartArg + 1], process.argv[chartArg + 2] ?? "make soak") : main()).then(
  (code) => process.exit(code),
  (err) => {
    console.error("soak:", err.stack ?? err);
    process.exit(1);
  },
);

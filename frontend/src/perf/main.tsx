// The task view benchmark page. It opens a task of N recorded messages
// (default 10,000) in the real TaskView over an in-memory api, then measures:
//   open     time from render() to the first painted rows (transcript JSON
//            parsed inside the timing, as the Wails bridge would)
//   heap     JS heap after open (performance.memory; GC first when exposed)
//   scroll   the stream scrolled 300 px per frame: JS+layout work per scroll
//            step and frame intervals
//   stream   100 agent events per second for 5 s while at the bottom:
//            frame intervals, frames over budget
// Results go to window.__perf (read by perf/run.mjs) and the page.

import { createRoot } from "react-dom/client";
import { TaskView } from "../features/task-view/TaskView";
import { TaskApiContext } from "../features/task-view/context";
import { createFakeApi, pageOf } from "../features/task-view/fakeApi";
import { bigTranscript, streamEvents } from "./generate";
import "../styles/index.css";
import type { TranscriptPage } from "../timeline/store";

interface Stats {
  n: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  const r = (x: number) => Math.round(x * 100) / 100;
  return { n: s.length, mean: r(mean), p50: r(q(0.5)), p95: r(q(0.95)), p99: r(q(0.99)), max: r(s[s.length - 1] ?? 0) };
}

const frame = () => new Promise<number>((r) => requestAnimationFrame(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface MemoryPerf {
  memory?: { usedJSHeapSize: number };
}
function heapMB(): number | null {
  const m = (performance as unknown as MemoryPerf).memory;
  return m ? Math.round((m.usedJSHeapSize / 1048576) * 10) / 10 : null;
}
function gc() {
  (window as unknown as { gc?: () => void }).gc?.();
}

async function waitFor(pred: () => boolean, timeoutMs = 20000) {
  const t = performance.now();
  while (!pred()) {
    if (performance.now() - t > timeoutMs) throw new Error("timeout");
    await new Promise((r) => setTimeout(r, 0));
  }
}

async function run() {
  const params = new URLSearchParams(location.search);
  const n = Number(params.get("n") ?? 10000);
  const theme = params.get("theme");
  if (theme) document.documentElement.dataset.theme = theme;
  const report = document.getElementById("report")!;
  const log = (s: string) => (report.textContent = s);

  const all = bigTranscript(n);
  const fake = createFakeApi({ task: { id: "bench", name: `Benchmark: ${n} messages`, status: "completed", backend: "claude-code" } });
  let parseMs = 0;
  let parseAt = 0;
  // Pages as SessionService.MessagePage serves them, parsed from JSON as
  // the bindings do (the first page's parse is parseMs).
  fake.api.messagePage = (_id, before, limit, messageId) => {
    const json = JSON.stringify(pageOf(all, before, limit, messageId));
    const t = performance.now();
    if (!parseAt) parseAt = t;
    const out = JSON.parse(json) as TranscriptPage;
    if (!parseMs) parseMs = Math.round(performance.now() - t);
    return Promise.resolve(out);
  };
  gc();
  const heapBefore = heapMB();
  await frame();

  // --- open
  performance.mark("jc:perf:open:start");
  const t0 = performance.now();
  const root = createRoot(document.getElementById("bench")!);
  root.render(
    <TaskApiContext.Provider value={fake.api}>
      <TaskView taskId="bench" />
    </TaskApiContext.Provider>,
  );
  await waitFor(() => document.querySelectorAll(".jc-stream__row").length > 0);
  const rowsAt = performance.now();
  await frame();
  await frame();
  const openMs = Math.round(performance.now() - t0);
  performance.mark("jc:perf:open:end");
  const el = document.querySelector<HTMLElement>(".jc-stream")!;
  const rows = Number(el.dataset.rows);
  await sleep(300);
  gc();
  const heapAfterOpen = heapMB();

  // --- scroll: 300 px per frame, from the bottom up
  if (params.get("only") === "open") {
    (window as unknown as { __perf: unknown }).__perf = { messages: n, rows, openMs, parseMs, heapMB: { afterOpen: heapAfterOpen } };
    log(`open ${openMs} ms (parse ${parseMs} ms)`);
    const mark = (n: string) => Math.round((performance.getEntriesByName(n)[0]?.startTime ?? 0) - t0);
    (window as unknown as { __perf: Record<string, unknown> }).__perf.phases = { fetchStart: Math.round(parseAt - t0), load: mark("jc:task-view:load"), loaded: mark("jc:task-view:loaded"), streamMounted: mark("jc:stream:mounted"), firstRows: Math.round(rowsAt - t0) };
    return;
  }
  // Work per scroll step: from the start of the scroll event (a capturing
  // listener runs first at the target) to the end of the virtualizer's
  // handler, which re-renders synchronously, plus the layout it causes.
  const work: number[] = [];
  let tStart = 0;
  el.addEventListener("scroll", () => (tStart = performance.now()), { capture: true, passive: true });
  el.addEventListener(
    "scroll",
    () => {
      void el.scrollHeight; // force layout of what was rendered
      if (tStart) work.push(performance.now() - tStart);
      tStart = 0;
    },
    { passive: true },
  );
  const scrollIntervals: number[] = [];
  performance.mark("jc:perf:scroll:start");
  let last = await frame();
  const steps = params.get("only") === "stream" ? 0 : Number(params.get("scrollFrames") ?? 400);
  for (let i = 0; i < steps; i++) {
    el.scrollTop = Math.max(0, el.scrollTop - 300);
    const t = await frame();
    scrollIntervals.push(t - last);
    last = t;
  }
  // and back down quickly (1200 px per frame)
  for (let i = 0; i < (steps ? 100 : 0); i++) {
    el.scrollTop = el.scrollTop + 1200;
    const t = await frame();
    scrollIntervals.push(t - last);
    last = t;
  }
  performance.mark("jc:perf:scroll:end");
  el.scrollTop = el.scrollHeight;
  await sleep(200);
  gc();
  const heapAfterScroll = heapMB();

  // --- streaming: 100 events/s for 5 s
  const rate = Number(params.get("rate") ?? 100);
  const seconds = Number(params.get("seconds") ?? 5);
  const gen = streamEvents("live");
  let seq = 0;
  const streamIntervals: number[] = [];
  let streaming = true;
  const frames = (async () => {
    let prev = await frame();
    while (streaming) {
      const t = await frame();
      streamIntervals.push(t - prev);
      prev = t;
    }
  })();
  performance.mark("jc:perf:stream:start");
  const started = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.floor(((performance.now() - started) / 1000) * rate);
      while (sent < due && sent < rate * seconds) {
        fake.emitAgent({ taskId: "bench", seq: ++seq, event: gen.next().value! });
        sent++;
      }
      if (sent >= rate * seconds) {
        clearInterval(tick);
        resolve();
      }
    }, 1000 / rate);
  });
  streaming = false;
  await frames;
  performance.mark("jc:perf:stream:end");
  await sleep(50); // keep the forced GC below out of the measured phase
  const budget = 1000 / 60;
  const over = (xs: number[]) => xs.filter((x) => x > budget * 1.5).length;
  gc();
  const heapEnd = heapMB();

  const result = {
    messages: n,
    rows,
    openMs,
    parseMs,
    heapMB: { before: heapBefore, afterOpen: heapAfterOpen, afterScroll: heapAfterScroll, end: heapEnd },
    scroll: { workMs: stats(work), frameMs: stats(scrollIntervals), framesOverBudget: over(scrollIntervals) },
    stream: { events: sent, seconds, frameMs: stats(streamIntervals), framesOverBudget: over(streamIntervals), droppedFrames: Math.max(0, Math.round((seconds * 1000) / budget) - streamIntervals.length) },
    userAgent: navigator.userAgent,
  };
  (window as unknown as { __perf: unknown }).__perf = result;
  log(JSON.stringify(result, null, 2));
}

run().catch((e: unknown) => {
  (window as unknown as { __perf: unknown }).__perf = { error: String(e instanceof Error ? e.stack : e) };
  document.getElementById("report")!.textContent = "error: " + String(e);
});

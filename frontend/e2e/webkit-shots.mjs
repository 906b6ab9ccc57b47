#!/usr/bin/env node
// Every screen at 1000×700, 1280×800 and 1920×1080, light and dark, from the
// REAL WebKitGTK window (issue 23):
//   node e2e/webkit-shots.mjs [--no-build] [--keep] [--only NAME]
//     -> docs/screenshots/webkit/NAME-WxH-THEME.png
//
// The Wails dev binary runs under Xvfb (a 1920×1080 screen, no window
// manager) and opens its WebKitGTK window as the production app does;
// Chromium, on its dev server, seeds the database (lib/screens.mjs) and
// emits "app:navigate" events (src/lib/navigate.ts), which Wails dev mode
// passes on to the WebKit window. xdotool sizes the window and ImageMagick's
// `import -window` grabs it. Needs: apt-get install imagemagick xdotool.

import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FRONTEND, REPO, DEV_BINARY, startApp } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { buildFakeAgents } from "./lib/fakeagents.mjs";
import { SIZES, seedScreens } from "./lib/screens.mjs";
import { stopSync } from "./lib/procs.mjs";

const args = process.argv.slice(2);
const onlyAt = args.indexOf("--only");
const only = onlyAt >= 0 ? args[onlyAt + 1] : "";
const OUT = join(REPO, "docs/screenshots/webkit");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** xwin drives the app's X display: find, size and grab its one window. */
export function xwin(displayFile) {
  const [DISPLAY, XAUTHORITY] = readFileSync(displayFile, "utf8").split("\n");
  const env = { ...process.env, DISPLAY, XAUTHORITY };
  const x = (cmd, argv) => execFileSync(cmd, argv, { env, timeout: 60000, encoding: "utf8" });
  const wid = x("xdotool", ["search", "--sync", "--onlyvisible", "--name", "Jean-Claude"]).trim().split("\n")[0];
  return {
    wid,
    env,
    size(w, h) {
      x("xdotool", ["windowmove", wid, "0", "0", "windowsize", wid, String(w), String(h)]);
      // Keep the pointer off the window: no hover state or tooltip in a shot.
      x("xdotool", ["mousemove", "1919", "1079"]);
    },
    grab(file) {
      x("import", ["-window", wid, file]);
    },
    /** grabStable grabs until two grabs 700 ms apart are the same (WebKit under Xvfb paints late). */
    async grabStable(file) {
      x("import", ["-window", wid, file]);
      for (let i = 0; i < 10; i++) {
        await sleep(700);
        const next = file.replace(/\.png$/, ".next.png");
        x("import", ["-window", wid, next]);
        const cmp = spawnSync("compare", ["-metric", "AE", file, next, "null:"], { encoding: "utf8" });
        renameSync(next, file);
        if (cmp.status === 0 && cmp.stderr.trim() === "0") return;
      }
      console.log(`webkit-shots: ${file} still changing after 7 s`);
    },
    key(k) {
      x("xdotool", ["key", "--window", wid, k]);
    },
    type(text) {
      x("xdotool", ["type", "--delay", "15", text]);
    },
    click(px, py) {
      x("xdotool", ["mousemove", String(px), String(py), "click", "1", "mousemove", "1919", "1079"]);
    },
  };
}

/** navigate sends an "app:navigate" request from the Chromium page to the WebKit window. */
export async function navigate(page, req) {
  // Wails' ipc.js reconnects its websocket after a stall; wait for it.
  for (let i = 0; ; i++) {
    try {
      return await page.evaluate((r) => window.runtime.EventsEmit("app:navigate", r), req);
    } catch (err) {
      if (i >= 60) throw err;
      if (i % 20 === 19) await page.reload(); // still no socket after 10 s: connect afresh
      await sleep(500);
    }
  }
}

/** windowUp gives the WebKit window time to load: under Xvfb it paints in software, and its first load takes seconds. */
async function windowUp(page) {
  await page.waitForFunction(() => window.runtime?.EventsEmit);
  await sleep(8000);
}

async function main() {
  if (!args.includes("--no-build")) {
    execFileSync("npx", ["vite", "build", "--logLevel", "warn"], { cwd: FRONTEND, stdio: "inherit" });
    execFileSync("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], { cwd: REPO, stdio: "inherit" });
  }
  mkdirSync(OUT, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), "jc-webkit-"));
  const displayFile = join(tmp, "display");
  const app = await startApp({ tmp, pathPrefix: [buildFakeAgents()], screen: "1920x1080", displayFile, keepTmp: args.includes("--keep") });
  process.on("exit", () => stopSync(app.child));
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.baseURL + "/");
    await page.locator(".jc-app[data-ready]").waitFor();
    const ids = await seedScreens(page, app);
    await page.reload();
    await page.locator(".jc-app[data-ready]").waitFor();
    const win = xwin(displayFile);
    // The window loads the seeded projects afresh.
    await navigate(page, { reload: true });
    await windowUp(page);
    // "Messages" explicitly: a view kept open keeps the pane it had (a late "Diff" press once showed through).
    const task = (projectId, taskId) => ({ escape: true, projectId, screen: { kind: "task", taskId }, press: "Messages" });
    const screens = {
      "task-view": task(ids.project, ids.done),
      "task-diff": { ...task(ids.project, ids.done), press: "Diff" },
      "task-permission": task(ids.waitProject, ids.asking),
      "new-task": { escape: true, projectId: ids.project, screen: { kind: "new-task", projectId: ids.project } },
      "project-settings": { escape: true, projectId: ids.project, screen: { kind: "project-settings", projectId: ids.project } },
      settings: { escape: true, screen: { kind: "settings" } },
      agents: { escape: true, screen: { kind: "agents" } },
      "add-project": { escape: true, projectId: ids.project, screen: { kind: "task", taskId: ids.done }, addProject: true },
    };
    // Once through every screen first: each loads its code chunk lazily.
    for (const req of Object.values(screens)) {
      await navigate(page, req);
      await sleep(1500);
    }
    const shots = [];
    for (const [w, h] of SIZES) {
      win.size(w, h);
      await sleep(2500);
      for (const [name, req] of Object.entries(screens)) {
        if (only && name !== only) continue;
        for (const theme of ["light", "dark"]) {
          await navigate(page, { ...req, theme });
          await sleep(1500);
          const file = join(OUT, `${name}-${w}x${h}-${theme}.png`);
          await win.grabStable(file);
          shots.push(file);
        }
      }
    }
    console.log(`webkit-shots: ${shots.length} screenshots in ${OUT}`);
  } finally {
    await browser.close();
    await app.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

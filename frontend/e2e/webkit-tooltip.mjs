#!/usr/bin/env node
// The app's tooltip in the REAL WebKitGTK window (issue 23), with the real X
// pointer (xdotool) resting on elements at the window's edges, dark theme:
//   node e2e/webkit-tooltip.mjs [--no-build]  -> docs/screenshots/webkit/tooltip-NAME-WxH-dark.png
// (the theme button in the bottom-left corner, then the add-project dialog
// opened under the resting pointer; the Shell tab in the top-right corner; a
// cut answer chip inside a message that has its own title, the time).
// The dev binary runs under Xvfb with no window manager, its window at 0,0;
// Chromium on the dev server seeds the data, drives the window through
// "app:navigate" events (webkit-shots.mjs) and, opened on the same screen at
// the same size, says where each element is. The grab is of the whole X
// screen cropped to the window, so a toolkit tooltip (its own X window)
// would show as well.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FRONTEND, REPO, DEV_BINARY, startApp } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { buildFakeAgents } from "./lib/fakeagents.mjs";
import { seedScreens } from "./lib/screens.mjs";
import { stopSync } from "./lib/procs.mjs";
import { navigate, xwin } from "./webkit-shots.mjs";

const OUT = join(REPO, "docs/screenshots/webkit");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

if (!process.argv.includes("--no-build")) {
  execFileSync("npx", ["vite", "build", "--logLevel", "warn"], { cwd: FRONTEND, stdio: "inherit" });
  execFileSync("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], { cwd: REPO, stdio: "inherit" });
}
mkdirSync(OUT, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), "jc-webkit-tip-"));
const displayFile = join(tmp, "display");
// Seeded by a first run of the app, then the app is started again on the same
// database, so the window loads with the data (a "reload" event can reach a
// window that is still loading, and be lost).
const seeder = await startApp({ tmp, pathPrefix: [buildFakeAgents()], keepTmp: true });
const browser = await launchBrowser();
let app = seeder;
process.on("exit", () => stopSync(app.child));
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(seeder.baseURL + "/");
  await page.locator(".jc-app[data-ready]").waitFor();
  const ids = await seedScreens(page, seeder);
  await seeder.stop();
  app = await startApp({ tmp, pathPrefix: [buildFakeAgents()], screen: "1920x1080", displayFile, keepTmp: true });
  await page.goto(app.baseURL + "/");
  await page.locator(".jc-app[data-ready]").waitFor();
  const win = xwin(displayFile);
  await page.waitForFunction(() => window.runtime?.EventsEmit);
  await sleep(8000); // the window's first load, painted in software under Xvfb

  const x = (cmd, argv) => execFileSync(cmd, argv, { env: win.env, timeout: 60000, encoding: "utf8" });
  /** where: the centre of `selector` in Chromium showing the task at w×h (the same layout as the window's). */
  const where = async (w, h, locate) => {
    await page.setViewportSize({ width: w, height: h });
    await page.goto(app.baseURL + "/");
    await page.locator(".jc-app[data-ready]").waitFor();
    if ((await page.locator(".jc-app").getAttribute("data-columns")) === "all") {
      await page.getByRole("navigation", { name: "Projects" }).locator(".jc-project-item").filter({ hasText: "web-app" }).first().click();
    }
    await page.locator(`[data-testid="task-row"][data-task-id="${ids.done}"]`).click();
    await page.getByTestId("task-view").waitFor();
    await sleep(500);
    const b = await locate(page).boundingBox();
    return [Math.round(b.x + b.width / 2), Math.round(b.y + b.height / 2)];
  };
  const cases = [
    ["theme-corner", 1280, 800, (p) => p.getByRole("button", { name: /^Theme:/ })],
    ["shell-tab-corner", 1000, 700, (p) => p.getByRole("button", { name: "Shell", exact: true })],
    ["answer-chip", 1000, 700, (p) => p.locator(".jc-chip.is-decision").first()],
  ];
  for (const [name, w, h, locate] of cases) {
    const [px, py] = await where(w, h, locate);
    win.size(w, h);
    await sleep(1500);
    await navigate(page, { escape: true, projectId: ids.project, screen: { kind: "task", taskId: ids.done }, press: "Messages", theme: "dark" });
    await sleep(2500);
    x("xdotool", ["mousemove", String(px), String(py)]);
    await sleep(2500); // the tip's delay, and WebKit painting under Xvfb
    const file = join(OUT, `tooltip-${name}-${w}x${h}-dark.png`);
    x("import", ["-window", "root", "-crop", `${w}x${h}+0+0`, "+repage", file]);
    console.log(`${name}: pointer at ${px},${py} -> ${file}`);
    if (name === "theme-corner") {
      // A modal the app opens while the tip shows (the pointer stays): the tip goes.
      await navigate(page, { addProject: true });
      await sleep(2500);
      const modal = join(OUT, `tooltip-modal-opened-${w}x${h}-dark.png`);
      x("import", ["-window", "root", "-crop", `${w}x${h}+0+0`, "+repage", modal]);
      console.log(`modal-opened: -> ${modal}`);
      await navigate(page, { escape: true });
    }
    x("xdotool", ["mousemove", "1919", "1079"]);
  }
} finally {
  await browser.close();
  await app.stop();
  rmSync(tmp, { recursive: true, force: true });
}

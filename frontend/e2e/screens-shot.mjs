#!/usr/bin/env node
// Every screen at 1000×700, 1280×800 and 1920×1080, light and dark, in
// Chromium against the dev binary with fake-agent runs (issue 23):
//   node e2e/screens-shot.mjs [--no-build]  -> docs/screenshots/screens/NAME-WxH-THEME.png
// Each shot also checks that nothing scrolls horizontally (the page and the
// main pane); a screen that does is listed at the end and the exit status
// is non-zero.

import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FRONTEND, REPO, DEV_BINARY, startApp } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { buildFakeAgents } from "./lib/fakeagents.mjs";
import { SIZES, seedScreens } from "./lib/screens.mjs";
import { stopSync } from "./lib/procs.mjs";

const out = join(REPO, "docs/screenshots/screens");
mkdirSync(out, { recursive: true });
if (!process.argv.includes("--no-build")) {
  execFileSync("npx", ["vite", "build", "--logLevel", "warn"], { cwd: FRONTEND, stdio: "inherit" });
  execFileSync("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], { cwd: REPO, stdio: "inherit" });
}
const app = await startApp({ pathPrefix: [buildFakeAgents()] });
process.on("exit", () => stopSync(app.child));
const browser = await launchBrowser();
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(app.baseURL + "/");
  await page.locator(".jc-app[data-ready]").waitFor();
  const ids = await seedScreens(page, app);
  await page.reload();
  await page.locator(".jc-app[data-ready]").waitFor();

  const openTask = async (project, task) => {
    // A narrow window hides the projects column: show it (Ctrl+B cycles
    // tasks → none → all), pick the project and task, then go back.
    const cols = () => page.locator(".jc-app").getAttribute("data-columns");
    const start = await cols();
    let presses = 0;
    while ((await cols()) !== "all" && presses < 3) {
      await page.keyboard.press("Control+b");
      presses++;
    }
    const nav = page.getByRole("navigation", { name: "Projects" });
    await nav.locator(".jc-project-item").filter({ hasText: project }).first().click();
    await page.locator(`[data-testid="task-row"][data-task-id="${task}"]`).click();
    while ((await cols()) !== start) await page.keyboard.press("Control+b");
    await page.getByTestId("task-view").waitFor();
    await page.waitForTimeout(600);
  };
  const screens = {
    "task-view": () => openTask("web-app", ids.done),
    "task-diff": async () => {
      await openTask("web-app", ids.done);
      await page.getByRole("button", { name: "Diff", exact: true }).click();
      await page.waitForTimeout(800);
    },
    "task-permission": () => openTask("waiting", ids.asking),
    "new-task": async () => {
      await openTask("web-app", ids.done);
      await page.getByRole("button", { name: "New task" }).click();
      await page.waitForTimeout(300);
    },
    "project-settings": async () => {
      await openTask("web-app", ids.done);
      await page.getByRole("button", { name: "Project settings" }).click();
      await page.waitForTimeout(500);
    },
    settings: async () => {
      await page.keyboard.press("Control+,");
      await page.waitForTimeout(300);
    },
    agents: async () => {
      await page.evaluate(() => {
        const b = [...document.querySelectorAll("button")].find((x) => x.textContent?.trim() === "Agents");
        b?.click();
      });
      await page.waitForTimeout(1500);
    },
    "add-project": async () => {
      await page.keyboard.press("Control+Shift+O");
      await page.getByRole("dialog").waitFor();
      await page.waitForTimeout(200);
    },
  };
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await page.reload();
    await page.locator(".jc-app[data-ready]").waitFor();
    for (const [name, go] of Object.entries(screens)) {
      await page.keyboard.press("Escape");
      await go();
      const scroll = await page.evaluate(() => {
        const over = (el) => el && el.scrollWidth > el.clientWidth + 1;
        const bad = [];
        if (over(document.documentElement)) bad.push("page");
        for (const el of document.querySelectorAll(".jc-main, .jc-main > *, .jc-task-view, .jc-task-view__header, .jc-composer, .jc-stream, .jc-diff-main, .jc-card")) {
          if (over(el) && getComputedStyle(el).overflowX !== "auto" && getComputedStyle(el).overflowX !== "scroll") bad.push(el.className.split(" ")[0]);
        }
        return bad;
      });
      if (scroll.length) problems.push(`${name} ${w}x${h}: overflows horizontally in ${[...new Set(scroll)].join(", ")}`);
      for (const theme of ["light", "dark"]) {
        await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(out, `${name}-${w}x${h}-${theme}.png`) });
      }
      await page.evaluate(() => document.documentElement.setAttribute("data-theme", "light"));
    }
  }
  writeFileSync(join(out, "README.md"), `# Screens at 1000×700, 1280×800, 1920×1080 (light, dark)\n\nMade by \`node frontend/e2e/screens-shot.mjs\` (dev binary, Chromium, fake agents).\n\n${problems.length ? "Horizontal overflow found:\n\n" + problems.map((p) => `- ${p}`).join("\n") : "No screen scrolls horizontally."}\n`);
  console.log(problems.length ? `overflow:\n${problems.join("\n")}` : "no horizontal overflow");
  console.log(`shots in ${out}`);
} finally {
  await browser.close();
  await app.stop();
}
process.exitCode = problems.length ? 1 : 0;

#!/usr/bin/env node
// The app's tooltip near the window's edge and an "always" rule being edited
// (issue 23), in Chromium against the dev binary with fake-agent runs, at
// 1000×700 in dark mode:
//   node e2e/tooltip-shots.mjs [--no-build]  -> docs/screenshots/tooltip-*.png, rule-edit*.png
// Fails when a tooltip is not fully inside the window.

import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { FRONTEND, REPO, DEV_BINARY, startApp } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { buildFakeAgents } from "./lib/fakeagents.mjs";
import { seedScreens } from "./lib/screens.mjs";
import { stopSync } from "./lib/procs.mjs";

const out = join(REPO, "docs/screenshots");
if (!process.argv.includes("--no-build")) {
  execFileSync("npx", ["vite", "build", "--logLevel", "warn"], { cwd: FRONTEND, stdio: "inherit" });
  execFileSync("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], { cwd: REPO, stdio: "inherit" });
}
const app = await startApp({ pathPrefix: [buildFakeAgents()] });
process.on("exit", () => stopSync(app.child));
const browser = await launchBrowser();
const W = 1000;
const H = 700;
try {
  const page = await browser.newPage({ viewport: { width: W, height: H } });
  await page.goto(app.baseURL + "/");
  await page.locator(".jc-app[data-ready]").waitFor();
  const ids = await seedScreens(page, app);
  await page.reload();
  await page.locator(".jc-app[data-ready]").waitFor();

  // Dark through the theme button (system → light → dark), so its own tip says so.
  const cols = () => page.locator(".jc-app").getAttribute("data-columns");
  while ((await cols()) !== "all") await page.keyboard.press("Control+b");
  const themeBtn = page.getByRole("button", { name: /^Theme:/ });
  for (let i = 0; i < 3 && !/^Theme: dark/.test((await themeBtn.getAttribute("aria-label")) ?? ""); i++) await themeBtn.click();
  const nav = page.getByRole("navigation", { name: "Projects" });
  await nav.locator(".jc-project-item").filter({ hasText: "web-app" }).first().click();
  await page.locator(`[data-testid="task-row"][data-task-id="${ids.done}"]`).click();
  await page.getByTestId("task-view").waitFor();
  await page.waitForTimeout(600);

  const tip = page.locator("#jc-tooltip");
  const shoot = async (name, text) => {
    await page.waitForFunction((t) => {
      const b = document.getElementById("jc-tooltip");
      return b && !b.hidden && b.textContent.includes(t) && b.style.left !== "";
    }, text);
    await page.waitForTimeout(150);
    const box = await tip.boundingBox();
    if (!(box.x >= 0 && box.y >= 0 && box.x + box.width <= W && box.y + box.height <= H)) throw new Error(`${name}: tooltip outside the window: ${JSON.stringify(box)}`);
    await page.screenshot({ path: join(out, `${name}.png`) });
    console.log(`${name}: tooltip at ${JSON.stringify(box)}`);
    await page.mouse.move(W / 2, H / 2);
  };

  await themeBtn.hover();
  await shoot("tooltip-edge-dark-1000x700", "Theme: dark");

  const chip = page.locator(".jc-chip.is-decision").first();
  await chip.scrollIntoViewIfNeeded();
  await chip.hover();
  await shoot("tooltip-chip-dark-1000x700", "always allowed");

  await page.getByRole("button", { name: "Project settings" }).click();
  const row = page.getByTestId("rule-row").first();
  await row.scrollIntoViewIfNeeded();
  const rule = (await row.locator("code").textContent()).trim();
  await row.getByRole("button", { name: /^Edit / }).click();
  const input = page.getByRole("textbox", { name: /rule covers/ });
  const folder = (await input.inputValue()).replace(/[^/]*$/, "");
  await input.fill(folder);
  await page.getByTestId("rule-edit-preview").scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(out, "rule-edit-dark-1000x700.png") });
  console.log(`rule-edit: ${rule} -> ${folder}: ${(await page.getByTestId("rule-edit-preview").textContent()).trim()}`);
  await page.getByTestId("rule-edit").getByRole("button", { name: "Save" }).click();
  const edited = page.getByTestId("rule-row").first().locator("code");
  await edited.waitFor();
  console.log(`rule-edited: ${(await edited.textContent()).trim()}`);
  await edited.hover(); // cut with an ellipsis: the tip says it in full
  await shoot("rule-edited-dark-1000x700", "any file inside");
} finally {
  await browser.close();
  await app.stop();
}

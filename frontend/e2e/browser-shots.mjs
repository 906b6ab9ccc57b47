#!/usr/bin/env node
// Screenshots of the shell's screens in Chromium against the dev binary
// (quicker to iterate on than the desktop window), light and dark:
//   node e2e/browser-shots.mjs [--no-build]   -> frontend/test-results/shots/*.png

import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { FRONTEND, REPO, DEV_BINARY, startApp, makeGitRepo } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { buildFakeAgents } from "./lib/fakeagents.mjs";
import { stopSync } from "./lib/procs.mjs";

const out = join(FRONTEND, "test-results/shots");
mkdirSync(out, { recursive: true });
if (!process.argv.includes("--no-build")) {
  execFileSync("npx", ["vite", "build", "--logLevel", "warn"], { cwd: FRONTEND, stdio: "inherit" });
  execFileSync("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], { cwd: REPO, stdio: "inherit" });
}
const app = await startApp({ pathPrefix: [buildFakeAgents()] });
process.on("exit", () => stopSync(app.child));
const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(app.baseURL + "/");
  await page.locator(".jc-app[data-ready]").waitFor();
  const repo = makeGitRepo(join(app.tmp, "repos"), "web-app");
  await page.evaluate(async (repo) => {
    const { ProjectService: P, TaskService: T } = window.go.services;
    const p = await P.Add(repo);
    for (const [prompt, backend] of [["Fix the login redirect loop", "claude-code"], ["Upgrade to React 19", "opencode"], ["Write e2e tests for checkout", "codex"]]) {
      await T.Create({ projectId: p.id, prompt, name: "", backend, model: "", interactionMode: "ask" });
    }
  }, repo);
  await page.reload();
  await page.locator(".jc-app[data-ready]").waitFor();
  const shots = {
    "new-task": async () => {
      await page.getByRole("button", { name: "New task" }).click();
      await page.getByLabel("Backend", { exact: true }).selectOption("gemini").catch(() => {});
      await page.waitForTimeout(300);
    },
    "project-settings": async () => {
      await page.getByRole("button", { name: "Project settings" }).click();
      await page.waitForTimeout(300);
    },
    settings: async () => {
      await page.getByRole("button", { name: "Settings", exact: true }).click();
    },
    agents: async () => {
      await page.getByRole("button", { name: "Agents", exact: true }).click();
      await page.waitForTimeout(1500);
    },
    "add-project": async () => {
      await page.getByRole("navigation", { name: "Projects" }).getByRole("button", { name: "Add project" }).click();
      await page.getByRole("dialog").getByLabel("Project folder").fill("/nope");
      await page.getByRole("dialog").getByRole("button", { name: "Add project" }).click();
      await page.getByRole("dialog").getByRole("alert").waitFor();
    },
  };
  for (const [name, go] of Object.entries(shots)) {
    await go();
    for (const theme of ["light", "dark"]) {
      await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
      await page.waitForTimeout(500); // let the 120 ms color transitions finish
      await page.screenshot({ path: join(out, `${name}-${theme}.png`) });
    }
    await page.keyboard.press("Escape");
  }
  console.log(`shots in ${out}`);
} finally {
  await browser.close();
  await app.stop();
}

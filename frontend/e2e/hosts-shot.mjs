#!/usr/bin/env node
// Screenshot of the Hosts page of the real app (dev binary under Xvfb,
// Debian's Chromium) against a real sshd on 127.0.0.1 (Debian's
// openssh-server, its own config, host key and a throwaway key pair; a
// separate HOME as "the remote"). The app's ~/.ssh/config lists that
// server as "build-box" and an unreachable "gpu-1"; both are checked from
// the page.
//
//   node e2e/hosts-shot.mjs [--no-build]
//
// Output: docs/screenshots/hosts-page.png

import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { FRONTEND, REPO, DEV_BINARY, startApp } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { startSSHD } from "./lib/sshd.mjs";

const noBuild = process.argv.includes("--no-build");
const OUT = join(REPO, "docs/screenshots/hosts-page.png");

function sh(cmd, argv, cwd) {
  console.log(`hosts-shot: $ ${cmd} ${argv.join(" ")}`);
  execFileSync(cmd, argv, { cwd, stdio: "inherit" });
}

if (!noBuild) {
  sh("npx", ["vite", "build", "--logLevel", "warn"], FRONTEND);
  sh("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], REPO);
}

const { sshd, tmp, remoteHome } = await startSSHD();

let app = null;
let browser = null;
let code = 1;
try {
  app = await startApp({ tmp });
  console.log(`hosts-shot: app at ${app.baseURL}, data dir ${app.tmp}`);
  browser = await launchBrowser();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(app.baseURL + "/");
  await page.locator(".jc-app[data-ready]").waitFor({ timeout: 20000 });
  await page.getByTestId("open-hosts").click();
  const box = page.getByTestId("host-build-box");
  await box.waitFor({ timeout: 20000 });
  await page.getByTestId("host-name").fill("me@laptop-2");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await page.getByTestId("host-me@laptop-2").waitFor({ timeout: 10000 });
  await box.getByRole("button", { name: "Check" }).click();
  await box.locator(".jc-host__facts").waitFor({ timeout: 60000 });
  const gpu = page.getByTestId("host-gpu-1");
  await gpu.getByRole("button", { name: "Check" }).click();
  await gpu.getByTestId("host-unreachable").waitFor({ timeout: 60000 });
  console.log("hosts-shot: build-box:", await box.locator(".jc-host__facts").textContent());
  console.log("hosts-shot: gpu-1:", await gpu.getByTestId("host-unreachable").textContent());
  await page.waitForTimeout(300);
  mkdirSync(join(REPO, "docs/screenshots"), { recursive: true });
  await page.screenshot({ path: OUT });
  console.log(`hosts-shot: wrote ${OUT}`);
  code = 0;
} catch (err) {
  console.error(`hosts-shot: ${err?.stack || err}`);
  if (app) console.error(execFileSync("tail", ["-n", "30", app.logPath], { encoding: "utf8" }));
} finally {
  if (browser) await browser.close().catch(() => {});
  if (app) await app.stop(); // the app closes its ssh master connections at exit
  try {
    process.kill(-sshd.pid, "SIGTERM");
  } catch {
    // already gone
  }
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);

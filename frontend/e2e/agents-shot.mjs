#!/usr/bin/env node
// Screenshot of the Agents page of the real app (dev binary under Xvfb,
// driven with Debian's Chromium): Claude Code found on PATH, OpenCode
// installed from the page with the real `npm install` into the app's data
// dir, the other agents missing.
//
//   node e2e/agents-shot.mjs [--no-build]
//
// Needs the real claude CLI: $JC_REALCLI_BIN/claude, else
// .tools/agents/node_modules/.bin/claude (what `make test-agents` installs).
// Output: docs/screenshots/agents-page.png

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { FRONTEND, REPO, DEV_BINARY, startApp } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { stopSync } from "./lib/procs.mjs";

const noBuild = process.argv.includes("--no-build");
const OUT = join(REPO, "docs/screenshots/agents-page.png");
const binDir = process.env.JC_REALCLI_BIN || join(REPO, ".tools/agents/node_modules/.bin");
const claude = join(binDir, "claude");
if (!existsSync(claude)) {
  console.error(`agents-shot: no claude at ${claude} (run make test-agents, or set JC_REALCLI_BIN)`);
  process.exit(1);
}

let app = null;
process.on("exit", () => app && stopSync(app.child));

function sh(cmd, argv, cwd) {
  console.log(`agents-shot: $ ${cmd} ${argv.join(" ")}`);
  execFileSync(cmd, argv, { cwd, stdio: "inherit" });
}

if (!noBuild) {
  sh("npx", ["vite", "build", "--logLevel", "warn"], FRONTEND);
  sh("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], REPO);
}

// Only claude is put on the app's PATH (next to npm and the system tools).
const pathDir = join(REPO, "tmp", `agents-shot-path-${process.pid}`);
mkdirSync(pathDir, { recursive: true });
symlinkSync(claude, join(pathDir, "claude"));

let code = 1;
let browser = null;
try {
  // The app's HOME is fresh: hand npm the machine's CA settings (a proxy
  // that re-signs TLS needs them), as a user's own npm config would.
  const env = {};
  if (process.env.NODE_EXTRA_CA_CERTS) env.NODE_EXTRA_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS;
  try {
    const cafile = execFileSync("npm", ["config", "get", "cafile"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (cafile && cafile !== "null" && cafile !== "undefined") env.npm_config_cafile = cafile;
  } catch {
    // no npm config: npm's defaults
  }
  app = await startApp({ pathPrefix: [pathDir], env });
  console.log(`agents-shot: app at ${app.baseURL}, data dir ${app.tmp}`);
  browser = await launchBrowser();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
  await page.goto(app.baseURL + "/");
  await page.locator(".jc-app[data-ready]").waitFor({ timeout: 20000 });
  await page.getByRole("button", { name: "Agents" }).click();
  const oc = page.getByTestId("agent-opencode");
  await oc.waitFor({ timeout: 60000 });
  const claudeCard = page.getByTestId("agent-claude-code");
  if ((await claudeCard.getAttribute("data-found")) !== "true") throw new Error("claude is not found on PATH");

  // Install OpenCode from the page: the real npm install into <data dir>/agents.
  console.log("agents-shot: installing OpenCode from the page (npm)…");
  await oc.getByRole("button", { name: "Install" }).click();
  await oc.getByRole("progressbar").waitFor({ timeout: 10000 });
  await page.waitForFunction(() => document.querySelector('[data-testid="agent-opencode"]')?.getAttribute("data-found") === "true", null, {
    timeout: 240000,
  });
  const source = await oc.locator(".jc-agent__source").textContent();
  if (source !== "installed by Jean-Claude") throw new Error(`opencode source: ${source}`);

  // Health checks start both for real.
  console.log("agents-shot: health checks…");
  await claudeCard.getByRole("button", { name: "Check health" }).click();
  await oc.getByRole("button", { name: "Check health" }).click();
  await claudeCard.locator(".jc-agent__health").waitFor({ timeout: 90000 });
  await oc.locator(".jc-agent__health").waitFor({ timeout: 90000 });
  await oc.getByRole("button", { name: "Check health" }).waitFor({ timeout: 90000 });
  console.log("agents-shot: claude:", await claudeCard.locator(".jc-agent__health").textContent());
  console.log("agents-shot: opencode:", await oc.locator(".jc-agent__health").textContent());
  await page.waitForTimeout(500);
  mkdirSync(join(REPO, "docs/screenshots"), { recursive: true });
  await page.screenshot({ path: OUT });
  console.log(`agents-shot: wrote ${OUT}`);
  code = 0;
} catch (err) {
  console.error(`agents-shot: ${err?.stack || err}`);
  if (app) console.error(execFileSync("tail", ["-n", "30", app.logPath], { encoding: "utf8" }));
} finally {
  if (browser) await browser.close().catch(() => {});
  if (app) await app.stop();
  app = null;
  execFileSync("rm", ["-rf", pathDir]);
}
process.exit(code);

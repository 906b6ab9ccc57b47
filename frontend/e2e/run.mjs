#!/usr/bin/env node
// Browser end-to-end tests against the real app: builds the frontend and the
// Wails dev binary, starts it under Xvfb with a fresh database and HOME, and
// drives its dev server with Debian's Chromium through playwright-core.
//
//   node e2e/run.mjs [--no-build] [--keep] [--filter TEXT]
//
// Every process it starts is stopped (whole process group and descendants),
// also on failure or Ctrl-C. Exit status is non-zero when a test failed.
// The last line reads "e2e: N passed, M failed".

import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { FRONTEND, REPO, DEV_BINARY, startApp, makeGitRepo } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { stopSync } from "./lib/procs.mjs";
import { buildFakeAgents, setFakeClaude, CLAUDE_RECORDINGS } from "./lib/fakeagents.mjs";
import { run, setCurrentFile, registered } from "./lib/runner.mjs";

const args = process.argv.slice(2);
const noBuild = args.includes("--no-build") || process.env.E2E_NO_BUILD === "1";
const keep = args.includes("--keep");
const filterAt = args.indexOf("--filter");
const filter = filterAt >= 0 ? args[filterAt + 1] : process.env.E2E_FILTER;

let app = null;
let browser = null;

function cleanupSync() {
  if (app) stopSync(app.child);
}
process.on("exit", cleanupSync);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    console.log(`e2e: ${sig}, stopping`);
    cleanupSync();
    process.exit(130);
  });
}

function sh(cmd, argv, cwd) {
  console.log(`e2e: $ ${cmd} ${argv.join(" ")}`);
  execFileSync(cmd, argv, { cwd, stdio: "inherit" });
}

/** requireTools fails early, with the apt package to install, when a program is missing. */
function requireTools() {
  const need = [
    ["xvfb-run", "xvfb xauth"],
    ["dbus-run-session", "dbus dbus-x11"],
    [process.env.CHROMIUM || "/usr/bin/chromium", "chromium"],
    ["go", "(Go toolchain)"],
    ["git", "git"],
  ];
  const missing = need.filter(([bin]) => {
    try {
      execFileSync("sh", ["-c", `command -v "${bin}"`], { stdio: "ignore" });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length) {
    throw new Error(`missing programs: ${missing.map(([b, pkg]) => `${b} (apt-get install ${pkg})`).join(", ")}`);
  }
}

async function main() {
  requireTools();
  if (!noBuild) {
    sh("npx", ["vite", "build", "--logLevel", "warn"], FRONTEND);
    sh("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], REPO);
  }

  const testsDir = join(FRONTEND, "e2e/tests");
  for (const f of readdirSync(testsDir).filter((f) => f.endsWith(".test.mjs")).sort()) {
    setCurrentFile(f);
    await import(pathToFileURL(join(testsDir, f)).href);
  }
  console.log(`e2e: ${registered().length} tests registered`);

  // Agents are the repository's replaying fakes, first on the app's PATH.
  const fakeBin = buildFakeAgents();
  app = await startApp({ keepTmp: keep, pathPrefix: [fakeBin] });
  console.log(`e2e: app at ${app.baseURL} (db ${app.dbPath}, log ${app.logPath})`);
  browser = await launchBrowser();

  let repoCount = 0;
  const result = await run({
    filter,
    resultsDir: join(FRONTEND, "test-results"),
    async makeContext() {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const pageErrors = [];
      page.on("pageerror", (e) => {
        const stack = e.stack || String(e);
        // Wails v2.15's dev-mode overlay (a Svelte component in /wails/ipc.js,
        // shown only while the websocket is down) throws when it mounts in a
        // plain browser; it is not the app's code and the IPC works.
        if (/^\s+at .*\/wails\/ipc\.js:/m.test(stack) && !/\/assets\//.test(stack)) return;
        pageErrors.push(stack);
      });
      const ctx = {
        app,
        page,
        baseURL: app.baseURL,
        pageErrors,
        /** makeRepo creates a fresh git repository for this test. */
        makeRepo: (name) => makeGitRepo(join(app.tmp, "repos"), `${name}-${++repoCount}`),
        /** fakeClaude sets what the fake Claude Code does in a repo (FAKE_CLAUDE_* variables). */
        fakeClaude: setFakeClaude,
        recordings: CLAUDE_RECORDINGS,
        /** open loads the app and waits until its first data load is done. */
        async open() {
          await page.goto(app.baseURL + "/");
          await page.locator(".jc-app[data-ready]").waitFor({ timeout: 15000 });
        },
      };
      return {
        ctx,
        async dispose() {
          await context.close().catch(() => {});
          if (pageErrors.length) console.log(`        page errors: ${pageErrors.map(String).join("; ")}`);
        },
      };
    },
  });
  return result;
}

let code = 1;
let passed = 0;
let failed = 0;
try {
  const r = await main();
  passed = r.passed;
  failed = r.failed;
  code = failed === 0 && passed > 0 ? 0 : 1;
} catch (err) {
  console.error(`e2e: harness error: ${err?.stack || err}`);
  failed = Math.max(failed, 1);
} finally {
  if (browser) await browser.close().catch(() => {});
  if (app) {
    if (code !== 0) console.log(`e2e: app log tail:\n${tail(app.logPath)}`);
    await app.stop();
    app = null;
  }
}
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(code);

function tail(path) {
  try {
    return execFileSync("tail", ["-n", "40", path], { encoding: "utf8" });
  } catch {
    return "(no log)";
  }
}

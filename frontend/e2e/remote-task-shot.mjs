#!/usr/bin/env node
// Screenshot of a remote task in the task view (issue 21): the real app
// (dev binary under Xvfb, Debian's Chromium) with a project on "build-box",
// a real sshd on 127.0.0.1 (as in hosts-shot.mjs). The task's agent (the
// repository's fake Claude Code, "installed" in the remote HOME's
// ~/.local/bin) runs on the host behind a relay and asks a permission; then
// the host becomes unreachable (sshd's listener stopped, the app's ssh
// processes killed) and the task view says "host unreachable since …".
//
//   node e2e/remote-task-shot.mjs [--no-build]
//
// Output: docs/screenshots/remote-task.png

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FRONTEND, REPO, DEV_BINARY, startApp } from "./lib/app.mjs";
import { buildFakeAgents, CLAUDE_RECORDINGS } from "./lib/fakeagents.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { startSSHD } from "./lib/sshd.mjs";

const noBuild = process.argv.includes("--no-build");
const OUT = join(REPO, "docs/screenshots/remote-task.png");

function sh(cmd, argv, cwd) {
  console.log(`remote-task-shot: $ ${cmd} ${argv.join(" ")}`);
  execFileSync(cmd, argv, { cwd, stdio: "inherit" });
}

if (!noBuild) {
  sh("npx", ["vite", "build", "--logLevel", "warn"], FRONTEND);
  sh("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."], REPO);
}

const { sshd, tmp, remoteHome } = await startSSHD();

// The agent on "the remote": the fake claude wrapper in ~/.local/bin, and a
// repository whose .fake-claude.env picks the permission recording.
const fakeBin = buildFakeAgents();
mkdirSync(join(remoteHome, ".local/bin"), { recursive: true });
symlinkSync(join(fakeBin, "claude"), join(remoteHome, ".local/bin/claude"));
const repo = join(remoteHome, "code", "shop-api");
mkdirSync(repo, { recursive: true });
const git = (...a) =>
  execFileSync("git", a, {
    cwd: repo,
    stdio: "ignore",
    env: { ...process.env, GIT_AUTHOR_NAME: "e2e", GIT_AUTHOR_EMAIL: "e2e@example.invalid", GIT_COMMITTER_NAME: "e2e", GIT_COMMITTER_EMAIL: "e2e@example.invalid" },
  });
git("init", "-q", "-b", "main");
writeFileSync(join(repo, ".fake-claude.env"), `FAKE_CLAUDE_SCRIPT=${join(CLAUDE_RECORDINGS, "bidi_perm_allow.jsonl")}\nFAKE_CLAUDE_LINE_DELAY=100ms\n`);
writeFileSync(join(repo, "README.md"), "# shop-api\n");
git("add", ".");
git("commit", "-q", "-m", "init");

// The app's ssh processes (master, relay dial) use its data dir's control folder.
function killAppSSH(dataDir) {
  let n = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (/(^|\/)ssh\0/.test(cmd) && cmd.includes("ControlPath=") && cmd.includes(dataDir)) {
      try {
        process.kill(Number(pid), "SIGKILL");
        n++;
      } catch {
        /* gone */
      }
    }
  }
  return n;
}

let app = null;
let browser = null;
let code = 1;
let stopped = false;
try {
  app = await startApp({ tmp, pathPrefix: [fakeBin] });
  console.log(`remote-task-shot: app at ${app.baseURL}, data dir ${app.tmp}`);
  browser = await launchBrowser();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(app.baseURL + "/");
  await page.locator(".jc-app[data-ready]").waitFor({ timeout: 20000 });
  const id = await page.evaluate(async (repo) => {
    const { HostService: H, TaskService: T, SessionService: S } = window.go.services;
    const p = await H.AddRemoteProject("build-box", repo, "");
    const t = await T.Create({ projectId: p.id, prompt: "Create perm_test.txt", name: "Create perm_test.txt on build-box", backend: "claude-code", model: "", interactionMode: "ask" });
    await S.Start(t.id);
    return t.id;
  }, repo);
  const status = async () => page.evaluate((id) => window.go.services.TaskService.Get(id), id);
  for (let i = 0; i < 300 && (await status()).status !== "waiting"; i++) await page.waitForTimeout(200);
  console.log("remote-task-shot: task", JSON.stringify(await status()).slice(0, 300));
  process.kill(sshd.pid, "SIGSTOP");
  stopped = true;
  console.log("remote-task-shot: killed", killAppSSH(app.tmp), "ssh processes");
  for (let i = 0; i < 200 && !(await status()).statusReason?.startsWith("host unreachable"); i++) await page.waitForTimeout(200);
  console.log("remote-task-shot: reason", (await status()).statusReason);
  await page.reload();
  await page.locator(".jc-app[data-ready]").waitFor({ timeout: 20000 });
  await page.getByText("Create perm_test.txt on build-box").first().click();
  await page.getByTestId("host-unreachable").waitFor({ timeout: 20000 }).catch(async (e) => {
    await page.screenshot({ path: "/tmp/remote2-debug.png" });
    throw e;
  });
  await page.waitForTimeout(500);
  mkdirSync(join(REPO, "docs/screenshots"), { recursive: true });
  await page.screenshot({ path: OUT });
  console.log(`remote-task-shot: wrote ${OUT}`);
  code = 0;
} catch (err) {
  console.error(`remote-task-shot: ${err?.stack || err}`);
  if (app) console.error(execFileSync("tail", ["-n", "30", app.logPath], { encoding: "utf8" }));
} finally {
  if (browser) await browser.close().catch(() => {});
  try {
    if (stopped) process.kill(sshd.pid, "SIGCONT");
  } catch {
    /* gone */
  }
  if (app) await app.stop(); // quit "stop": the relay on the host is asked to stop
  // Relays still running on "the remote" after the app's 3 s grace (the
  // agent then waits on its permission) are ended here, and counted.
  await new Promise((r) => setTimeout(r, 2000));
  let left = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (cmd.startsWith(join(remoteHome, ".cache")) && cmd.endsWith("\0relay\0")) {
      left++;
      try {
        process.kill(Number(pid), "SIGTERM");
      } catch {
        /* gone */
      }
    }
  }
  console.log(`remote-task-shot: relays left after quit: ${left}`);
  try {
    process.kill(-sshd.pid, "SIGTERM");
  } catch {
    // already gone
  }
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);

#!/usr/bin/env node
// Screenshots of the REAL desktop window (WebKitGTK under Xvfb), light and
// dark, of a seeded database.
//
//   node e2e/desktop-shot.mjs [--no-build] [--out DIR]
//
// 1. Seeds a database through the dev binary's services (projects, tasks,
//    tasks actually run by the replaying fake Claude Code, so the messages
//    are real normalized output).
// 2. Runs the production binary (-tags desktop,production,webkit2_41) on
//    that database under xvfb-run + dbus-run-session, opens a task with
//    xdotool, sets the theme with the sidebar's theme button, and grabs the
//    screen with ImageMagick's `import -window root`.
// Output: docs/screenshots/desktop-{light,dark}.png (and -settings variants).

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FRONTEND, REPO, DEV_BINARY, startApp, makeGitRepo } from "./lib/app.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { buildFakeAgents, setFakeClaude, CLAUDE_RECORDINGS } from "./lib/fakeagents.mjs";
import { start, stop, stopSync } from "./lib/procs.mjs";

const args = process.argv.slice(2);
const noBuild = args.includes("--no-build");
const outAt = args.indexOf("--out");
const OUT = outAt >= 0 ? args[outAt + 1] : join(REPO, "docs/screenshots");
const PROD_BINARY = join(REPO, "build/bin/jean-claude");
const W = 1280;
const H = 800;

const running = new Set();
process.on("exit", () => running.forEach(stopSync));
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(130));

function sh(cmd, argv, opts = {}) {
  console.log(`shot: $ ${cmd} ${argv.join(" ")}`);
  return execFileSync(cmd, argv, { cwd: REPO, stdio: "inherit", ...opts });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function seed(tmp, fakeBin) {
  const repos = join(tmp, "repos");
  const jc = makeGitRepo(repos, "jean-claude");
  const pay = makeGitRepo(repos, "payments-api");
  const docs = makeGitRepo(repos, "docs-site");
  const infra = makeGitRepo(repos, "infra");
  setFakeClaude(jc, { FAKE_CLAUDE_SCRIPT: join(CLAUDE_RECORDINGS, "bidi_main_bypass.jsonl") });
  setFakeClaude(pay, { FAKE_CLAUDE_CRASH_AFTER: "3" });
  // Started live in the desktop window: the recording stops at a permission request.
  setFakeClaude(infra, { FAKE_CLAUDE_SCRIPT: join(CLAUDE_RECORDINGS, "bidi_perm_allow.jsonl") });

  const app = await startApp({ tmp, keepTmp: true, pathPrefix: [fakeBin] });
  running.add(app.child);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(app.baseURL + "/");
    await page.waitForFunction(() => window.go?.services?.TaskService);
    const ids = await page.evaluate(
      async ({ jc, pay, docs, infra }) => {
        const { ProjectService: P, TaskService: T, SessionService: S } = window.go.services;
        const pj = await P.Add(jc);
        const pp = await P.Add(pay);
        const pd = await P.Add(docs);
        await P.Add(infra);
        await P.SetDefaultModel(pj.id, "sonnet");
        await P.SetDefaultBackend(pd.id, "opencode");
        const mk = (projectId, prompt, over = {}) =>
          T.Create({ projectId, prompt, name: "", backend: "", model: "", interactionMode: "ask", ...over });
        const out = {};
        out.none1 = (await mk(pj.id, "Investigate the flaky migration test on CI", { backend: "codex" })).id;
        out.none2 = (await mk(pj.id, "Refactor the session loop into smaller steps", { backend: "opencode", interactionMode: "plan" })).id;
        out.run1 = (await mk(pj.id, "Create hello.txt and list the files", { interactionMode: "bypass" })).id;
        out.run2 = (await mk(pj.id, "Add a dark theme to the settings page", { interactionMode: "accept-edits", model: "opus" })).id;
        out.err = (await mk(pp.id, "Bump the Stripe SDK and fix the webhooks")).id;
        out.docs = (await mk(pd.id, "Write the getting started guide", { backend: "claude-code" })).id;
        if (S?.Start) {
          await S.Start(out.run2);
          await S.Start(out.err);
        }
        return out;
      },
      { jc, pay, docs, infra },
    );
    // Let the replays finish, then run the first task so it ends last (newest activity).
    const waitIdle = async (id) => {
      for (let i = 0; i < 100; i++) {
        const t = await page.evaluate((id) => window.go.services.TaskService.Get(id), id);
        if (!["running", "waiting"].includes(t.status)) return t.status;
        await sleep(200);
      }
      return "timeout";
    };
    console.log("shot: run2", await waitIdle(ids.run2), "err", await waitIdle(ids.err));
    await page.evaluate((id) => window.go.services.SessionService?.Start(id), ids.run1);
    console.log("shot: run1", await waitIdle(ids.run1));
    return ids;
  } finally {
    await browser.close();
    await stop(app.child);
    running.delete(app.child);
  }
}

/** shoot runs the production window on db and saves screenshots. actions run with DISPLAY set. */
async function shoot(tmp, name, steps, fakeBin) {
  const home = mkdtempSync(join(tmp, `home-${name}-`));
  const script = join(tmp, `shoot-${name}.sh`);
  // Everything inside one xvfb-run so the X display is ours; the app runs in the background.
  writeFileSync(
    script,
    `#!/bin/sh
set -e
"${PROD_BINARY}" --db "${join(tmp, "jean-claude.db")}" > "${join(tmp, `prod-${name}.log`)}" 2>&1 &
APP=$!
trap 'kill $APP 2>/dev/null || true' EXIT
WID=$(xdotool search --sync --onlyvisible --name '^Jean-Claude$' | head -n1)
xdotool windowmove "$WID" 0 0 windowsize "$WID" ${W} ${H}
sleep 4
${steps}
`,
  );
  const env = {
    PATH: [fakeBin, process.env.PATH].join(":"),
    LANG: "C.UTF-8",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_RUNTIME_DIR: home,
    JEAN_CLAUDE_DB: join(tmp, "jean-claude.db"),
  };
  const child = start("xvfb-run", ["-a", "-s", `-screen 0 ${W}x${H}x24`, "dbus-run-session", "--", "sh", script], {
    env,
    cwd: tmp,
    out: process.stdout,
  });
  running.add(child);
  const code = await new Promise((r) => child.on("exit", (c) => r(c)));
  running.delete(child);
  await stop(child);
  if (code !== 0) throw new Error(`screenshot run ${name} failed (exit ${code}); log ${join(tmp, `prod-${name}.log`)}`);
}

// WebKit paints slowly under Xvfb (software rendering): give each click time,
// and move the pointer away so no hover state or tooltip is captured.
const click = (x, y) => `xdotool mousemove ${x} ${y} click 1 mousemove ${W - 2} ${H - 2}; sleep 2.5`;
const grab = (file) => `sleep 1; import -window root "${file}"`;
// Layout of the 1280x800 window (styles/layout.css): the sidebar's theme
// button (bottom left), the first task row, the settings button.
const THEME_BTN = [219, 777];
const SETTINGS_BTN = [155, 777];
const NEW_TASK_BTN = [390, 105];
const project = (i) => [100, 102 + 30 * i];
const taskRow = (i) => [390, 205 + 56 * i];
const PROMPT = [988, 185];
const type = (text) => `xdotool type --delay 20 "${text}"; sleep 0.5`;
const key = (k) => `xdotool key ${k}; sleep 4`;

async function main() {
  if (!noBuild) {
    sh("npx", ["vite", "build", "--logLevel", "warn"], { cwd: FRONTEND });
    sh("go", ["build", "-tags", "dev,webkit2_41", "-o", DEV_BINARY, "."]);
    sh("go", ["build", "-tags", "desktop,production,webkit2_41", "-o", PROD_BINARY, "."]);
  }
  const fakeBin = buildFakeAgents();
  mkdirSync(OUT, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), "jc-shot-"));
  try {
    await seed(tmp, fakeBin);
    // Theme button cycles system -> light -> dark.
    await shoot(
      tmp,
      "light",
      [
        click(...THEME_BTN),
        click(...taskRow(0)),
        grab(join(OUT, "desktop-light.png")),
        click(...SETTINGS_BTN),
        grab(join(OUT, "desktop-light-settings.png")),
        // A task started in the window itself, waiting on a permission.
        click(...project(3)),
        click(...NEW_TASK_BTN),
        click(...PROMPT),
        type("Create hello.txt with a greeting"),
        key("ctrl+Return"),
        grab(join(OUT, "desktop-light-waiting.png")),
      ].join("\n"),
      fakeBin,
    );
    await shoot(
      tmp,
      "dark",
      [
        click(...THEME_BTN),
        click(...THEME_BTN),
        click(...taskRow(0)),
        grab(join(OUT, "desktop-dark.png")),
        click(...project(1)),
        click(...taskRow(0)),
        grab(join(OUT, "desktop-dark-errored.png")),
        click(...project(2)),
        click(...NEW_TASK_BTN),
        grab(join(OUT, "desktop-dark-new-task.png")),
      ].join("\n"),
      fakeBin,
    );
    console.log(`shot: saved under ${OUT}`);
  } finally {
    if (!args.includes("--keep")) rmSync(tmp, { recursive: true, force: true });
    else console.log(`shot: kept ${tmp}`);
  }
}

await main();

// Starts the Jean-Claude dev binary (Wails dev mode) under Xvfb and a private
// D-Bus session, with a fresh database and HOME, and serves the frontend to
// an external browser at http://127.0.0.1:PORT. In Wails v2 dev mode the page
// gets /wails/ipc.js, which connects back over a websocket (/wails/ipc), so
// bound service calls and EventsOn work from Chromium exactly as in the window.

import { createWriteStream, mkdirSync, mkdtempSync, rmSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execFileSync } from "node:child_process";
import { start, stop } from "./procs.mjs";

export const FRONTEND = resolve(new URL("../..", import.meta.url).pathname);
export const REPO = resolve(FRONTEND, "..");
export const DEV_BINARY = join(REPO, "build/bin/jean-claude-dev");

/** freePort asks the kernel for an unused loopback port. */
export function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.on("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

async function waitForHttp(url, child, timeoutMs, logPath) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the app exited early (code ${child.exitCode}, signal ${child.signalCode}); log: ${logPath}`);
    }
    try {
      const res = await fetch(url);
      if (res.ok && (await res.text()).includes("/wails/ipc.js")) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the dev server did not answer at ${url} within ${timeoutMs} ms; log: ${logPath}`);
}

/** makeGitRepo creates a small git repository under dir/name and returns its path. */
export function makeGitRepo(dir, name) {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  const git = (...args) =>
    execFileSync("git", args, {
      cwd: path,
      stdio: "ignore",
      env: { ...process.env, GIT_AUTHOR_NAME: "e2e", GIT_AUTHOR_EMAIL: "e2e@example.invalid", GIT_COMMITTER_NAME: "e2e", GIT_COMMITTER_EMAIL: "e2e@example.invalid" },
    });
  git("init", "-q", "-b", "main");
  execFileSync("sh", ["-c", `printf '# ${name}\\n' > README.md`], { cwd: path });
  git("add", "README.md");
  git("commit", "-q", "-m", "init");
  return path;
}

/**
 * startApp launches the dev binary and waits for its dev server.
 * Returns { baseURL, tmp, dbPath, logPath, stop() }.
 */
export async function startApp({
  binary = DEV_BINARY,
  assetDir = join(FRONTEND, "dist"),
  timeoutMs = 60000,
  keepTmp = false,
  tmp: givenTmp,
  pathPrefix = [],
  env: extraEnv = {},
  screen = "1280x800",
  displayFile = "",
} = {}) {
  if (!existsSync(binary)) throw new Error(`no dev binary at ${binary} (go build -tags dev,webkit2_41 -o build/bin/jean-claude-dev .)`);
  if (!existsSync(join(assetDir, "index.html"))) throw new Error(`no built frontend in ${assetDir} (npm run build)`);
  const tmp = givenTmp ?? mkdtempSync(join(tmpdir(), "jc-e2e-"));
  const home = join(tmp, "home");
  for (const d of [home, join(home, ".config"), join(home, ".local/share"), join(home, ".cache")]) mkdirSync(d, { recursive: true });
  const dbPath = join(tmp, "jean-claude.db");
  const logPath = join(tmp, "app.log");
  const out = createWriteStream(logPath);
  const port = await freePort();
  const env = {
    PATH: [...pathPrefix, process.env.PATH].join(":"),
    LANG: "C.UTF-8",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_RUNTIME_DIR: tmp,
    // xvfb-run keeps its auth file in a mktemp dir that it removes only
    // when its command ends by itself, not when stop() signals it: in the
    // launch's own dir, removed with it (each run left one in /tmp).
    TMPDIR: tmp,
    JEAN_CLAUDE_DB: dbPath,
    ...extraEnv,
  };
  const child = start(
    "xvfb-run",
    [
      "-a",
      "-s",
      `-screen 0 ${screen}x24`,
      "dbus-run-session",
      "--",
      // With displayFile, a tiny sh writes the X display and its auth file
      // there first, so a caller can grab or drive the real window.
      ...(displayFile ? ["sh", "-c", 'printf "%s\\n%s\\n" "$DISPLAY" "$XAUTHORITY" > "$0"; exec "$@"', displayFile] : []),
      binary,
      "-devserver",
      `127.0.0.1:${port}`,
      "-assetdir",
      assetDir,
      "-loglevel",
      "Warning",
    ],
    { env, cwd: REPO, out },
  );
  const baseURL = `http://127.0.0.1:${port}`;
  const app = {
    baseURL,
    tmp,
    home,
    dbPath,
    logPath,
    child,
    async stop() {
      await stop(child);
      out.end();
      if (!keepTmp) rmSync(tmp, { recursive: true, force: true });
    },
  };
  try {
    await waitForHttp(baseURL + "/", child, timeoutMs, logPath);
  } catch (err) {
    await stop(child);
    out.end();
    throw err;
  }
  return app;
}

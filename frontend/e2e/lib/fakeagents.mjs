// Fake agent CLIs for e2e runs: the repository's fakeclaude (a replay of
// recorded Claude Code sessions, backend/agent/agenttest/fakeclaude) built
// once, behind a `claude` wrapper on PATH. The wrapper lets each project
// choose its script: a `.fake-claude.env` file in the agent's working
// directory is sourced first (e.g. FAKE_CLAUDE_SCRIPT=/abs/recording.jsonl,
// FAKE_CLAUDE_HANG=1, FAKE_CLAUDE_LINE_DELAY=50ms).

import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "./app.mjs";

// Under build/bin (git-ignored): build artifacts, never committed.
export const FAKE_BIN_DIR = join(REPO, "build/bin/e2e");
export const CLAUDE_RECORDINGS = join(REPO, "backend/agent/agenttest/testdata/claude");

/** buildFakeAgents builds fakeclaude and writes the `claude` wrapper; returns the PATH dir. */
export function buildFakeAgents() {
  mkdirSync(FAKE_BIN_DIR, { recursive: true });
  execFileSync("go", ["build", "-o", join(FAKE_BIN_DIR, "fakeclaude"), "./backend/agent/agenttest/fakeclaude"], {
    cwd: REPO,
    stdio: "inherit",
  });
  const wrapper = join(FAKE_BIN_DIR, "claude");
  writeFileSync(
    wrapper,
    `#!/bin/sh
# e2e stand-in for Claude Code (see frontend/e2e/lib/fakeagents.mjs): with a
# .fake-claude.env in the working directory, replay what it says; without one,
# defer to the next \`claude\` on PATH (another suite's fake), else replay nothing.
self_dir='${FAKE_BIN_DIR}'
if [ ! -f ./.fake-claude.env ]; then
  IFS=:
  for d in $PATH; do
    [ "$d" = "$self_dir" ] && continue
    if [ -x "$d/claude" ]; then unset IFS; exec "$d/claude" "$@"; fi
  done
  unset IFS
else
  set -a; . ./.fake-claude.env; set +a
fi
exec "$self_dir/fakeclaude" "$@"
`,
  );
  chmodSync(wrapper, 0o755);
  return FAKE_BIN_DIR;
}

/** fakeClaudeEnv writes a project's .fake-claude.env (commit it so worktrees get it too). */
export function setFakeClaude(repoPath, vars) {
  const body = Object.entries(vars)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n");
  writeFileSync(join(repoPath, ".fake-claude.env"), body + "\n");
  const git = (...a) =>
    execFileSync("git", a, {
      cwd: repoPath,
      stdio: "ignore",
      env: { ...process.env, GIT_AUTHOR_NAME: "e2e", GIT_AUTHOR_EMAIL: "e2e@example.invalid", GIT_COMMITTER_NAME: "e2e", GIT_COMMITTER_EMAIL: "e2e@example.invalid" },
    });
  git("add", ".fake-claude.env");
  git("commit", "-q", "-m", "fake agent settings");
}

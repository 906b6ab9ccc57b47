// The data every screen screenshot shows (issue 23), seeded through the dev
// server's services: a project with a long folder name, a task that wrote a
// file (a diff), an OpenCode task never started, and a task waiting on a
// permission. Shared by screens-shot.mjs (Chromium) and webkit-shots.mjs
// (the real WebKitGTK window).

import { join } from "node:path";
import { REPO, makeGitRepo } from "./app.mjs";
import { setFakeClaude, CLAUDE_RECORDINGS } from "./fakeagents.mjs";

export const SIZES = [
  [1000, 700],
  [1280, 800],
  [1920, 1080],
];

/** seedScreens fills the app's database through page (a Chromium page on app) and returns the ids. */
export async function seedScreens(page, app) {
  const repo = makeGitRepo(join(app.tmp, "repos"), "web-app-with-a-rather-long-folder-name-to-truncate");
  setFakeClaude(repo, { FAKE_CLAUDE_SCRIPT: join(CLAUDE_RECORDINGS, "bidi_write_allow.jsonl") });
  const wait = join(app.tmp, "repos", "waiting");
  makeGitRepo(join(app.tmp, "repos"), "waiting");
  setFakeClaude(wait, { FAKE_CLAUDE_SCRIPT: join(REPO, "frontend/e2e/testdata/claude-rules.jsonl") });
  const ids = await page.evaluate(
    async ([repo, wait]) => {
      const { ProjectService: P, TaskService: T, SessionService: S } = window.go.services;
      const p = await P.Add(repo);
      const w = await P.Add(wait);
      const done = await T.Create({ projectId: p.id, prompt: "Create hello.txt with a greeting and explain what you did", name: "Write a greeting file", backend: "claude-code", model: "", interactionMode: "ask" });
      await T.Create({ projectId: p.id, prompt: "Upgrade to React 19", name: "", backend: "opencode", model: "", interactionMode: "ask" });
      const asking = await T.Create({ projectId: w.id, prompt: "Run the tests", name: "Run the test suite and fix what fails in the checkout flow", backend: "claude-code", model: "", interactionMode: "ask" });
      await S.Start(done.id);
      await S.Start(asking.id);
      return { project: p.id, done: done.id, asking: asking.id, waitProject: w.id };
    },
    [repo, wait],
  );
  // Answer the write permission so the first task finishes with a diff.
  await page.waitForFunction(async (id) => (await window.go.services.SessionService.PendingRequests(id))?.length > 0, ids.done, { timeout: 20000, polling: 250 });
  await page.evaluate(async (id) => {
    const [r] = await window.go.services.SessionService.PendingRequests(id);
    await window.go.services.SessionService.RespondToPermission(id, r.requestId, { behavior: "allow", scope: "project" });
  }, ids.done);
  await page.waitForTimeout(2000);
  return ids;
}

// Live updates: tasks run by the replaying fake Claude Code; the task list
// follows the orchestrator's "task:updated" events over the dev server's
// websocket (status, new tasks, unread markers) without a reload.

import { test, assert, assertEqual } from "../lib/runner.mjs";

async function addProject(page, path) {
  await page.getByRole("navigation", { name: "Projects" }).getByRole("button", { name: "Add project" }).click();
  const dialog = page.getByRole("dialog", { name: "Add project" });
  await dialog.getByLabel("Project folder").fill(path);
  await dialog.getByRole("button", { name: "Add project" }).click();
  await dialog.waitFor({ state: "detached" });
}

const row = (page, text) => page.getByTestId("task-row").filter({ hasText: text });

async function waitAttr(locator, attr, want, timeout = 20000) {
  const deadline = Date.now() + timeout;
  let got;
  while (Date.now() < deadline) {
    got = await locator.getAttribute(attr).catch(() => null);
    if (got === want) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${attr}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)} after ${timeout} ms`);
}

test("a task started from the form runs, and its row follows the events", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const repo = makeRepo("live");
  fakeClaude(repo, {}); // no script: the fake answers "You said: <prompt>"
  await addProject(page, repo);
  await page.getByRole("button", { name: "New task" }).click();
  await page.getByLabel("Backend", { exact: true }).selectOption("claude-code");
  await page.getByLabel("Prompt").fill("Say hello to the e2e test");
  await page.getByRole("button", { name: "Create task" }).click();
  const r = row(page, "Say hello to the e2e test");
  await r.waitFor();
  await waitAttr(r, "data-task-status", "completed");
  assertEqual(await r.locator("[data-status]").getAttribute("data-status"), "idle", "indicator after completion");
  // The open task is being read: no unread marker.
  assertEqual(await r.getByTestId("unread-marker").count(), 0, "no unread marker on the open task");
  // The fake's generated turn reached the task view.
  await page.locator(".jc-main").getByText("You said: Say hello to the e2e test").first().waitFor({ timeout: 15000 });
});

test("a hanging agent shows busy until stopped; tasks made elsewhere appear with unread markers", async ({ page, open, makeRepo, fakeClaude }) => {
  await open();
  const repo = makeRepo("hang");
  fakeClaude(repo, { FAKE_CLAUDE_HANG: "1" });
  await addProject(page, repo);
  const projectId = await page.evaluate(async (p) => (await window.go.services.ProjectService.List()).find((x) => x.path === p).id, repo);

  // Created through the service, not the form: the row comes from the event.
  const hung = await page.evaluate(
    (projectId) => window.go.services.TaskService.Create({ projectId, prompt: "Wait forever", name: "", backend: "claude-code", model: "", interactionMode: "ask" }),
    projectId,
  );
  const r = row(page, "Wait forever");
  await r.waitFor({ timeout: 10000 });
  assertEqual(await r.locator("[data-status]").getAttribute("data-status"), "none", "not started yet");
  await page.evaluate((id) => window.go.services.SessionService.Start(id), hung.id);
  await waitAttr(r.locator("[data-status]"), "data-status", "busy");
  const projectItem = page.getByTestId("project-item").filter({ hasText: repo.split("/").pop() });
  await waitAttr(projectItem.locator("[data-activity]"), "data-activity", "busy");
  await page.evaluate((id) => window.go.services.SessionService.Stop(id), hung.id);
  await waitAttr(r.locator("[data-status]"), "data-status", "idle");
  await projectItem.locator("[data-activity]").waitFor({ state: "detached" });
  const status = await r.getAttribute("data-task-status");
  assert(status === "interrupted" || status === "completed", `stopped task ends interrupted, got ${status}`);

  // A task that finishes while another is open gets an unread marker, in the row and the sidebar.
  await r.click();
  fakeClaude(repo, { FAKE_CLAUDE_HANG: "" });
  const other = await page.evaluate(
    (projectId) => window.go.services.TaskService.Create({ projectId, prompt: "Finish in the background", name: "", backend: "claude-code", model: "", interactionMode: "bypass" }),
    projectId,
  );
  await page.evaluate((id) => window.go.services.SessionService.Start(id), other.id);
  const bg = row(page, "Finish in the background");
  await waitAttr(bg, "data-task-status", "completed");
  await bg.getByTestId("unread-marker").waitFor({ timeout: 10000 });
  const item = page.getByTestId("project-item").filter({ hasText: repo.split("/").pop() });
  await item.getByLabel(/unread/).waitFor();

  // Opening it clears the marker, also after a reload (MarkRead is stored).
  await bg.click();
  await bg.getByTestId("unread-marker").waitFor({ state: "detached" });
  await page.reload();
  await page.locator(".jc-app[data-ready]").waitFor();
  await page.getByTestId("project-item").filter({ hasText: repo.split("/").pop() }).click();
  await row(page, "Finish in the background").waitFor();
  assertEqual(await row(page, "Finish in the background").getByTestId("unread-marker").count(), 0, "still read after reload");
});

// Foundation: add a project through the typed-path fallback, set its default
// backend, create a task with a backend override, and see the task's badge
// show the override — all through the real Go services and SQLite.

import { test, assert, assertEqual } from "../lib/runner.mjs";

const sidebar = (page) => page.getByRole("navigation", { name: "Projects" });

async function addProject(page, path) {
  await sidebar(page).getByRole("button", { name: "Add project" }).click();
  const dialog = page.getByRole("dialog", { name: "Add project" });
  await dialog.getByLabel("Project folder").fill(path);
  await dialog.getByRole("button", { name: "Add project" }).click();
  return dialog;
}

test("a bad project path shows the service's error next to the field", async ({ page, open }) => {
  await open();
  const dialog = await addProject(page, "/definitely/not/here");
  const input = dialog.getByLabel("Project folder");
  const alert = dialog.getByRole("alert");
  await alert.waitFor();
  const text = await alert.innerText();
  assert(/does not exist/i.test(text), `error mentions the missing path, got ${JSON.stringify(text)}`);
  assert(text.includes("/definitely/not/here"), "error names the path");
  assertEqual(await input.getAttribute("aria-invalid"), "true", "path field is marked invalid");
  assertEqual(await input.getAttribute("aria-describedby"), await alert.getAttribute("id"), "error is tied to the path field");
  assertEqual(await dialog.isVisible(), true, "dialog stays open");
});

test("add project, set its backend, create a task with an override, see the badge", async ({ page, open, makeRepo }) => {
  await open();
  const repo = makeRepo("alpha");
  const name = repo.split("/").pop();

  // Add the project by typing its path.
  const dialog = await addProject(page, repo);
  await dialog.waitFor({ state: "detached" });
  const item = sidebar(page).getByTestId("project-item").filter({ hasText: name });
  await item.waitFor();
  assertEqual(await item.getAttribute("aria-current"), "true", "new project is selected");
  await page.getByRole("heading", { name, exact: true }).waitFor();
  assert(await page.locator(".jc-tasks__path").innerText().then((t) => t.includes(repo)), "task list header shows the path");

  // Project settings: pick a default backend different from the current one.
  await page.getByRole("button", { name: "Project settings" }).click();
  const backendSelect = page.getByLabel("Default backend");
  const before = await backendSelect.inputValue();
  const options = await backendSelect.locator("option").evaluateAll((os) => os.map((o) => o.value));
  assert(options.length >= 2, `at least two backends are registered, got ${options.join(", ")}`);
  const projectBackend = options.find((o) => o !== before && o === "opencode") ?? options.find((o) => o !== before);
  await backendSelect.selectOption(projectBackend);
  await page.locator(`.jc-tasks__meta [data-backend="${projectBackend}"]`).waitFor();
  await page.getByRole("list", { name: /capabilities/ }).first().waitFor();

  // New task: the override dropdown starts at the project's backend.
  await page.getByRole("button", { name: "New task" }).click();
  const taskBackend = page.getByLabel("Backend", { exact: true });
  assertEqual(await taskBackend.inputValue(), projectBackend, "backend override defaults to the project's backend");

  // An empty prompt is refused by the service; the error sits next to the prompt.
  await page.getByLabel("Start the agent now").uncheck();
  await page.getByRole("button", { name: "Create task" }).click();
  const prompt = page.getByLabel("Prompt");
  await page.locator('.jc-field--error textarea[name="prompt"]').waitFor();
  const promptErr = await page.locator(".jc-field--error .jc-field__error").innerText();
  assert(/prompt/i.test(promptErr), `prompt error mentions the prompt: ${promptErr}`);
  assertEqual(await prompt.getAttribute("aria-invalid"), "true", "prompt is marked invalid");

  // Create with an override.
  const override = options.find((o) => o !== projectBackend);
  await prompt.fill("Add a CONTRIBUTING.md");
  await page.getByLabel("Name").fill("Contributing guide");
  await taskBackend.selectOption(override);
  await page.getByText("Overrides the project default").waitFor();
  await page.locator(".jc-segmented__item", { hasText: "Plan" }).click();
  assertEqual(await page.getByLabel("Plan").isChecked(), true, "plan mode chosen");
  await page.getByRole("button", { name: "Create task" }).click();

  const row = page.getByTestId("task-row").filter({ hasText: "Contributing guide" });
  await row.waitFor();
  assertEqual(await row.locator("[data-backend]").getAttribute("data-backend"), override, "task badge shows the override");
  assertEqual(await row.locator("[data-status]").getAttribute("data-status"), "none", "a new task has not run");
  assertEqual(await row.getAttribute("aria-current"), "true", "the new task is open");
  await page.locator(".jc-main [data-task-id]").first().waitFor();

  // It is stored: a reload (fresh load from SQLite) shows the same thing.
  await page.reload();
  await page.locator(".jc-app[data-ready]").waitFor();
  const again = page.getByTestId("task-row").filter({ hasText: "Contributing guide" });
  await again.waitFor();
  assertEqual(await again.locator("[data-backend]").getAttribute("data-backend"), override, "override persisted");
  assertEqual(
    await page.locator(".jc-tasks__meta [data-backend]").getAttribute("data-backend"),
    projectBackend,
    "project backend persisted",
  );
  const stored = await page.evaluate(async (id) => {
    const list = await window.go.services.TaskService.List(id);
    return list.map((t) => ({ name: t.name, backend: t.backend, mode: t.interactionMode }));
  }, await page.evaluate(async (p) => (await window.go.services.ProjectService.List()).find((x) => x.path === p).id, repo));
  assertEqual(JSON.stringify(stored), JSON.stringify([{ name: "Contributing guide", backend: override, mode: "plan" }]), "TaskService.List");
});

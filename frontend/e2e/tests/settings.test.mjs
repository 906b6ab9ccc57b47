// Project and global settings through the real services: rename, remove with
// confirmation, and the global default backend that new projects start with.

import { test, assert, assertEqual } from "../lib/runner.mjs";

const sidebar = (page) => page.getByRole("navigation", { name: "Projects" });

async function addProject(page, path) {
  await sidebar(page).getByRole("button", { name: "Add project" }).click();
  const dialog = page.getByRole("dialog", { name: "Add project" });
  await dialog.getByLabel("Project folder").fill(path);
  await dialog.getByRole("button", { name: "Add project" }).click();
  await dialog.waitFor({ state: "detached" });
}

test("the global default backend is what a new project starts with", async ({ page, open, makeRepo }) => {
  await open();
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  const select = page.getByLabel("Default backend");
  // Settings is a chunk loaded on first use and fills its backends after:
  // wait for them before reading the choices.
  await select.locator("option").nth(1).waitFor({ state: "attached" });
  const options = await select.locator("option").evaluateAll((os) => os.map((o) => o.value));
  const before = await select.inputValue();
  const next = options.find((o) => o !== before);
  await select.selectOption(next);
  await page.getByRole("list", { name: /capabilities/ }).first().waitFor();
  try {
    const repo = makeRepo("default-backend");
    await addProject(page, repo);
    await page.locator(`.jc-tasks__meta [data-backend="${next}"]`).waitFor();
    assertEqual(await page.evaluate(() => window.go.services.SettingsService.GetDefaultBackend()), next, "stored global default");
  } finally {
    // Put it back for the other tests.
    await page.evaluate((b) => window.go.services.SettingsService.SetDefaultBackend(b), before);
  }
});

test("rename a project, then remove it after confirming", async ({ page, open, makeRepo }) => {
  await open();
  const repo = makeRepo("rename-me");
  await addProject(page, repo);
  await page.getByRole("button", { name: "Project settings" }).click();
  const name = page.getByLabel("Name", { exact: true });
  await name.fill("  ");
  await page.getByRole("button", { name: "Rename", exact: true }).click();
  const err = page.locator(".jc-field--error .jc-field__error");
  await err.waitFor();
  assert((await err.innerText()).length > 0, "an empty name is refused with a message next to the field");
  await name.fill("Renamed project");
  await page.getByRole("button", { name: "Rename", exact: true }).click();
  await sidebar(page).getByTestId("project-item").filter({ hasText: "Renamed project" }).waitFor();

  await page.getByRole("button", { name: /Remove project/ }).click();
  await page.getByRole("button", { name: "Cancel" }).click();
  assertEqual(await sidebar(page).getByTestId("project-item").filter({ hasText: "Renamed project" }).count(), 1, "cancel keeps it");
  await page.getByRole("button", { name: /Remove project/ }).click();
  await page.getByRole("button", { name: "Yes, remove" }).click();
  await sidebar(page).getByTestId("project-item").filter({ hasText: "Renamed project" }).waitFor({ state: "detached" });
  await page.reload();
  await page.locator(".jc-app[data-ready]").waitFor();
  assertEqual(await sidebar(page).getByTestId("project-item").filter({ hasText: "Renamed project" }).count(), 0, "gone after reload");
  const left = await page.evaluate((p) => window.go.services.ProjectService.List().then((l) => l.filter((x) => x.path === p).length), repo);
  assertEqual(left, 0, "ProjectService.List no longer has it");
});

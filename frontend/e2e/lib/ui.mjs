// Small steps the e2e tests share.

/** until polls fn (true when done) every 150 ms until timeout, then throws what it last returned. */
export async function until(what, fn, timeout = 30000) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    last = await fn().catch((e) => e);
    if (last === true) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${what}: still ${JSON.stringify(String(last))} after ${timeout} ms`);
}

/** addProject adds the folder at path as a project through the sidebar's dialog. */
export async function addProject(page, path) {
  await page.getByRole("navigation", { name: "Projects" }).getByRole("button", { name: "Add project" }).click();
  const dialog = page.getByRole("dialog", { name: "Add project" });
  await dialog.getByLabel("Project folder").fill(path);
  await dialog.getByRole("button", { name: "Add project" }).click();
  await dialog.waitFor({ state: "detached" });
}

/**
 * createTask fills the New task form (the agent started now) and returns the
 * task view once it shows; mode is the interaction mode's label, when the
 * form offers one.
 */
export async function createTask(page, { prompt, name, backend, mode }) {
  await page.getByRole("button", { name: "New task" }).click();
  await page.getByLabel("Prompt").fill(prompt);
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Backend", { exact: true }).selectOption(backend);
  if (mode) {
    const seg = page.locator(".jc-segmented__item", { hasText: mode });
    if (await seg.count()) await seg.first().click();
  }
  const start = page.getByLabel("Start the agent now");
  if (!(await start.isChecked())) await start.check();
  await page.getByRole("button", { name: "Create task" }).click();
  const view = page.getByTestId("task-view");
  await view.waitFor();
  return view;
}

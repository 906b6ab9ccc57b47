import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App, applyTheme } from "./App";
import { createAppStore } from "./state/store";
import { fakeApi, makeProject, makeTask, memoryStorage } from "./test/fakeApi";

function renderApp(opts: Parameters<typeof fakeApi>[0] = {}) {
  const api = fakeApi(opts);
  const store = createAppStore(api, memoryStorage());
  render(<App store={store} />);
  return { api, store };
}

test("empty state invites adding a project", async () => {
  renderApp();
  expect(await screen.findByText("Welcome to Jean-Claude")).toBeInTheDocument();
  expect(screen.getByText("No projects yet")).toBeInTheDocument();
});

test("shows projects, tasks with status, backend badge and unread marker", async () => {
  renderApp({
    projects: [makeProject({ id: "p1", name: "alpha" }), makeProject({ id: "p2", name: "beta", path: "/b" })],
    tasks: [
      makeTask({ id: "t1", name: "Fix login", status: "running", backend: "opencode", hasUnread: true }),
      makeTask({ id: "t2", name: "Write docs", status: "completed", createdAt: 1 }),
    ],
  });
  const rows = await screen.findAllByTestId("task-row");
  expect(rows).toHaveLength(2);
  const first = rows[0];
  expect(within(first).getByText("Fix login")).toBeInTheDocument();
  expect(within(first).getByText("OpenCode")).toHaveAttribute("data-backend", "opencode");
  expect(first.querySelector("[data-status]")).toHaveAttribute("data-status", "busy");
  expect(within(first).getByTestId("unread-marker")).toBeInTheDocument();
  expect(rows[1].querySelector("[data-status]")).toHaveAttribute("data-status", "idle");
  expect(within(rows[1]).queryByTestId("unread-marker")).toBeNull();
  // Sidebar: the project with an unread task shows a count.
  expect(screen.getByLabelText("1 unread")).toBeInTheDocument();
});

test("selecting a task opens the task view and clears its unread marker", async () => {
  const user = userEvent.setup();
  const { api } = renderApp({ projects: [makeProject()], tasks: [makeTask({ id: "t1", name: "Fix login", hasUnread: true })] });
  await user.click(await screen.findByText("Fix login"));
  expect(document.querySelector('[data-task-id="t1"].jc-task-view, .jc-task-view[data-task-id="t1"]')).not.toBeNull();
  expect(screen.queryByTestId("unread-marker")).toBeNull();
  expect(api.calls).toContain("markRead t1");
});

test("applyTheme sets data-theme, resolving and following the system preference", () => {
  const el = document.createElement("html");
  applyTheme("dark", el);
  expect(el.getAttribute("data-theme")).toBe("dark");
  const listeners: Array<() => void> = [];
  const mql = {
    matches: true,
    addEventListener: (_: string, f: () => void) => listeners.push(f),
    removeEventListener: (_: string, f: () => void) => listeners.splice(listeners.indexOf(f), 1),
  } as unknown as MediaQueryList;
  const stop = applyTheme("system", el, mql);
  expect(el.getAttribute("data-theme")).toBe("dark");
  (mql as { matches: boolean }).matches = false;
  listeners.forEach((f) => f());
  expect(el.getAttribute("data-theme")).toBe("light");
  stop();
  expect(listeners).toHaveLength(0);
  applyTheme("system", el, undefined);
  expect(el.getAttribute("data-theme")).toBe("light");
});

test("deleting a task from the list needs a second click", async () => {
  const user = userEvent.setup();
  const { api, store } = renderApp({ projects: [makeProject()], tasks: [makeTask({ id: "t1", name: "Fix login" })] });
  await user.click(await screen.findByText("Fix login"));
  await user.click(screen.getByRole("button", { name: "Delete Fix login" }));
  expect(api.calls).not.toContain("deleteTask t1");
  await user.click(screen.getByRole("button", { name: "Confirm delete Fix login" }));
  expect(api.calls).toContain("deleteTask t1");
  expect(screen.queryByTestId("task-row")).toBeNull();
  expect(store.getState().screen).toEqual({ kind: "empty" });
});

test("deleting a task with a dirty worktree shows why and deletes only after 'Delete anyway'", async () => {
  const user = userEvent.setup();
  const { api, store } = renderApp({ projects: [makeProject()], tasks: [makeTask({ id: "t1", name: "Fix login" })] });
  api.dirtyTasks.add("t1");
  await user.click(await screen.findByText("Fix login"));
  await user.click(screen.getByRole("button", { name: "Delete Fix login" }));
  await user.click(screen.getByRole("button", { name: "Confirm delete Fix login" }));
  expect(api.calls).toContain("deleteTask t1");
  await screen.findByRole("button", { name: "Delete anyway (discard changes)" });
  expect(within(screen.getByTestId("task-row").parentElement!).getByRole("alert")).toHaveTextContent("uncommitted changes");
  expect(screen.getByTestId("task-row")).toBeTruthy();
  expect(api.calls).not.toContain("deleteTaskDiscarding t1");
  await user.click(screen.getByRole("button", { name: "Delete anyway (discard changes)" }));
  expect(api.calls).toContain("deleteTaskDiscarding t1");
  expect(screen.queryByTestId("task-row")).toBeNull();
  expect(store.getState().screen).toEqual({ kind: "empty" });
});

test("keyboard shortcuts open the new-task form, settings and add project", async () => {
  const user = userEvent.setup();
  const { store } = renderApp({ projects: [makeProject()] });
  await screen.findByTestId("project-item");
  await user.keyboard("{Control>}n{/Control}");
  expect(store.getState().screen).toEqual({ kind: "new-task", projectId: "p1" });
  expect(await screen.findByRole("heading", { name: "New task" })).toBeInTheDocument();
  await user.keyboard("{Control>},{/Control}");
  expect(store.getState().screen).toEqual({ kind: "settings" });
  await user.keyboard("{Control>}{Shift>}o{/Shift}{/Control}");
  expect(screen.getByRole("dialog", { name: "Add project" })).toBeInTheDocument();
});

test("the sidebar opens the Agents page", async () => {
  const user = userEvent.setup();
  const { store } = renderApp();
  await user.click(await screen.findByRole("button", { name: "Agents" }));
  expect(store.getState().screen).toEqual({ kind: "agents" });
});

test("the task filter narrows the list", async () => {
  const user = userEvent.setup();
  renderApp({
    projects: [makeProject()],
    tasks: [makeTask({ id: "t1", name: "Fix login" }), makeTask({ id: "t2", name: "Write docs", createdAt: 1 })],
  });
  await screen.findAllByTestId("task-row");
  await user.type(screen.getByLabelText("Filter tasks"), "docs");
  expect(screen.getAllByTestId("task-row").map((r) => r.textContent)).toEqual([expect.stringContaining("Write docs")]);
  await user.clear(screen.getByLabelText("Filter tasks"));
  await user.type(screen.getByLabelText("Filter tasks"), "zzz");
  expect(screen.getByText("No task matches “zzz”.")).toBeInTheDocument();
});

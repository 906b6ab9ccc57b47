import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App } from "../../App";
import { createAppStore } from "../../state/store";
import { fakeApi, makeProject, makeTask, memoryStorage } from "../../test/fakeApi";

async function setup(opts: Parameters<typeof fakeApi>[0] = {}) {
  const api = fakeApi(opts);
  const store = createAppStore(api, memoryStorage());
  render(<App store={store} />);
  await screen.findByRole("navigation");
  await new Promise((r) => setTimeout(r, 0));
  return { api, store, user: userEvent.setup() };
}

describe("add project", () => {
  test("a bad typed path shows the service error under the path field", async () => {
    const { api, user, store } = await setup({ existingDirs: ["/src/beta"] });
    await user.click(within(screen.getByRole("navigation")).getByRole("button", { name: "Add project" }));
    const dialog = screen.getByRole("dialog", { name: "Add project" });
    const input = within(dialog).getByLabelText("Project folder");
    await user.type(input, "/nope");
    await user.click(within(dialog).getByRole("button", { name: "Add project" }));
    const err = await within(dialog).findByRole("alert");
    expect(err).toHaveTextContent("project path /nope: no such directory");
    expect(input).toHaveAttribute("aria-invalid", "true");
    expect(input.getAttribute("aria-describedby")).toBe(err.id);
    expect(store.getState().projects).toHaveLength(0);
    expect(api.calls).toContain("add /nope");
  });

  test("a good typed path adds and selects the project and closes the dialog", async () => {
    const { user } = await setup({ existingDirs: ["/src/beta"] });
    await user.click(within(screen.getByRole("navigation")).getByRole("button", { name: "Add project" }));
    await user.type(screen.getByLabelText("Project folder"), "/src/beta{Enter}");
    expect(screen.queryByRole("dialog")).toBeNull();
    const item = await screen.findByTestId("project-item");
    expect(item).toHaveTextContent("beta");
    expect(item).toHaveAttribute("aria-current", "true");
    expect(screen.getByRole("heading", { name: "beta" })).toBeInTheDocument();
  });

  test("Choose folder uses the native picker, and a cancel adds nothing", async () => {
    const { api, user } = await setup({ existingDirs: ["/src/beta"] });
    await user.click(within(screen.getByRole("navigation")).getByRole("button", { name: "Add project" }));
    await user.click(screen.getByRole("button", { name: /Choose folder/ }));
    expect(api.calls).toEqual(expect.arrayContaining(["pickDirectory"]));
    expect(api.calls.some((c) => c.startsWith("add "))).toBe(false);
    expect(screen.getByRole("dialog")).toBeInTheDocument();
    api.pickResult = "/src/beta";
    await user.click(screen.getByRole("button", { name: /Choose folder/ }));
    expect(api.calls).toContain("add /src/beta");
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});

describe("project settings", () => {
  async function openSettings() {
    const ctx = await setup({ projects: [makeProject({ id: "p1", name: "alpha" })] });
    await ctx.user.click(screen.getByRole("button", { name: "Project settings" }));
    return ctx;
  }

  test("changing the default backend saves it and shows its capabilities", async () => {
    const { api, store, user } = await openSettings();
    const select = screen.getByLabelText("Default backend");
    expect(select).toHaveValue("claude-code");
    expect(screen.getByRole("list", { name: "Claude Code capabilities" })).toBeInTheDocument();
    await user.selectOptions(select, "opencode");
    expect(api.calls).toContain("setProjectBackend p1 opencode");
    expect(store.getState().projects[0].defaultBackend).toBe("opencode");
    const caps = await screen.findByRole("list", { name: "OpenCode capabilities" });
    expect(within(caps).getByText("Permissions").closest("li")).toHaveClass("jc-cap--off");
    // The task list header badge follows.
    expect(document.querySelector(".jc-tasks__meta [data-backend]")).toHaveAttribute("data-backend", "opencode");
  });

  test("rename errors show next to the name field", async () => {
    const { user, store } = await openSettings();
    const name = screen.getByLabelText("Name");
    await user.clear(name);
    await user.type(name, "   ");
    await user.click(screen.getByRole("button", { name: "Rename" }));
    expect(await screen.findByText("project name is empty")).toBeInTheDocument();
    expect(name).toHaveAttribute("aria-invalid", "true");
    await user.clear(name);
    await user.type(name, "gamma");
    await user.click(screen.getByRole("button", { name: "Rename" }));
    expect(store.getState().projects[0].name).toBe("gamma");
  });

  test("default model is saved", async () => {
    const { api, user } = await openSettings();
    const input = screen.getByLabelText("Default model");
    await user.type(input, "opus");
    // The settings page has several cards with a Save: the model's own form.
    await user.click(within(input.closest("form")!).getByRole("button", { name: "Save" }));
    expect(api.calls).toContain("setProjectModel p1 opus");
  });

  test("remove needs a confirmation", async () => {
    const { api, store, user } = await openSettings();
    await user.click(screen.getByRole("button", { name: /Remove project/ }));
    expect(api.calls.some((c) => c.startsWith("remove "))).toBe(false);
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(store.getState().projects).toHaveLength(1);
    await user.click(screen.getByRole("button", { name: /Remove project/ }));
    await user.click(screen.getByRole("button", { name: "Yes, remove" }));
    expect(api.calls).toContain("remove p1");
    expect(store.getState().projects).toHaveLength(0);
    expect(await screen.findByText("Welcome to Jean-Claude")).toBeInTheDocument();
  });
});

describe("global settings", () => {
  test("default backend and theme", async () => {
    const { api, store, user } = await setup();
    await user.click(screen.getByRole("button", { name: "Settings" }));
    await user.selectOptions(screen.getByLabelText("Default backend"), "opencode");
    expect(api.calls).toContain("setDefaultBackend opencode");
    await user.click(screen.getByLabelText("Dark"));
    expect(store.getState().theme).toBe("dark");
    expect(document.documentElement.getAttribute("data-theme")).toBe("dark");
    await user.click(screen.getByLabelText("System"));
    // jsdom has no colour-scheme preference: "system" resolves to light.
    expect(document.documentElement.getAttribute("data-theme")).toBe("light");
    expect(screen.getByRole("table")).toHaveTextContent("claude-code");
  });
});

describe("task summaries", () => {
  test("the summary agent is off by default and can be chosen", async () => {
    const { api, user } = await setup();
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const select = await screen.findByLabelText("Summary agent");
    await vi.waitFor(() => expect(select).not.toBeDisabled());
    expect(select).toHaveValue("");
    expect(within(select).getAllByRole("option").map((o) => o.textContent)).toEqual(["Off", "Claude Code"]);
    await user.selectOptions(select, "claude-code");
    expect(api.calls).toContain("setSummaryAgent claude-code");
    await user.selectOptions(select, "");
    expect(api.calls).toContain("setSummaryAgent ");
  });

  test("a task's summary shows in its row", async () => {
    const p = makeProject({ id: "p1", name: "alpha" });
    await setup({ projects: [p], tasks: [makeTask({ id: "t1", projectId: "p1", name: "Fix login", summary: "Fixed the login redirect and added a test." })] });
    const summary = await screen.findByTestId("task-summary");
    expect(summary).toHaveTextContent("Fixed the login redirect and added a test.");
  });
});

describe("notifications", () => {
  test("each kind toggles through SessionService", async () => {
    const { api, store, user } = await setup();
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const question = await screen.findByRole("switch", { name: /Question asked/ });
    expect(question).not.toBeChecked();
    expect(screen.getByRole("switch", { name: /Task finished/ })).toBeChecked();
    await user.click(question);
    expect(api.calls).toContain("notify question true");
    expect(store.getState().notifications?.question).toBe(true);
    expect(screen.getByRole("switch", { name: /Question asked/ })).toBeChecked();
  });

  test("window focus is reported", async () => {
    const { api } = await setup();
    window.dispatchEvent(new Event("blur"));
    window.dispatchEvent(new Event("focus"));
    expect(api.calls).toEqual(expect.arrayContaining(["focused false", "focused true"]));
  });
});

test("a refused global default backend shows the error next to the field", async () => {
  const { api, user } = await setup();
  await user.click(screen.getByRole("button", { name: "Settings" }));
  api.settings.setDefaultBackend = () => Promise.reject("the settings database is read-only");
  await user.selectOptions(screen.getByLabelText("Default backend"), "opencode");
  expect(await screen.findByText("the settings database is read-only")).toBeInTheDocument();
  expect(screen.getByLabelText("Default backend")).toHaveAttribute("aria-invalid", "true");
});

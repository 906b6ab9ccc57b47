import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { StoreProvider } from "../../state/context";
import { createAppStore } from "../../state/store";
import { BACKENDS, fakeApi, makeProject, memoryStorage } from "../../test/fakeApi";
import { NewTaskForm, modeNotice, taskFieldForError } from "./NewTaskForm";
import { createFakeGitProjectApi, type FakeGitProjectApi } from "../diff/fake";

async function setup(project = makeProject({ defaultBackend: "claude-code" }), gitApi?: FakeGitProjectApi) {
  const api = fakeApi({ projects: [project] });
  const store = createAppStore(api, memoryStorage());
  await store.getState().init();
  render(
    <StoreProvider store={store}>
      <NewTaskForm projectId={project.id} gitApi={gitApi} />
    </StoreProvider>,
  );
  return { api, store, user: userEvent.setup() };
}

function lastCreate(calls: string[]) {
  const c = [...calls].reverse().find((x) => x.startsWith("create "));
  return c ? JSON.parse(c.slice("create ".length)) : undefined;
}

describe("NewTaskForm", () => {
  test("the backend dropdown defaults to the project's backend", async () => {
    await setup(makeProject({ defaultBackend: "opencode" }));
    expect(screen.getByLabelText("Backend")).toHaveValue("opencode");
    expect(screen.getByText("Project default")).toBeInTheDocument();
  });

  test("an empty prompt shows the service error next to the prompt", async () => {
    const { api, user, store } = await setup();
    await user.click(screen.getByRole("button", { name: "Create task" }));
    const prompt = screen.getByLabelText("Prompt");
    expect(prompt).toHaveAttribute("aria-invalid", "true");
    const err = await screen.findByText("task prompt is empty");
    expect(prompt.getAttribute("aria-describedby")).toContain(err.parentElement!.id);
    expect(screen.getByLabelText("Backend")).not.toHaveAttribute("aria-invalid");
    expect(api.tasksDb).toHaveLength(0);
    expect(store.getState().screen.kind).toBe("empty");
    // Typing clears the error.
    await user.type(prompt, "x");
    expect(screen.queryByText("task prompt is empty")).toBeNull();
  });

  test("creates a task with a backend override, model and mode, then opens and starts it", async () => {
    const { api, store, user } = await setup();
    await user.type(screen.getByLabelText("Prompt"), "Refactor the parser");
    await user.type(screen.getByLabelText("Name"), "Parser");
    await user.selectOptions(screen.getByLabelText("Backend"), "opencode");
    expect(screen.getByText("Overrides the project default")).toBeInTheDocument();
    await user.type(screen.getByLabelText("Model"), "gpt-5");
    await user.click(screen.getByLabelText("Plan"));
    await user.click(screen.getByRole("button", { name: "Create task" }));
    expect(lastCreate(api.calls)).toEqual({
      projectId: "p1",
      prompt: "Refactor the parser",
      name: "Parser",
      backend: "opencode",
      model: "gpt-5",
      interactionMode: "plan",
    });
    const t = api.tasksDb[0];
    expect(t.backend).toBe("opencode");
    expect(store.getState().screen).toEqual({ kind: "task", taskId: t.id });
    expect(api.calls).toContain(`start ${t.id}`);
  });

  test("keeping the project's backend sends no override; start can be skipped", async () => {
    const { api, user } = await setup();
    await user.type(screen.getByLabelText("Prompt"), "hello");
    await user.click(screen.getByLabelText("Start the agent now"));
    await user.click(screen.getByRole("button", { name: "Create task" }));
    expect(lastCreate(api.calls)).toMatchObject({ backend: "", interactionMode: "ask" });
    expect(api.calls.some((c) => c.startsWith("start "))).toBe(false);
  });

  test("a start failure is kept for the task view", async () => {
    const { api, store, user } = await setup();
    api.startError = "Claude Code not found: executable file not found";
    await user.type(screen.getByLabelText("Prompt"), "hello");
    await user.click(screen.getByRole("button", { name: "Create task" }));
    const id = api.tasksDb[0].id;
    expect(store.getState().startErrors[id]).toBe("Claude Code not found: executable file not found");
  });

  test("a backend error shows next to the backend field", async () => {
    const { api, user } = await setup();
    api.tasks.create = () => Promise.reject('unknown backend "gemini"');
    await user.type(screen.getByLabelText("Prompt"), "hello");
    await user.click(screen.getByRole("button", { name: "Create task" }));
    expect(await screen.findByText('unknown backend "gemini"')).toBeInTheDocument();
    expect(screen.getByLabelText("Backend")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Prompt")).not.toHaveAttribute("aria-invalid");
  });

  test("Ctrl+Enter in the prompt submits", async () => {
    const { api, user } = await setup();
    await user.type(screen.getByLabelText("Prompt"), "quick{Control>}{Enter}{/Control}");
    expect(lastCreate(api.calls)).toMatchObject({ prompt: "quick" });
  });

  test("git options are recorded before the agent starts", async () => {
    const git = createFakeGitProjectApi();
    const order: string[] = [];
    const setTaskOptions = git.setTaskOptions;
    git.setTaskOptions = async (id, o) => {
      order.push("git");
      return setTaskOptions(id, o);
    };
    const { api, user } = await setup(undefined, git);
    const start = api.sessions!.start;
    api.sessions!.start = async (id) => {
      order.push("start");
      return start(id);
    };
    const own = await screen.findByRole("checkbox", { name: /Own worktree/ });
    expect(own).toBeChecked();
    await user.selectOptions(screen.getByLabelText("Start from branch"), "dev");
    await user.type(screen.getByLabelText("Prompt"), "hello");
    await user.click(screen.getByRole("button", { name: "Create task" }));
    const id = api.tasksDb[0].id;
    expect(git.calls.find((c) => c.method === "setTaskOptions")?.args).toEqual([id, { useWorktree: null, sourceBranch: "dev" }]);
    expect(order).toEqual(["git", "start"]);
  });

  test("without git choices no options are sent", async () => {
    const git = createFakeGitProjectApi();
    const { user } = await setup(undefined, git);
    await screen.findByRole("checkbox", { name: /Own worktree/ });
    await user.type(screen.getByLabelText("Prompt"), "hello");
    await user.click(screen.getByRole("button", { name: "Create task" }));
    expect(git.calls.some((c) => c.method === "setTaskOptions")).toBe(false);
  });

  test("notice when the backend has no permissions support in ask mode", async () => {
    const { user } = await setup();
    expect(screen.queryByTestId("mode-notice")).toBeNull();
    await user.selectOptions(screen.getByLabelText("Backend"), "opencode");
    expect(screen.getByTestId("mode-notice")).toHaveTextContent("OpenCode does not ask for permissions");
    await user.click(screen.getByLabelText("Bypass"));
    expect(screen.queryByTestId("mode-notice")).toBeNull();
  });
});

test("modeNotice", () => {
  const [claude, opencode] = BACKENDS;
  expect(modeNotice(claude, "ask")).toBe("");
  expect(modeNotice(opencode, "ask")).toMatch(/does not ask for permissions/);
  expect(modeNotice(opencode, "plan")).toBe("");
  const limited = { ...claude, capabilities: { ...claude.capabilities, modes: ["ask" as const] } };
  expect(modeNotice(limited, "bypass")).toMatch(/does not support the “bypass” mode/);
  expect(modeNotice(undefined, "ask")).toBe("");
});

test("taskFieldForError maps the service's messages", () => {
  expect(taskFieldForError("prompt is empty")).toBe("prompt");
  expect(taskFieldForError('unknown backend "x"')).toBe("backend");
  expect(taskFieldForError('invalid interaction mode "y" (one of: ask, accept-edits, plan, bypass)')).toBe("mode");
  expect(taskFieldForError('Claude Code does not support the "plan" interaction mode')).toBe("mode");
  expect(taskFieldForError("unknown model foo")).toBe("model");
  expect(taskFieldForError("project not found: p9")).toBe("form");
});

describe("agent states in the backend picker", () => {
  test("each agent is marked installed / not installed / not signed in", async () => {
    const { agentState } = await import("./NewTaskForm");
    const base = { backend: "x", displayName: "X", command: "x", probe: "version" as const, registered: true, capabilities: {} as never, settings: { binaryPath: "", extraArgs: [], env: {}, defaultModel: "", defaultMode: "" as const } };
    expect(agentState({ ...base, found: false })).toBe("not installed");
    expect(agentState({ ...base, found: true, signedIn: "not-signed-in" })).toBe("not signed in");
    expect(agentState({ ...base, found: true, signedIn: "" })).toBe("installed");
  });
});

import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { StoreProvider } from "../../state/context";
import { createAppStore } from "../../state/store";
import { fakeApi, makeProject, makeTask, memoryStorage } from "../../test/fakeApi";
import { TaskLinks } from "./TaskLinks";
import { ForkDialog } from "./ForkDialog";
import type { ForkApi } from "./api";

async function setup() {
  const api = fakeApi({ projects: [makeProject({ id: "p1" })], tasks: [makeTask({ id: "t1", name: "Parent" })] });
  const store = createAppStore(api, memoryStorage());
  await act(() => store.getState().init());
  const calls: unknown[][] = [];
  const fork: ForkApi = {
    fork: async (...a) => (calls.push(["fork", ...a]), makeTask({ id: "t2", name: "Fork of Parent" })),
    spawn: async (...a) => (calls.push(["spawn", ...a]), makeTask({ id: "t3", name: "Sub" })),
    links: async () => ({ parent: { taskId: "t0", name: "Origin", kind: "fork", backend: "claude-code", status: "completed" }, children: [{ taskId: "t3", name: "Sub", kind: "spawn", backend: "opencode", status: "created" }] }),
  };
  return { store, fork, calls };
}

test("links show the parent and children; a sub-task is created with its prompt and opened", async () => {
  const { store, fork, calls } = await setup();
  render(
    <StoreProvider store={store}>
      <TaskLinks taskId="t1" backend="claude-code" api={fork} />
    </StoreProvider>,
  );
  expect(await screen.findByText("Forked from")).toBeInTheDocument();
  await userEvent.click(screen.getByRole("button", { name: "Origin" }));
  expect(store.getState().screen).toEqual({ kind: "task", taskId: "t0" });
  expect(screen.getByRole("button", { name: "↳ Sub" })).toBeInTheDocument();

  await userEvent.click(screen.getByRole("button", { name: "+ Sub-task" }));
  const create = screen.getByRole("button", { name: "Create and start" });
  expect(create).toBeDisabled();
  await userEvent.type(screen.getByLabelText("Prompt"), "Write the tests");
  await userEvent.click(create);
  expect(calls).toEqual([["spawn", "t1", "claude-code", "Write the tests"]]);
  expect(store.getState().screen).toEqual({ kind: "task", taskId: "t3" });
});

test("fork from a message on another agent", async () => {
  const { store, fork, calls } = await setup();
  render(
    <StoreProvider store={store}>
      <ForkDialog req={{ kind: "fork", taskId: "t1", messageId: "m9", backend: "claude-code" }} api={fork} onClose={() => {}} />
    </StoreProvider>,
  );
  const agents = screen.getByLabelText("Agent") as HTMLSelectElement;
  const other = Array.from(agents.options).find((o) => o.value !== "claude-code")?.value ?? "claude-code";
  await userEvent.selectOptions(agents, other);
  await userEvent.click(screen.getByRole("button", { name: "Fork and start" }));
  expect(calls).toEqual([["fork", "t1", "m9", other, ""]]);
  expect(store.getState().screen).toEqual({ kind: "task", taskId: "t2" });
});

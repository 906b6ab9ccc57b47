import { act, render, screen } from "@testing-library/react";
import { App } from "./App";
import { createAppStore } from "./state/store";
import { fakeApi, makeProject, makeTask, memoryStorage } from "./test/fakeApi";
import { taskIndicator } from "./features/task-view/StatusBadge";

test("a database with damaged pages shows a banner once the background check reports it", async () => {
  const api = fakeApi();
  let health = { checked: false, ok: true, problems: [] as string[] };
  api.app = { databaseHealth: async () => health };
  render(<App store={createAppStore(api, memoryStorage())} />);
  expect(await screen.findByText("Welcome to Jean-Claude")).toBeInTheDocument();
  expect(screen.queryByTestId("db-health")).toBeNull();
  health = { checked: true, ok: false, problems: ["Tree 18 page 41: btreeInitPage() returns error code 11"] };
  act(() => api.emit("db:health", health));
  expect(await screen.findByTestId("db-health")).toHaveTextContent("btreeInitPage");
});

test("a task whose output cannot be stored shows it in the task list", async () => {
  const api = fakeApi({
    projects: [makeProject({ id: "p1" })],
    tasks: [makeTask({ id: "t1", status: "store-error", statusReason: "Cannot save the agent's output: database or disk is full" })],
  });
  render(<App store={createAppStore(api, memoryStorage())} />);
  const row = await screen.findByTestId("task-row");
  expect(row.querySelector("[data-status]")).toHaveAttribute("data-status", "blocked");
  expect(taskIndicator("store-error")).toBe("blocked");
});

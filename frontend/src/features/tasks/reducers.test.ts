import { filterTasks, projectActivity, taskTitle, unreadCount } from "./reducers";
import { removeTask, sortTasks, upsertTask } from "../../state/taskList";
import { makeTask } from "../../test/fakeApi";

describe("task list reducers", () => {
  test("sortTasks puts the newest first", () => {
    const a = makeTask({ id: "a", createdAt: 1 });
    const b = makeTask({ id: "b", createdAt: 3 });
    const c = makeTask({ id: "c", createdAt: 2 });
    expect(sortTasks([a, b, c]).map((t) => t.id)).toEqual(["b", "c", "a"]);
  });

  test("upsertTask inserts a new task in order", () => {
    const list = [makeTask({ id: "a", createdAt: 3 }), makeTask({ id: "b", createdAt: 1 })];
    const next = upsertTask(list, makeTask({ id: "c", createdAt: 2 }));
    expect(next.map((t) => t.id)).toEqual(["a", "c", "b"]);
    expect(list).toHaveLength(2); // not mutated
  });

  test("upsertTask replaces a task in place", () => {
    const list = [makeTask({ id: "a", createdAt: 3 }), makeTask({ id: "b", createdAt: 1, status: "created" })];
    const next = upsertTask(list, makeTask({ id: "b", createdAt: 1, status: "running" }));
    expect(next.map((t) => [t.id, t.status])).toEqual([
      ["a", "created"],
      ["b", "running"],
    ]);
  });

  test("upsertTask on an unknown project starts a list", () => {
    expect(upsertTask(undefined, makeTask({ id: "x" })).map((t) => t.id)).toEqual(["x"]);
  });

  test("removeTask drops by id", () => {
    expect(removeTask([makeTask({ id: "a" }), makeTask({ id: "b" })], "a").map((t) => t.id)).toEqual(["b"]);
    expect(removeTask(undefined, "a")).toEqual([]);
  });

  test("taskTitle prefers the name, then the prompt's first line", () => {
    expect(taskTitle({ name: " Refactor ", prompt: "x" })).toBe("Refactor");
    expect(taskTitle({ name: "", prompt: "\n  Fix login\nmore details" })).toBe("Fix login");
    expect(taskTitle({ name: "", prompt: "" })).toBe("Untitled task");
    const long = "x".repeat(200);
    expect(taskTitle({ name: "", prompt: long })).toHaveLength(80);
  });

  test("unreadCount counts unread tasks", () => {
    expect(unreadCount([makeTask({ hasUnread: true }), makeTask({ id: "b" }), makeTask({ id: "c", hasUnread: true })])).toBe(2);
    expect(unreadCount(undefined)).toBe(0);
  });
});

test("projectActivity: waiting beats busy; server indicator first", () => {
  expect(projectActivity(undefined)).toBe("");
  expect(projectActivity([makeTask({ status: "completed", indicator: "idle" })])).toBe("");
  expect(projectActivity([makeTask({ status: "running" }), makeTask({ id: "b", status: "completed" })])).toBe("busy");
  expect(projectActivity([makeTask({ status: "running" }), makeTask({ id: "b", status: "running", indicator: "waiting" })])).toBe("waiting");
});

test("filterTasks matches every word in title, prompt, backend or model", () => {
  const tasks = [
    makeTask({ id: "a", name: "Fix login", prompt: "the redirect loops", backend: "claude-code" }),
    makeTask({ id: "b", name: "", prompt: "Upgrade React", backend: "opencode", model: "gpt-5" }),
  ];
  expect(filterTasks(tasks, "").map((t) => t.id)).toEqual(["a", "b"]);
  expect(filterTasks(tasks, "LOGIN redirect").map((t) => t.id)).toEqual(["a"]);
  expect(filterTasks(tasks, "opencode gpt").map((t) => t.id)).toEqual(["b"]);
  expect(filterTasks(tasks, "login opencode")).toEqual([]);
});

import { createAppStore, findTask, withProjects } from "./store";
import { fakeApi, makeProject, makeTask, memoryStorage } from "../test/fakeApi";

function setup(opts: Parameters<typeof fakeApi>[0] = {}, storage = memoryStorage()) {
  const api = fakeApi(opts);
  const store = createAppStore(api, storage);
  return { api, store, storage };
}

describe("app store", () => {
  test("init loads projects, backends and the first project's tasks", async () => {
    const { store } = setup({
      projects: [makeProject({ id: "p1" }), makeProject({ id: "p2", path: "/b" })],
      tasks: [makeTask({ id: "t1", projectId: "p1", createdAt: 1 }), makeTask({ id: "t2", projectId: "p1", createdAt: 2 })],
    });
    await store.getState().init();
    const s = store.getState();
    expect(s.ready).toBe(true);
    expect(s.projects.map((p) => p.id)).toEqual(["p1", "p2"]);
    expect(s.backends.map((b) => b.name)).toEqual(["claude-code", "opencode"]);
    expect(s.defaultBackend).toBe("claude-code");
    expect(s.selectedProjectId).toBe("p1");
    expect(s.tasksByProject.p1.map((t) => t.id)).toEqual(["t2", "t1"]);
  });

  test("init reselects the remembered project", async () => {
    const { store } = setup(
      { projects: [makeProject({ id: "p1" }), makeProject({ id: "p2", path: "/b" })] },
      memoryStorage({ "jc.selectedProject": "p2" }),
    );
    await store.getState().init();
    expect(store.getState().selectedProjectId).toBe("p2");
  });

  test("init reports a load failure", async () => {
    const { api, store } = setup();
    api.projects.list = () => Promise.reject("database is locked");
    await store.getState().init();
    expect(store.getState().loadError).toBe("database is locked");
  });

  test("task:updated events upsert the task into its project", async () => {
    const { api, store } = setup({ projects: [makeProject()], tasks: [makeTask({ id: "t1" })] });
    await store.getState().init();
    api.emit("task:updated", { ...makeTask({ id: "t1" }), status: "running" });
    expect(findTask(store.getState(), "t1")?.status).toBe("running");
    const { backend: _b, ...raw } = makeTask({ id: "t9", createdAt: 9999 });
    api.emit("task:updated", { ...raw, agentBackend: "opencode" });
    expect(store.getState().tasksByProject.p1.map((t) => t.id)).toEqual(["t9", "t1"]);
    expect(findTask(store.getState(), "t9")?.backend).toBe("opencode");
  });

  test("projects:updated lists a project added elsewhere, with its tasks", async () => {
    const { api, store } = setup({ projects: [makeProject({ id: "p1" })] });
    await store.getState().init();
    api.projectsDb.push(makeProject({ id: "p2", path: "/b", name: "beta" }));
    api.tasksDb.push(makeTask({ id: "t2", projectId: "p2" }));
    api.emit("projects:updated", null);
    await vi.waitFor(() => expect(store.getState().tasksByProject.p2?.map((t) => t.id)).toEqual(["t2"]));
    const s = store.getState();
    expect(s.projects.map((p) => p.id)).toEqual(["p1", "p2"]);
    expect(s.selectedProjectId).toBe("p1"); // this window's selection stays
  });

  test("projects:updated drops a project removed elsewhere and closes its screen", async () => {
    const { api, store } = setup({
      projects: [makeProject({ id: "p1" }), makeProject({ id: "p2", path: "/b" })],
      tasks: [makeTask({ id: "t1", projectId: "p1" }), makeTask({ id: "t2", projectId: "p2" })],
    });
    await store.getState().init();
    store.getState().openScreen({ kind: "task", taskId: "t1" });
    api.projectsDb = api.projectsDb.filter((p) => p.id !== "p1");
    api.emit("projects:updated", null);
    await vi.waitFor(() => expect(store.getState().projects.map((p) => p.id)).toEqual(["p2"]));
    const s = store.getState();
    expect(s.selectedProjectId).toBe("p2");
    expect(s.screen).toEqual({ kind: "empty" });
    expect(Object.keys(s.tasksByProject)).toEqual(["p2"]);
  });

  test("withProjects keeps a screen whose project stays", () => {
    const tasksByProject = { p1: [makeTask({ id: "t1", projectId: "p1" })], p2: [makeTask({ id: "t2", projectId: "p2" })] };
    const view = { projects: [makeProject({ id: "p1" }), makeProject({ id: "p2" })], selectedProjectId: "p1", tasksByProject, screen: { kind: "task" as const, taskId: "t1" } };
    const kept = withProjects(view, [makeProject({ id: "p1", name: "renamed" })]);
    expect(kept.screen).toEqual({ kind: "task", taskId: "t1" });
    expect(kept.projects[0].name).toBe("renamed");
    expect(Object.keys(kept.tasksByProject)).toEqual(["p1"]);
    const settings = withProjects({ ...view, screen: { kind: "project-settings", projectId: "p2" } }, [makeProject({ id: "p1" })]);
    expect(settings.screen).toEqual({ kind: "empty" });
    expect(withProjects(view, []).selectedProjectId).toBeNull();
  });

  test("dispose unsubscribes from events", async () => {
    const { api, store } = setup({ projects: [makeProject()] });
    await store.getState().init();
    store.getState().dispose();
    api.emit("task:updated", makeTask({ id: "late" }));
    expect(findTask(store.getState(), "late")).toBeUndefined();
  });

  test("opening an unread task clears the marker and marks it read", async () => {
    const { api, store } = setup({ projects: [makeProject()], tasks: [makeTask({ id: "t1", hasUnread: true })] });
    await store.getState().init();
    store.getState().openScreen({ kind: "task", taskId: "t1" });
    expect(findTask(store.getState(), "t1")?.hasUnread).toBe(false);
    expect(api.calls).toContain("markRead t1");
    // An update for the task on screen does not bring the marker back.
    api.emit("task:updated", makeTask({ id: "t1", hasUnread: true, status: "completed" }));
    expect(findTask(store.getState(), "t1")?.hasUnread).toBe(false);
    expect(findTask(store.getState(), "t1")?.status).toBe("completed");
  });

  test("addProject selects the new project; a bad path rejects with the service error", async () => {
    const { store, storage } = setup({ existingDirs: ["/src/beta"] });
    await store.getState().init();
    store.getState().setAddProjectOpen(true);
    await expect(store.getState().addProject("/nope")).rejects.toBe("project path /nope: no such directory");
    expect(store.getState().projects).toHaveLength(0);
    expect(store.getState().addProjectOpen).toBe(true);
    const p = await store.getState().addProject("/src/beta");
    expect(store.getState().selectedProjectId).toBe(p.id);
    expect(store.getState().addProjectOpen).toBe(false);
    expect(storage.map.get("jc.selectedProject")).toBe(p.id);
  });

  test("project edits replace the project", async () => {
    const { store } = setup({ projects: [makeProject()] });
    await store.getState().init();
    await store.getState().setProjectBackend("p1", "opencode");
    await store.getState().renameProject("p1", "renamed");
    await store.getState().setProjectModel("p1", "sonnet");
    expect(store.getState().projects[0]).toMatchObject({ name: "renamed", defaultBackend: "opencode", defaultModel: "sonnet" });
    await expect(store.getState().setProjectBackend("p1", "nope")).rejects.toBe('unknown backend "nope"');
    expect(store.getState().projects[0].defaultBackend).toBe("opencode");
  });

  test("removeProject drops it and its tasks and selects another", async () => {
    const { store } = setup({ projects: [makeProject({ id: "p1" }), makeProject({ id: "p2", path: "/b" })], tasks: [makeTask()] });
    await store.getState().init();
    await store.getState().removeProject("p1");
    const s = store.getState();
    expect(s.projects.map((p) => p.id)).toEqual(["p2"]);
    expect(s.tasksByProject.p1).toBeUndefined();
    expect(s.selectedProjectId).toBe("p2");
  });

  test("createTask adds the task and opens it; deleteTask closes it", async () => {
    const { store } = setup({ projects: [makeProject()] });
    await store.getState().init();
    const t = await store
      .getState()
      .createTask({ projectId: "p1", prompt: "go", name: "", backend: "opencode", model: "", interactionMode: "plan" });
    expect(store.getState().tasksByProject.p1.map((x) => x.id)).toEqual([t.id]);
    expect(store.getState().screen).toEqual({ kind: "task", taskId: t.id });
    await store.getState().deleteTask(t.id);
    expect(store.getState().tasksByProject.p1).toEqual([]);
    expect(store.getState().screen).toEqual({ kind: "empty" });
  });

  test("theme persists", () => {
    const storage = memoryStorage({ "jc.theme": "dark" });
    const { store } = setup({}, storage);
    expect(store.getState().theme).toBe("dark");
    store.getState().setTheme("light");
    expect(storage.map.get("jc.theme")).toBe("light");
  });

  test("global default backend is validated by the service", async () => {
    const { store } = setup();
    await store.getState().init();
    await store.getState().setDefaultBackend("opencode");
    expect(store.getState().defaultBackend).toBe("opencode");
    await expect(store.getState().setDefaultBackend("zzz")).rejects.toBe('unknown backend "zzz"');
    expect(store.getState().defaultBackend).toBe("opencode");
  });
});

test("init loads every project's tasks so unread counts show for all", async () => {
  const api = fakeApi({
    projects: [makeProject({ id: "p1" }), makeProject({ id: "p2", path: "/b" })],
    tasks: [makeTask({ id: "a", projectId: "p2", hasUnread: true })],
  });
  const store = createAppStore(api, memoryStorage());
  await store.getState().init();
  expect(store.getState().selectedProjectId).toBe("p1");
  expect(store.getState().tasksByProject.p2.map((t) => t.id)).toEqual(["a"]);
});

test("renormalize:progress shows while it runs and clears when done", async () => {
  const api = fakeApi();
  const store = createAppStore(api, memoryStorage());
  await store.getState().init();
  api.emit("renormalize:progress", { done: 10, total: 40 });
  expect(store.getState().renormalize).toEqual({ done: 10, total: 40 });
  api.emit("renormalize:progress", { done: 40, total: 40 });
  expect(store.getState().renormalize).toBeNull();
});

import { hasWails, wailsApi } from "./wails";

type AnyFn = (...a: unknown[]) => unknown;

function install(services: Record<string, Record<string, AnyFn>>, runtime?: Record<string, AnyFn>) {
  const w = window as unknown as Record<string, unknown>;
  w.go = { services };
  w.runtime = runtime;
}

afterEach(() => {
  const w = window as unknown as Record<string, unknown>;
  delete w.go;
  delete w.runtime;
});

test("calls go through window.go.services and map the DTOs", async () => {
  const seen: unknown[][] = [];
  install({
    ProjectService: {
      Add: async (...a) => {
        seen.push(["Add", ...a]);
        return { id: "p1", name: "x", path: "/x", isGitRepo: true, defaultBackend: "opencode", defaultModel: "", createdAt: 1, updatedAt: 2 };
      },
      List: async () => null,
    },
    TaskService: {
      Create: async (...a) => {
        seen.push(["Create", ...a]);
        return { id: "t1", projectId: "p1", backend: "codex", status: "created", indicator: "none" };
      },
      Delete: async (...a) => {
        seen.push(["Delete", ...a]);
        return null;
      },
    },
  });
  expect(hasWails()).toBe(true);
  const api = wailsApi();
  expect((await api.projects.add("/x")).defaultBackend).toBe("opencode");
  expect(await api.projects.list()).toEqual([]);
  const input = { projectId: "p1", prompt: "p", name: "", backend: "codex", model: "", interactionMode: "ask" as const };
  const t = await api.tasks.create(input);
  expect(t).toMatchObject({ id: "t1", backend: "codex", indicator: "none", hasUnread: false });
  await api.tasks.remove("t1");
  expect(seen).toEqual([["Add", "/x"], ["Create", input], ["Delete", "t1"]]);
});

test("a Go error rejects with its message; a missing service rejects clearly", async () => {
  install({ ProjectService: { Add: () => Promise.reject("path does not exist: /nope") } });
  const api = wailsApi();
  await expect(api.projects.add("/nope")).rejects.toBe("path does not exist: /nope");
  await expect(api.settings.listBackends()).rejects.toThrow(/SettingsService.ListBackends is not available/);
});

test("events subscribe through the runtime and unsubscribe", () => {
  const handlers: Record<string, (...d: unknown[]) => void> = {};
  let off = 0;
  install({}, {
    EventsOnMultiple: (name, cb) => {
      handlers[name as string] = cb as (...d: unknown[]) => void;
      return () => {
        off++;
      };
    },
  });
  const got: unknown[] = [];
  const unsub = wailsApi().events.on("task:updated", (p) => got.push(p));
  handlers["task:updated"]({ id: "t1" }, "ignored");
  expect(got).toEqual([{ id: "t1" }]);
  unsub();
  expect(off).toBe(1);
});

test("without the runtime, subscribing is a no-op", () => {
  expect(hasWails()).toBe(false);
  const unsub = wailsApi().events.on("x", () => {});
  expect(() => unsub()).not.toThrow();
});

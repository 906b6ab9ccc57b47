import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { StoreProvider } from "../../state/context";
import { createAppStore } from "../../state/store";
import { fakeApi, makeProject, makeTask, memoryStorage } from "../../test/fakeApi";
import { ImportLauncher, OPEN_IMPORT, formatSize, type ImportApi, type Session } from "./ImportDialog";

const session = (over: Partial<Session>): Session => ({
  format: "claude-code", id: "s1", path: "/h/.claude/projects/-p/s1.jsonl", cwd: "/p", startedAt: 1, updatedAt: 2,
  firstPrompt: "Fix the login", size: 2048, ...over,
}) as Session;

test("lists the folder's sessions with prompt, date and size; imports one; an imported one opens", async () => {
  const store = createAppStore(fakeApi({ projects: [makeProject({ id: "p1", path: "/p" })] }), memoryStorage());
  await act(() => store.getState().init());
  store.getState().selectProject("p1");
  let imported = false;
  const folders: string[] = [];
  const api: ImportApi = {
    list: async (folder) => {
      folders.push(folder);
      return [session({ taskId: imported ? "t9" : undefined }), session({ id: "s2", firstPrompt: "Old one", taskId: "t8" })];
    },
    importSession: async (s, projectId) => {
      imported = true;
      expect([s.id, projectId]).toEqual(["s1", "p1"]);
      return makeTask({ id: "t9", projectId: "p1" });
    },
  };
  render(
    <StoreProvider store={store}>
      <ImportLauncher api={api} />
    </StoreProvider>,
  );
  act(() => void window.dispatchEvent(new Event(OPEN_IMPORT)));
  const list = await screen.findByRole("list", { name: "Sessions" });
  expect(await within(list).findByText("Fix the login")).toBeInTheDocument();
  expect(folders[0]).toBe("/p");
  expect(within(list).getAllByText(/2\.0 KB/)).toHaveLength(2);
  await userEvent.click(within(list).getByRole("button", { name: "Import" }));
  expect(await within(list).findAllByRole("button", { name: "Imported — open" })).toHaveLength(2);
  await userEvent.click(within(list).getAllByRole("button", { name: "Imported — open" })[0]);
  expect(store.getState().screen).toEqual({ kind: "task", taskId: "t9" });
  expect(formatSize(3 << 20)).toBe("3.0 MB");
}, 30000);

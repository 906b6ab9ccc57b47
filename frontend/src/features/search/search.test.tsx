import { act, fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { StoreProvider } from "../../state/context";
import { createAppStore } from "../../state/store";
import { fakeApi, makeProject, memoryStorage } from "../../test/fakeApi";
import { SearchPalette, isSearchShortcut } from "./SearchPalette";
import { dayMs, splitSnippet, type SearchApi, type SearchHit } from "./api";

test("splitSnippet marks the matches", () => {
  expect(splitSnippet("…call \u0002parse_config\u0003(x) and \u0002東京\u0003")).toEqual([
    { text: "…call ", match: false },
    { text: "parse_config", match: true },
    { text: "(x) and ", match: false },
    { text: "東京", match: true },
  ]);
  expect(splitSnippet("plain")).toEqual([{ text: "plain", match: false }]);
  expect(splitSnippet("\u0002open")).toEqual([{ text: "open", match: true }]);
});

test("shortcuts and days", () => {
  expect(isSearchShortcut(new KeyboardEvent("keydown", { key: "k", ctrlKey: true }))).toBe(true);
  expect(isSearchShortcut(new KeyboardEvent("keydown", { key: "F", ctrlKey: true, shiftKey: true }))).toBe(true);
  expect(isSearchShortcut(new KeyboardEvent("keydown", { key: "k" }))).toBe(false);
  expect(dayMs("")).toBe(0);
  expect(dayMs("2026-01-02", true) - dayMs("2026-01-02")).toBe(24 * 3600 * 1000 - 1);
});

const hit: SearchHit = {
  rowId: 7, taskId: "t1", taskName: "Fix login", taskPrompt: "p", taskSummary: "Fixed the login redirect.", projectId: "p1", projectName: "alpha",
  agent: "claude-code", messageId: "m3", messageIndex: 2, role: "assistant", createdAt: 1, snippet: "use \u0002loadSettings\u0003 here",
};

test("Ctrl+K opens the search; typing searches with the filters; a hit opens its task at the message", async () => {
  const calls: unknown[][] = [];
  const api: SearchApi = {
    search: async (...a) => {
      calls.push(a);
      return [hit];
    },
  };
  const store = createAppStore(fakeApi({ projects: [makeProject({ id: "p1", name: "alpha" })] }), memoryStorage());
  await act(() => store.getState().init());
  render(
    <StoreProvider store={store}>
      <SearchPalette api={api} />
    </StoreProvider>,
  );
  expect(screen.queryByRole("dialog")).toBeNull();
  fireEvent.keyDown(window, { key: "k", ctrlKey: true });
  const input = await screen.findByLabelText("Search");
  await userEvent.selectOptions(screen.getByLabelText("Role"), "assistant");
  await userEvent.type(input, "loadSettings");
  const option = await within(screen.getByRole("listbox", { name: "Results" })).findByRole("option");
  expect(option).toHaveTextContent("alpha / Fix login — Fixed the login redirect.");
  expect(option.querySelector("mark")?.textContent).toBe("loadSettings");
  expect(calls.at(-1)?.[0]).toBe("loadSettings");
  expect((calls.at(-1)?.[1] as { role: string }).role).toBe("assistant");
  await userEvent.click(option);
  const s = store.getState().screen;
  expect(s.kind === "task" && s.taskId === "t1" && s.focusMessageId === "m3").toBe(true);
  expect(screen.queryByRole("dialog")).toBeNull();
});

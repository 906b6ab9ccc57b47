import { describe, expect, it } from "vitest";
import { createAppStore } from "../state/store";
import { fakeApi, memoryStorage } from "../test/fakeApi";
import { applyNavigate } from "./navigate";

describe("applyNavigate", () => {
  it("opens a screen, selects a project, sets the theme and the add-project dialog", () => {
    const store = createAppStore(fakeApi({}), memoryStorage());
    applyNavigate({ projectId: "p1", screen: { kind: "settings" }, theme: "dark", addProject: true }, store);
    const s = store.getState();
    expect(s.selectedProjectId).toBe("p1");
    expect(s.screen).toEqual({ kind: "settings" });
    expect(s.theme).toBe("dark");
    expect(s.addProjectOpen).toBe(true);
    applyNavigate({ escape: true }, store);
    expect(store.getState().addProjectOpen).toBe(false);
  });

  it("ignores what it does not know", () => {
    const store = createAppStore(fakeApi({}), memoryStorage());
    applyNavigate(null, store);
    applyNavigate({ theme: "pink" as never, screen: {} as never }, store);
    expect(store.getState().theme).toBe("system");
    expect(store.getState().screen).toEqual({ kind: "empty" });
  });

  it("presses the named button", () => {
    const store = createAppStore(fakeApi({}), memoryStorage());
    let pressed = 0;
    const b = document.createElement("button");
    b.textContent = "Diff";
    b.onclick = () => pressed++;
    document.body.append(b);
    applyNavigate({ press: "Diff" }, store);
    b.remove();
    expect(pressed).toBe(1);
  });
});

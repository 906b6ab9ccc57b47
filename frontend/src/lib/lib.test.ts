import { createElement } from "react";
import { render as renderUI, screen as ui } from "@testing-library/react";
import { Button } from "./ui";
import { errorMessage } from "./errors";
import { fieldForError } from "./fieldError";
import { relativeTime } from "./time";
import { toProject, toTask } from "../bridge/api";

test("errorMessage reads Wails string rejections and Errors", () => {
  expect(errorMessage("task prompt is empty")).toBe("task prompt is empty");
  expect(errorMessage(new Error("boom"))).toBe("boom");
  expect(errorMessage({ message: "obj" })).toBe("obj");
  expect(errorMessage(undefined)).toBe("Unknown error");
});

test("fieldForError routes by keyword, in order, with a fallback", () => {
  const fields: [string, RegExp][] = [
    ["prompt", /prompt/i],
    ["backend", /backend/i],
  ];
  expect(fieldForError("task prompt is empty", fields, "form")).toBe("prompt");
  expect(fieldForError('unknown backend "x"', fields, "form")).toBe("backend");
  expect(fieldForError("database is locked", fields, "form")).toBe("form");
});

test("relativeTime", () => {
  const now = 10_000_000_000;
  expect(relativeTime(now - 10_000, now)).toBe("now");
  expect(relativeTime(now - 5 * 60_000, now)).toBe("5m");
  expect(relativeTime(now - 3 * 3_600_000, now)).toBe("3h");
  expect(relativeTime(now - 2 * 86_400_000, now)).toBe("2d");
  expect(relativeTime(0, now)).toBe("");
});

test("DTO mapping accepts column-style names", () => {
  expect(toProject({ id: "p", defaultAgentBackend: "opencode", isGitRepo: 1 }).defaultBackend).toBe("opencode");
  expect(toProject({ id: "p", defaultBackend: "codex" }).defaultBackend).toBe("codex");
  const t = toTask({ id: "t", agentBackend: "gemini", hasUnread: true, startedAt: null });
  expect(t.backend).toBe("gemini");
  expect(t.hasUnread).toBe(true);
  expect(t.status).toBe("created");
  expect(t.startedAt).toBeNull();
});

test("Button busyLabel: both labels laid out, only the current one named", () => {
  const { rerender } = renderUI(createElement(Button, { busy: false, busyLabel: "Starting…" }, "Check health"));
  const b = ui.getByRole("button", { name: "Check health" });
  expect(b.textContent).toBe("Check healthStarting…"); // the hidden one keeps its width
  rerender(createElement(Button, { busy: true, busyLabel: "Starting…" }, "Check health"));
  expect(ui.getByRole("button", { name: "Starting…" })).toBeDisabled();
  expect(ui.queryByRole("button", { name: "Check health" })).toBeNull();
});

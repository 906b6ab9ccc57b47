import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { installTooltips, SHOW_DELAY_MS, type TooltipController } from "./tooltip";
import { IconButton } from "./ui";

// A placement that fails never becomes an unhandled rejection (vitest fails
// the run on one: a cold clone's slow chunk import once finished after its
// test's page was torn down). It is reported while its tip still shows.

const fail = vi.hoisted(() => ({ reject: (_: unknown) => {} }));
vi.mock("@floating-ui/dom", () => ({
  computePosition: () =>
    new Promise((_, reject) => {
      fail.reject = reject;
    }),
  flip: () => ({}),
  offset: () => ({}),
  shift: () => ({}),
}));

let tips: TooltipController;
beforeEach(() => {
  vi.useFakeTimers();
  tips = installTooltips(document);
});
afterEach(() => {
  tips.dispose();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

async function showTip() {
  render(<IconButton label="Browse for a folder">…</IconButton>);
  fireEvent.pointerOver(screen.getByRole("button", { name: "Browse for a folder" }));
  act(() => vi.advanceTimersByTime(SHOW_DELAY_MS));
  await vi.waitFor(() => expect(tips.current()).not.toBeNull());
  await act(async () => {}); // the chunk's import
}

test("a placement that fails after its tip hid is dropped silently", async () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  await showTip();
  tips.hide();
  await act(async () => fail.reject(new TypeError("getComputedStyle is not a function")));
  expect(warn).not.toHaveBeenCalled();
});

test("a placement that fails while its tip shows is reported", async () => {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  await showTip();
  await act(async () => fail.reject(new Error("chunk failed")));
  expect(warn).toHaveBeenCalledWith("tooltip: cannot place the tip", expect.any(Error));
});

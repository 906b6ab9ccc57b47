import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { coveredByModal, installTooltips, SHOW_DELAY_MS, type TooltipController } from "./tooltip";

let tips: TooltipController;
beforeEach(() => {
  vi.useFakeTimers();
  document.body.innerHTML = `<button id="b" title="Stop the agent"><span id="inner">Stop</span></button><span id="plain">x</span>`;
  tips = installTooltips(document);
});
afterEach(() => {
  tips.dispose();
  vi.useRealTimers();
});

const bubble = () => document.getElementById("jc-tooltip")!;
const over = (id: string, related?: string) =>
  document.getElementById(id)!.dispatchEvent(new MouseEvent("pointerover", { bubbles: true, relatedTarget: related ? document.getElementById(related) : null }));
const out = (id: string, to: string) =>
  document.getElementById(id)!.dispatchEvent(new MouseEvent("pointerout", { bubbles: true, relatedTarget: document.getElementById(to) }));

test("hovering shows the title in the app's bubble after a delay, and the native title is held back meanwhile", () => {
  over("inner");
  const b = document.getElementById("b")!;
  expect(b.hasAttribute("title")).toBe(false);
  expect(bubble().hidden).toBe(true);
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  expect(bubble().hidden).toBe(false);
  expect(bubble().textContent).toBe("Stop the agent");
  expect(b.getAttribute("aria-describedby")).toBe("jc-tooltip");
  out("b", "plain");
  expect(bubble().hidden).toBe(true);
  expect(b.getAttribute("title")).toBe("Stop the agent");
  expect(b.hasAttribute("aria-describedby")).toBe(false);
});

test("moving inside the element keeps it; leaving before the delay shows nothing and restores the title", () => {
  over("b");
  out("b", "inner");
  over("inner");
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  expect(tips.current()?.id).toBe("b");
  tips.hide();
  over("b");
  out("b", "plain");
  vi.advanceTimersByTime(SHOW_DELAY_MS * 2);
  expect(bubble().hidden).toBe(true);
  expect(document.getElementById("b")!.getAttribute("title")).toBe("Stop the agent");
});

test("a press or key hides it at once", () => {
  over("b");
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
  expect(bubble().hidden).toBe(true);
  over("inner", "plain");
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  document.getElementById("b")!.dispatchEvent(new MouseEvent("pointerdown", { bubbles: true }));
  expect(bubble().hidden).toBe(true);
});

test("nothing shows for an element under an open modal; inside the modal it does", () => {
  document.body.insertAdjacentHTML("beforeend", `<div role="dialog" aria-modal="true"><i id="m" title="In the modal">m</i></div>`);
  expect(coveredByModal(document.getElementById("b")!)).toBe(true);
  expect(coveredByModal(document.getElementById("m")!)).toBe(false);
  over("b");
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  expect(bubble().hidden).toBe(true);
  over("m");
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  expect(bubble().textContent).toBe("In the modal");
});

test("an element without a title hides a showing tip", () => {
  over("b");
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  over("plain");
  expect(bubble().hidden).toBe(true);
});

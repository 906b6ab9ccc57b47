import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { coveredByModal, installTooltips, placeTip, SHOW_DELAY_MS, TIP_GAP, TIP_PAD, type TooltipController } from "./tooltip";

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

test("a modal that opens while a tip shows hides it; so does its element leaving the page", async () => {
  over("b");
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  expect(bubble().hidden).toBe(false);
  expect(bubble().classList.contains("jc-tooltip--modal")).toBe(false);
  document.body.insertAdjacentHTML("beforeend", `<div role="dialog" aria-modal="true"><i id="m" title="In the modal">m</i></div>`);
  await Promise.resolve(); // MutationObserver callbacks run as a microtask
  expect(bubble().hidden).toBe(true);
  expect(document.getElementById("b")!.getAttribute("title")).toBe("Stop the agent");
  over("m");
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  expect(bubble().hidden).toBe(false);
  expect(bubble().classList.contains("jc-tooltip--modal")).toBe(true); // over the backdrop
  document.getElementById("m")!.remove();
  await Promise.resolve();
  expect(bubble().hidden).toBe(true);
});

// placeTip with rectangles instead of the DOM: a 1000×700 window, a 120×24 bubble.
const VIEW = { width: 1000, height: 700 };
const TIP = { width: 120, height: 24 };
const rectsPlatform = (anchor: { x: number; y: number; width: number; height: number }) =>
  ({
    getElementRects: async () => ({ reference: anchor, floating: { x: 0, y: 0, ...TIP } }),
    getClippingRect: async () => ({ x: 0, y: 0, ...VIEW }),
    getDimensions: async () => TIP,
    // The rest of the DOM platform, answered for plain rectangles.
    isElement: async () => false,
    isRTL: async () => false,
    getDocumentElement: async () => ({}),
    getOffsetParent: async () => ({}),
    getScale: async () => ({ x: 1, y: 1 }),
    convertOffsetParentRelativeRectToViewportRelativeRect: async ({ rect }: { rect: object }) => rect,
    getClientRects: async () => [],
  }) as unknown as Parameters<typeof placeTip>[2];
const place = (x: number, y: number, width = 28, height = 28) => placeTip({}, {}, rectsPlatform({ x, y, width, height }));
const inside = (p: { x: number; y: number }) =>
  p.x >= TIP_PAD && p.y >= TIP_PAD && p.x + TIP.width <= VIEW.width - TIP_PAD && p.y + TIP.height <= VIEW.height - TIP_PAD;

test("placeTip: above and centred when there is room", async () => {
  const p = await place(486, 300);
  expect(p).toEqual({ x: 486 + 14 - 60, y: 300 - TIP_GAP - TIP.height, placement: "top" });
});

test("placeTip: at the top edge it flips below the element", async () => {
  const p = await place(486, 4);
  expect(p.placement).toBe("bottom");
  expect(p.y).toBe(4 + 28 + TIP_GAP);
  expect(inside(p)).toBe(true);
});

test("placeTip: at the bottom edge it stays above, inside the window", async () => {
  const p = await place(486, VIEW.height - 30);
  expect(p.placement).toBe("top");
  expect(p.y).toBe(VIEW.height - 30 - TIP_GAP - TIP.height);
  expect(inside(p)).toBe(true);
});

test("placeTip: at the left and right edges it slides inside the window", async () => {
  const left = await place(0, 300);
  expect(left.x).toBe(TIP_PAD);
  const right = await place(VIEW.width - 28, 300);
  expect(right.x).toBe(VIEW.width - TIP_PAD - TIP.width);
  expect(inside(left) && inside(right)).toBe(true);
});

test("placeTip: the theme button in the bottom-left corner gets a tip above it, inside the window", async () => {
  const p = await place(4, VIEW.height - 34, 110, 28);
  expect(p.placement).toBe("top");
  expect(p.x).toBe(TIP_PAD);
  expect(inside(p)).toBe(true);
});

test("text cut with an ellipsis shows in full without a title; text that fits does not", () => {
  document.body.insertAdjacentHTML(
    "beforeend",
    `<div title="Tue, Nov 24, 2026, 04:40:26"><span id="cut" style="text-overflow: ellipsis; overflow: hidden"><code id="cmd">npm test -- --run src/very/long/path</code></span></div>`,
  );
  const cut = document.getElementById("cut")!;
  Object.defineProperty(cut, "clientWidth", { value: 100, configurable: true });
  Object.defineProperty(cut, "scrollWidth", { value: 100, configurable: true });
  over("cmd");
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  expect(bubble().textContent).toBe("Tue, Nov 24, 2026, 04:40:26"); // fits: the enclosing title
  tips.hide();
  Object.defineProperty(cut, "scrollWidth", { value: 240, configurable: true });
  over("cmd");
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  expect(bubble().textContent).toBe("npm test -- --run src/very/long/path");
  expect(cut.getAttribute("aria-describedby")).toBe("jc-tooltip");
  tips.hide();
  expect(cut.hasAttribute("title")).toBe(false); // nothing left behind
  expect(cut.hasAttribute("data-jc-tip")).toBe(false);
});

test("while a tip is armed or shown its ancestors' titles are held back too (the toolkit would show the nearest one), then put back", () => {
  document.body.insertAdjacentHTML("beforeend", `<div id="msg" title="Sun, Nov 22, 2026, 02:49:22"><p><span id="chip" title="always allowed by you: Write(/w/a.go)">always…</span></p></div>`);
  const msg = document.getElementById("msg")!;
  over("chip");
  expect(msg.hasAttribute("title")).toBe(false);
  vi.advanceTimersByTime(SHOW_DELAY_MS);
  expect(bubble().textContent).toBe("always allowed by you: Write(/w/a.go)");
  expect(msg.hasAttribute("title")).toBe(false);
  msg.setAttribute("title", "a newer time"); // a render meanwhile
  out("chip", "plain");
  expect(msg.getAttribute("title")).toBe("a newer time");
  expect(msg.hasAttribute("data-jc-title-held")).toBe(false);
  expect(document.getElementById("chip")!.getAttribute("title")).toBe("always allowed by you: Write(/w/a.go)");
  over("chip");
  tips.hide();
  expect(msg.getAttribute("title")).toBe("a newer time");
});

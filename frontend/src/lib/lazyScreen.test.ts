import { preloadWhenIdle } from "./lazyScreen";

const screenStub = () => ({ preload: vi.fn(async () => {}) });

test("preloadWhenIdle fetches the screens' chunks when the page is idle, not before", () => {
  let idle: (() => void) | undefined;
  const win = { requestIdleCallback: vi.fn((cb: () => void) => ((idle = cb), 1)), setTimeout: vi.fn() };
  const a = screenStub();
  preloadWhenIdle([a], win);
  expect(a.preload).not.toHaveBeenCalled();
  expect(win.setTimeout).not.toHaveBeenCalled();
  idle!();
  expect(a.preload).toHaveBeenCalledTimes(1);
});

test("without requestIdleCallback (older WebKit) a short timeout preloads; a failed fetch is not an error", async () => {
  let later: (() => void) | undefined;
  const win = { setTimeout: vi.fn((cb: () => void) => (later = cb)) };
  const a = { preload: vi.fn(() => Promise.reject(new Error("offline"))) };
  preloadWhenIdle([a], win);
  expect(a.preload).not.toHaveBeenCalled();
  later!();
  expect(a.preload).toHaveBeenCalledTimes(1);
  await Promise.resolve(); // the rejection is handled (vitest fails on an unhandled one)
});

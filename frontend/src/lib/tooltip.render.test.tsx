import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { installTooltips, SHOW_DELAY_MS, type TooltipController } from "./tooltip";
import { IconButton } from "./ui";

// The tooltip layer with React components: an icon button's label shows in
// the bubble on keyboard focus and on hover, is its accessible description
// while it shows, and a modal the app opens over it hides it.

function Screen({ modal }: { modal: boolean }) {
  return (
    <>
      <IconButton label="Theme: dark (click for system)">◐</IconButton>
      <span className="jc-badge" title="always allowed by you: Write(/home/me/projects/web-app/src/components/checkout/Form.tsx)">
        always allowed by you: Write(/home/me/…)
      </span>
      {modal ? (
        <div role="dialog" aria-modal="true" aria-label="Add project">
          <IconButton label="Browse for a folder">…</IconButton>
        </div>
      ) : null}
    </>
  );
}

let tips: TooltipController;
beforeEach(() => {
  vi.useFakeTimers();
  tips = installTooltips(document);
});
afterEach(() => {
  tips.dispose();
  vi.useRealTimers();
});

const bubble = () => screen.getByRole("tooltip", { hidden: true });
const wait = () => act(() => vi.advanceTimersByTime(SHOW_DELAY_MS));

test("keyboard focus shows an icon button's label after the delay, as its description", () => {
  render(<Screen modal={false} />);
  const theme = screen.getByRole("button", { name: "Theme: dark (click for system)" });
  fireEvent.keyDown(document.body, { key: "Tab" });
  act(() => theme.focus());
  expect(bubble()).not.toBeVisible();
  wait();
  expect(bubble()).toBeVisible();
  expect(bubble()).toHaveTextContent("Theme: dark (click for system)");
  expect(theme).toHaveAccessibleDescription("Theme: dark (click for system)");
  act(() => theme.blur());
  expect(bubble()).not.toBeVisible();
  expect(theme).toHaveAttribute("title", "Theme: dark (click for system)");
});

test("a click focuses its button without showing its tip", () => {
  render(<Screen modal={false} />);
  const theme = screen.getByRole("button", { name: "Theme: dark (click for system)" });
  fireEvent.pointerDown(theme);
  act(() => theme.focus());
  wait();
  expect(bubble()).not.toBeVisible();
  expect(theme).toHaveAttribute("title", "Theme: dark (click for system)");
});

test("a truncated badge shows its full text on hover; a modal opened over it hides the tip, one inside it shows", async () => {
  const { rerender } = render(<Screen modal={false} />);
  fireEvent.pointerOver(screen.getByText(/always allowed by you/));
  wait();
  expect(bubble()).toHaveTextContent("Write(/home/me/projects/web-app/src/components/checkout/Form.tsx)");
  rerender(<Screen modal={true} />);
  await act(async () => {}); // the layer's MutationObserver
  expect(bubble()).not.toBeVisible();
  fireEvent.pointerOver(screen.getByRole("button", { name: "Browse for a folder" }));
  wait();
  expect(bubble()).toBeVisible();
  expect(bubble()).toHaveClass("jc-tooltip--modal");
});

import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { ErrorBoundary } from "./ErrorBoundary";

let shouldThrow = true;
function Bomb() {
  if (shouldThrow) throw new Error("boom in render");
  return <div>recovered</div>;
}

test("a crashing child shows the error and can be retried", async () => {
  const spy = vi.spyOn(console, "error").mockImplementation(() => {});
  render(
    <div>
      <span>sibling</span>
      <ErrorBoundary what="this task">
        <Bomb />
      </ErrorBoundary>
    </div>,
  );
  expect(screen.getByRole("alert")).toHaveTextContent("Something went wrong showing this task.");
  expect(screen.getByText("boom in render")).toBeInTheDocument();
  expect(screen.getByText("sibling")).toBeInTheDocument();
  shouldThrow = false;
  await userEvent.setup().click(screen.getByRole("button", { name: "Try again" }));
  expect(screen.getByText("recovered")).toBeInTheDocument();
  spy.mockRestore();
});

test("without an error it renders its children", () => {
  function Ok() {
    const [n] = useState(1);
    return <div>ok {n}</div>;
  }
  render(
    <ErrorBoundary>
      <Ok />
    </ErrorBoundary>,
  );
  expect(screen.getByText("ok 1")).toBeInTheDocument();
});

import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test, vi } from "vitest";
import { ProblemCard } from "./ProblemCard";
import { taskStatus } from "../../lib/status";

describe("ProblemCard", () => {
  test("not installed: one message in user words; Install installs, then retries the prompt", async () => {
    const calls: string[] = [];
    const actions = {
      install: vi.fn(async (b: string) => void calls.push("install " + b)),
      retry: vi.fn(async () => void calls.push("retry")),
      openSettings: vi.fn(),
    };
    render(
      <ProblemCard
        backend="claude-code"
        problem={{ kind: "not-installed", message: "Claude Code is not installed.", action: "install", actionLabel: "Install Claude Code" }}
        actions={actions}
      />,
    );
    expect(screen.getAllByRole("alert")).toHaveLength(1);
    expect(screen.getByRole("alert").textContent).not.toMatch(/orchestrator|task [0-9a-f]{8}/);
    await userEvent.click(screen.getByRole("button", { name: "Install Claude Code" }));
    expect(calls).toEqual(["install claude-code", "retry"]);
  });

  test("a failed worktree setup offers Retry, not the agent's settings", async () => {
    const retry = vi.fn(async () => {});
    const openSettings = vi.fn();
    render(
      <ProblemCard
        backend="claude-code"
        problem={{ kind: "setup-failed", message: "Worktree setup failed (exit code 7)", action: "retry", actionLabel: "Retry" }}
        actions={{ retry, openSettings }}
      />,
    );
    expect(screen.queryByRole("button", { name: "Agent settings" })).toBeNull();
    expect(screen.getAllByRole("button")).toHaveLength(1);
    await userEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(retry).toHaveBeenCalledTimes(1);
  });

  test("a failed install shows npm's error and does not retry", async () => {
    const retry = vi.fn(async () => {});
    render(
      <ProblemCard
        backend="claude-code"
        problem={{ kind: "not-installed", message: "Claude Code is not installed.", action: "install", actionLabel: "Install Claude Code" }}
        actions={{ install: async () => Promise.reject(new Error("npm install failed")), retry }}
      />,
    );
    await userEvent.click(screen.getByRole("button", { name: "Install Claude Code" }));
    expect(await screen.findByText("npm install failed")).toBeTruthy();
    expect(retry).not.toHaveBeenCalled();
  });

  test("not signed in: Sign in, then retry; a cancelled sign-in does not retry", async () => {
    const retry = vi.fn(async () => {});
    let ok = false;
    render(
      <ProblemCard
        backend="claude-code"
        problem={{ kind: "not-signed-in", message: "Claude Code is not signed in.", action: "sign-in", actionLabel: "Sign in" }}
        actions={{ signIn: async () => ok, retry }}
      />,
    );
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(retry).not.toHaveBeenCalled();
    ok = true;
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(retry).toHaveBeenCalledTimes(1);
  });

  test("the header says what the list says for an ended task", () => {
    // Header and list both say a task's state through lib/status.
    expect(taskStatus("errored").label).toBe("Failed");
    expect(taskStatus("completed").label).toBe("Done");
    expect(taskStatus("running").label).toBe("Working");
  });
});

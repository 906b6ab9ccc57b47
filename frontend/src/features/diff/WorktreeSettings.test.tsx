import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { TaskWorktreeOptions, WorktreeSettings, settingsField } from "./WorktreeSettings";
import { createFakeGitProjectApi } from "./fake";
import type { TaskGitOptions } from "./types";

describe("WorktreeSettings", () => {
  test("loads, shows the default folder, saves, and puts errors next to their field", async () => {
    const api = createFakeGitProjectApi();
    const user = userEvent.setup();
    render(<WorktreeSettings projectId="p1" api={api} />);
    const folder = await screen.findByLabelText("Worktree folder");
    expect(folder).toHaveAttribute("placeholder", "/home/me/app.worktrees");
    expect(screen.getByLabelText(/own git worktree/)).toBeChecked();
    expect(screen.getByRole("option", { name: "Current branch (main)" })).toBeInTheDocument();

    await user.type(folder, "relative/dir");
    await user.click(screen.getByRole("button", { name: "Save worktree settings" }));
    expect(await screen.findByText("the worktree folder must be an absolute path")).toBeInTheDocument();
    expect(folder).toHaveAttribute("aria-invalid", "true");

    await user.clear(folder);
    await user.type(folder, "/srv/trees");
    await user.selectOptions(screen.getByLabelText("Tasks start from"), "dev");
    await user.click(screen.getByLabelText(/own git worktree/));
    await user.click(screen.getByRole("button", { name: "Save worktree settings" }));
    await screen.findByText("Saved");
    expect(api.settings).toMatchObject({ worktreesEnabled: false, worktreeRoot: "/srv/trees", defaultSourceBranch: "dev" });
  });

  test("a project that is not a git repository has no worktree settings", async () => {
    render(<WorktreeSettings projectId="p1" api={createFakeGitProjectApi(false)} />);
    expect(await screen.findByText(/not a git repository/)).toBeInTheDocument();
  });

  test("settingsField routes errors", () => {
    expect(settingsField("the worktree folder must be an absolute path")).toBe("root");
    expect(settingsField('branch "x": branch not found')).toBe("branch");
    expect(settingsField("database is locked")).toBe("form");
  });
});

describe("TaskWorktreeOptions", () => {
  function Harness({ onValue }: { onValue(v: TaskGitOptions): void }) {
    const [v, setV] = useState<TaskGitOptions>({ useWorktree: null, sourceBranch: "" });
    return (
      <TaskWorktreeOptions
        projectId="p1"
        api={createFakeGitProjectApi()}
        value={v}
        onChange={(n) => {
          setV(n);
          onValue(n);
        }}
      />
    );
  }

  test("follows the project default until changed, then overrides", async () => {
    const onValue = vi.fn();
    const user = userEvent.setup();
    render(<Harness onValue={onValue} />);
    const box = await screen.findByRole("checkbox", { name: /Own worktree \(project default\)/ });
    expect(box).toBeChecked();
    await user.selectOptions(screen.getByLabelText("Start from branch"), "dev");
    expect(onValue).toHaveBeenLastCalledWith({ useWorktree: null, sourceBranch: "dev" });
    await user.click(box);
    expect(onValue).toHaveBeenLastCalledWith({ useWorktree: false, sourceBranch: "dev" });
    expect(screen.queryByLabelText("Start from branch")).not.toBeInTheDocument();
    await user.click(screen.getByRole("checkbox", { name: "Own worktree" }));
    await waitFor(() => expect(onValue).toHaveBeenLastCalledWith({ useWorktree: null, sourceBranch: "dev" }));
  });
});

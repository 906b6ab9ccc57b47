import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { DiffView } from "./DiffView";
import { createFakeGitApi, demoFiles } from "./fake";

function setup(opts: { pollMs?: number } = {}) {
  localStorage.clear();
  const api = createFakeGitApi("t1");
  const onMerged = vi.fn();
  render(<DiffView taskId="t1" api={api} pollMs={opts.pollMs ?? 0} defaultCommitMessage="Fix login" onMerged={onMerged} />);
  return { api, onMerged, user: userEvent.setup() };
}

describe("DiffView", () => {
  test("shows the file tree with counts and markers, and selects the first file", async () => {
    setup();
    const tree = await screen.findByRole("tree", { name: "Changed files" });
    await within(tree).findByText("login.ts");
    expect(screen.getByTestId("diff-totals")).toHaveTextContent("+8 −4 in 6 files");
    // Folders first, compressed "src/auth".
    const items = within(tree).getAllByRole("treeitem").map((el) => el.textContent);
    expect(items).toEqual([
      "▸assets/",
      "Alogo.pngbin",
      "▸docs/+1−1",
      "Rauth guide.md+1−1",
      "▸legacy/−2",
      "Dold-auth.js−2",
      "▸scripts/",
      "Mrelease.sh",
      "▸src/auth/+7−1",
      "Mlogin.ts+3−1",
      "Asession.ts+4",
    ]);
    expect(within(tree).getByText("auth guide.md").closest("[role=treeitem]")).toHaveAttribute("title", "docs/auth guide.md — renamed from docs/login.md (85% similar)");
    // First file in display order is selected: the binary logo.
    expect(await screen.findByTestId("diff-file")).toHaveTextContent("Binary file changed");
  });

  test("unified and side-by-side modes, rename/mode/delete notes", async () => {
    const { user } = setup();
    await user.click(await screen.findByText("login.ts"));
    const unified = screen.getByTestId("diff-unified");
    expect(within(unified).getAllByRole("row")).toHaveLength(10); // 1 hunk header + 9 lines
    expect(unified).toHaveTextContent("credentials: \"include\",");

    await user.click(screen.getByRole("button", { name: "Side by side" }));
    const split = screen.getByTestId("diff-split");
    const rows = within(split).getAllByRole("row");
    // header, 2 context, 1 paired del/add, 2 unpaired adds, 3 context
    expect(rows).toHaveLength(9);
    const paired = rows[3].querySelectorAll("td");
    expect(paired[0]).toHaveTextContent("12");
    expect(paired[1]).toHaveClass("is-del");
    expect(paired[3]).toHaveClass("is-add");
    expect(localStorage.getItem("jc:diff-mode")).toBe("split");

    await user.click(screen.getByText("auth guide.md"));
    expect(screen.getByTestId("diff-file")).toHaveTextContent("Renamed from docs/login.md (85% similar)");
    await user.click(screen.getByText("release.sh"));
    expect(screen.getByTestId("diff-file")).toHaveTextContent("Mode 100644 → 100755");
    expect(screen.getByTestId("diff-file")).toHaveTextContent("No content changes");
    await user.click(screen.getByText("old-auth.js"));
    expect(screen.getByTestId("diff-file")).toHaveTextContent("Deleted file");

    // Collapsing a folder hides its files.
    await user.click(screen.getByText("legacy/"));
    expect(screen.queryByText("old-auth.js")).not.toBeInTheDocument();
  });

  test("commits with the edited message, then merges", async () => {
    const { api, user, onMerged } = setup();
    const merge = await screen.findByRole("button", { name: "Merge into main" });
    expect(merge).toBeDisabled();
    const msg = screen.getByLabelText("Commit message");
    expect(msg).toHaveValue("Fix login");
    await user.clear(msg);
    const commit = screen.getByRole("button", { name: "Commit all changes" });
    expect(commit).toBeDisabled();
    await user.type(msg, "Send JSON to the login API");
    await user.click(commit);
    await screen.findByText(/Committed cccccccc on jc\/fix-login/);
    expect(api.calls.find((c) => c.method === "commit")?.args).toEqual(["t1", "Send JSON to the login API"]);

    await waitFor(() => expect(screen.getByRole("button", { name: "Merge into main" })).toBeEnabled());
    await user.click(screen.getByRole("button", { name: "Merge into main" }));
    await screen.findByText(/Merged into main \(fast-forward\); worktree removed/);
    expect(api.calls.find((c) => c.method === "merge")?.args[1]).toEqual({ squash: false, noFastForward: false, message: "", removeWorktree: true });
    expect(onMerged).toHaveBeenCalledOnce();
  });

  test("a merge conflict is shown as the service's message", async () => {
    const { api, user } = setup();
    await user.click(await screen.findByRole("button", { name: "Commit all changes" }));
    await waitFor(() => expect(screen.getByRole("button", { name: "Merge into main" })).toBeEnabled());
    api.failNext("merge", "merge conflict: merging jc/x into main conflicts in src/auth/login.ts; nothing was changed");
    await user.click(screen.getByRole("button", { name: "Merge into main" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("conflicts in src/auth/login.ts; nothing was changed");
  });

  test("discard asks for confirmation", async () => {
    const { api, user } = setup();
    await user.click(await screen.findByRole("button", { name: "Discard…" }));
    const dialog = screen.getByRole("alertdialog");
    expect(dialog).toHaveTextContent("uncommitted changes will be lost");
    expect(api.calls.some((c) => c.method === "discard")).toBe(false);
    await user.click(within(dialog).getByRole("button", { name: "Discard" }));
    await screen.findByText(/Task work discarded/);
    expect(await screen.findByText("No changes yet")).toBeInTheDocument();
  });

  test("polls and follows the agent's writes", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const { api } = setup({ pollMs: 2000 });
      await screen.findByText("login.ts");
      api.setFiles([
        ...demoFiles(),
        { path: "src/auth/token.ts", status: "added", newMode: "100644", binary: false, added: 2, removed: 0, patch: "@@ -0,0 +1,2 @@\n+a\n+b\n" },
      ]);
      await act(async () => {
        await vi.advanceTimersByTimeAsync(2100);
      });
      expect(await screen.findByText("token.ts")).toBeInTheDocument();
      expect(screen.getByTestId("diff-totals")).toHaveTextContent("+10 −4 in 7 files");
      expect(api.calls.filter((c) => c.method === "diff").length).toBeGreaterThanOrEqual(2);
    } finally {
      vi.useRealTimers();
    }
  });

  test("loads an omitted patch with FileDiff", async () => {
    localStorage.clear();
    const big = { path: "big.txt", status: "added", newMode: "100644", binary: false, added: 2, removed: 0, patch: "", patchOmitted: true };
    const api = createFakeGitApi("t2", [big]);
    api.fileDiff = async () => ({ ...big, patchOmitted: false, patch: "@@ -0,0 +1,2 @@\n+x\n+y\n" });
    render(<DiffView taskId="t2" api={api} pollMs={0} />);
    expect(await screen.findByTestId("diff-unified")).toHaveTextContent("y");
  });
});

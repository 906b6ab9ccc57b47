package remote

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
)

// A project on the host: worktree create, diff, commit, merge and discard
// all run git on the host over the connection.
func TestRemoteWorktreeLifecycle(t *testing.T) {
	p, srv := newPool(t)
	c, _ := p.Client(sshdtest.Alias)
	ctx := context.Background()
	cfg := filepath.Join(srv.Home, "gitconfig")
	must(t, os.WriteFile(cfg, []byte("[init]\n\tdefaultBranch = main\n"), 0o644))
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + cfg,
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=t@example.com"}
	// The repository is created on "the remote" (its HOME) by the host's git.
	repo := filepath.Join(srv.Home, "src", "my repo $(x)")
	if _, err := c.Output(ctx, "mkdir", "-p", "--", repo); err != nil {
		t.Fatal(err)
	}
	g, err := NewGit(c, env)
	must(t, err)
	rg := GitRunner{C: c}
	runGit := func(dir string, args ...string) {
		t.Helper()
		var out strings.Builder
		if err := rg.Git(ctx, dir, args, env, nil, &out, &out); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out.String())
		}
	}
	runGit(repo, "init", "-q", "-b", "main")
	must(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte("hello\n"), 0o644))
	runGit(repo, "add", ".")
	runGit(repo, "commit", "-q", "-m", "init")

	wt, err := g.CreateWorktree(ctx, gitx.CreateOptions{Repo: repo, TaskName: "fix it", TaskID: "abcdef123456"})
	if err != nil {
		t.Fatalf("CreateWorktree: %v", err)
	}
	if wt.Branch != "jc/fix-it-abcdef12" || !strings.HasPrefix(wt.Path, repo+".worktrees/") {
		t.Fatalf("worktree = %+v", wt)
	}
	// The "agent" edits the worktree on the host.
	must(t, os.WriteFile(filepath.Join(wt.Path, "README.md"), []byte("hello\nworld\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(wt.Path, "new file.txt"), []byte("x\n"), 0o644))
	d, err := g.Diff(ctx, wt.Path, wt.Base, gitx.DiffOptions{})
	if err != nil || len(d.Files) != 2 || d.Added != 2 {
		t.Fatalf("Diff = %+v, %v", d, err)
	}
	if !strings.Contains(d.Files[0].Patch+d.Files[1].Patch, "+world") {
		t.Fatalf("patch lacks the change: %+v", d.Files)
	}
	if _, err := g.Commit(ctx, wt.Path, "task: world"); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	res, err := g.Merge(ctx, gitx.MergeOptions{Repo: repo, Branch: wt.Branch, Into: "main"})
	if err != nil || !res.FastForward {
		t.Fatalf("Merge = %+v, %v", res, err)
	}
	b, _ := os.ReadFile(filepath.Join(repo, "README.md"))
	if string(b) != "hello\nworld\n" {
		t.Fatalf("main worktree after merge: %q", b)
	}
	// Discard: remove the worktree and its (merged) branch.
	if err := g.RemoveWorktree(ctx, gitx.RemoveOptions{Repo: repo, Path: wt.Path}); err != nil {
		t.Fatalf("RemoveWorktree: %v", err)
	}
	if err := g.DeleteBranch(ctx, gitx.DeleteBranchOptions{Repo: repo, Branch: wt.Branch, Source: "main"}); err != nil {
		t.Fatalf("DeleteBranch: %v", err)
	}
	if _, err := os.Stat(wt.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("worktree folder still there: %v", err)
	}
	if out, _ := exec.Command("git", "-C", repo, "branch", "--list", "jc/*").Output(); len(out) != 0 {
		t.Fatalf("branch left: %s", out)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

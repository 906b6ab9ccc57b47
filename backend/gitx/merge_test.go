package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommit(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wt := f.create("commit", "1")
	if _, err := f.g.Commit(ctx, wt.Path, "nothing"); !errors.Is(err, ErrNothingToCommit) {
		t.Errorf("clean commit: err = %v, want ErrNothingToCommit", err)
	}
	f.write(wt.Path, "new.txt", "n\n")
	f.write(wt.Path, "README.md", "changed\n")
	if err := os.Remove(filepath.Join(wt.Path, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.g.Commit(ctx, wt.Path, "  \n "); !errors.Is(err, ErrEmptyMessage) {
		t.Errorf("blank message: err = %v, want ErrEmptyMessage", err)
	}
	// A message that looks like options is just text.
	msg := "--amend -m x\n\nbody line"
	head, err := f.g.Commit(ctx, wt.Path, msg)
	if err != nil {
		t.Fatal(err)
	}
	if head != f.rev(wt.Path, "HEAD") || head == wt.Base {
		t.Errorf("Commit returned %s, HEAD %s, base %s", head, f.rev(wt.Path, "HEAD"), wt.Base)
	}
	if got := f.git(wt.Path, "log", "-1", "--format=%B"); got != msg {
		t.Errorf("message = %q, want %q", got, msg)
	}
	if got := f.git(wt.Path, "rev-list", "--count", wt.Base+"..HEAD"); got != "1" {
		t.Errorf("commits since base = %s, want 1 (no amend)", got)
	}
	st, err := f.g.Status(ctx, wt.Path)
	if err != nil || !st.Clean() {
		t.Errorf("after commit: %+v, %v", st, err)
	}
	if got := f.git(wt.Path, "show", "--name-status", "--format=", "HEAD"); got != "M\tREADME.md\nD\tgone.txt\nA\tnew.txt" {
		t.Errorf("committed files:\n%s", got)
	}
	// Main branch did not move.
	if f.rev(f.repo, "main") != wt.Base {
		t.Error("commit in the task worktree moved main")
	}
}

func TestMergeFastForward(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wt := f.create("ff", "1")
	f.write(wt.Path, "feature.txt", "f\n")
	head, err := f.g.Commit(ctx, wt.Path, "feature")
	if err != nil {
		t.Fatal(err)
	}
	// Untracked files in the main worktree do not block (git refuses to
	// overwrite them itself).
	f.write(f.repo, "notes.txt", "mine\n")
	res, err := f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: wt.Branch, Into: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.FastForward || res.Commit != head || !samePath(res.Worktree, f.repo) {
		t.Errorf("Merge = %+v", res)
	}
	if f.rev(f.repo, "main") != head || f.read(f.repo, "feature.txt") != "f\n" {
		t.Error("main worktree not fast-forwarded")
	}
	if got := f.git(f.repo, "status", "--porcelain"); got != "?? notes.txt" {
		t.Errorf("main status = %q", got)
	}
	if _, err := f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: wt.Branch, Into: "main"}); !errors.Is(err, ErrNothingToMerge) {
		t.Errorf("second merge: err = %v, want ErrNothingToMerge", err)
	}
	// Merged branch can now be deleted without force.
	if err := f.g.RemoveWorktree(ctx, RemoveOptions{Repo: f.repo, Path: wt.Path}); err != nil {
		t.Fatal(err)
	}
	if err := f.g.DeleteBranch(ctx, DeleteBranchOptions{Repo: f.repo, Branch: wt.Branch, Source: "main"}); err != nil {
		t.Error(err)
	}
}

func TestMergeNonFastForwardAndSquash(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	a := f.create("merge", "1")
	b := f.create("squash", "2")
	f.write(a.Path, "a.txt", "a\n")
	aHead, err := f.g.Commit(ctx, a.Path, "task a")
	if err != nil {
		t.Fatal(err)
	}
	f.write(b.Path, "b.txt", "b\n")
	f.write(b.Path, "README.md", "hello\nfrom b\n")
	if _, err := f.g.Commit(ctx, b.Path, "task b 1"); err != nil {
		t.Fatal(err)
	}
	f.write(b.Path, "b2.txt", "b2\n")
	if _, err := f.g.Commit(ctx, b.Path, "task b 2"); err != nil {
		t.Fatal(err)
	}
	// main moves on (non-conflicting) after the tasks started.
	f.write(f.repo, "src/a.go", "package a\n\nfunc A() int {\n\treturn 42\n}\n")
	f.git(f.repo, "commit", "-q", "-am", "main moves")
	mainBefore := f.rev(f.repo, "main")

	res, err := f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: a.Branch, Into: "main", Message: "Merge task a"})
	if err != nil {
		t.Fatal(err)
	}
	if res.FastForward || res.Squashed {
		t.Errorf("Merge = %+v", res)
	}
	if got := f.git(f.repo, "log", "-1", "--format=%P%n%s", "main"); got != mainBefore+" "+aHead+"\nMerge task a" {
		t.Errorf("merge commit parents/subject = %q", got)
	}
	if f.read(f.repo, "a.txt") != "a\n" || !strings.Contains(f.read(f.repo, "src/a.go"), "42") {
		t.Error("main worktree misses merged content")
	}

	mainBefore = f.rev(f.repo, "main")
	res, err = f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: b.Branch, Into: "main", Squash: true, Message: "Task b, squashed"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Squashed || res.FastForward {
		t.Errorf("squash = %+v", res)
	}
	if got := f.git(f.repo, "log", "-1", "--format=%P%n%s", "main"); got != mainBefore+"\nTask b, squashed" {
		t.Errorf("squash commit parents/subject = %q", got)
	}
	if f.read(f.repo, "b2.txt") != "b2\n" || f.read(f.repo, "README.md") != "hello\nfrom b\n" {
		t.Error("main worktree misses squashed content")
	}
	if got := f.git(f.repo, "status", "--porcelain"); got != "" {
		t.Errorf("main status = %q", got)
	}

	// --no-ff even when a fast-forward is possible.
	c := f.create("noff", "3")
	f.write(c.Path, "c.txt", "c\n")
	cHead, err := f.g.Commit(ctx, c.Path, "task c")
	if err != nil {
		t.Fatal(err)
	}
	mainBefore = f.rev(f.repo, "main")
	res, err = f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: c.Branch, Into: "main", NoFastForward: true})
	if err != nil || res.FastForward {
		t.Fatalf("no-ff merge = %+v, %v", res, err)
	}
	if got := f.git(f.repo, "log", "-1", "--format=%P%n%s", "main"); got != mainBefore+" "+cHead+"\nMerge branch '"+c.Branch+"' into main" {
		t.Errorf("no-ff commit = %q", got)
	}
}

func TestMergeConflictChangesNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wt := f.create("conflict", "1")
	f.write(wt.Path, "README.md", "task version\n")
	taskHead, err := f.g.Commit(ctx, wt.Path, "task")
	if err != nil {
		t.Fatal(err)
	}
	f.write(f.repo, "README.md", "main version\n")
	f.git(f.repo, "commit", "-q", "-am", "main")
	mainBefore := f.rev(f.repo, "main")

	for _, opt := range []MergeOptions{
		{Repo: f.repo, Branch: wt.Branch, Into: "main"},
		{Repo: f.repo, Branch: wt.Branch, Into: "main", Squash: true},
	} {
		_, err = f.g.Merge(ctx, opt)
		var ce *ConflictError
		if !errors.Is(err, ErrMergeConflict) || !errors.As(err, &ce) {
			t.Fatalf("err = %v, want ErrMergeConflict", err)
		}
		if len(ce.Files) != 1 || ce.Files[0] != "README.md" || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("conflict = %+v / %v", ce.Files, err)
		}
	}
	if f.rev(f.repo, "main") != mainBefore || f.rev(wt.Path, "HEAD") != taskHead {
		t.Error("a conflicting merge moved a branch")
	}
	if got := f.git(f.repo, "status", "--porcelain"); got != "" {
		t.Errorf("main worktree not clean: %q", got)
	}
	if exists(filepath.Join(f.repo, ".git", "MERGE_HEAD")) {
		t.Error("merge left MERGE_HEAD")
	}
	if f.read(f.repo, "README.md") != "main version\n" {
		t.Error("main worktree content changed")
	}
}

func TestMergeRefusals(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wt := f.create("refuse", "1")
	f.write(wt.Path, "x.txt", "x\n")
	if _, err := f.g.Commit(ctx, wt.Path, "x"); err != nil {
		t.Fatal(err)
	}

	// Main worktree on main with a modified tracked file: refused, kept.
	f.write(f.repo, "README.md", "local edit\n")
	mainBefore := f.rev(f.repo, "main")
	if _, err := f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: wt.Branch, Into: "main"}); !errors.Is(err, ErrTargetDirty) {
		t.Errorf("dirty target: err = %v, want ErrTargetDirty", err)
	}
	if f.rev(f.repo, "main") != mainBefore || f.read(f.repo, "README.md") != "local edit\n" || exists(filepath.Join(f.repo, "x.txt")) {
		t.Error("refused merge changed the main worktree")
	}
	f.git(f.repo, "checkout", "-q", "--", "README.md")

	// Target checked out in another task's worktree: refused.
	other := f.create("other", "2")
	if _, err := f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: wt.Branch, Into: other.Branch}); !errors.Is(err, ErrTargetCheckedOut) {
		t.Errorf("target in linked worktree: err = %v, want ErrTargetCheckedOut", err)
	}

	// Hostile names.
	for _, pair := range [][2]string{{"--foo", "main"}, {wt.Branch, "-b"}, {"a b", "main"}, {wt.Branch, "../x"}, {wt.Branch, wt.Branch}} {
		if _, err := f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: pair[0], Into: pair[1]}); !errors.Is(err, ErrInvalidBranch) {
			t.Errorf("Merge(%q into %q) = %v, want ErrInvalidBranch", pair[0], pair[1], err)
		}
	}
	if _, err := f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: wt.Branch, Into: "nope"}); !errors.Is(err, ErrBranchNotFound) {
		t.Errorf("missing target: %v", err)
	}
}

func TestMergeIntoBranchNotCheckedOut(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.git(f.repo, "branch", "release")
	wt, err := f.g.CreateWorktree(ctx, CreateOptions{Repo: f.repo, TaskName: "rel", TaskID: "1", Source: "release"})
	if err != nil {
		t.Fatal(err)
	}
	f.write(wt.Path, "r.txt", "r\n")
	head, err := f.g.Commit(ctx, wt.Path, "r")
	if err != nil {
		t.Fatal(err)
	}
	// Main worktree is on main and dirty: irrelevant for release.
	f.write(f.repo, "README.md", "local\n")
	res, err := f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: wt.Branch, Into: "release"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Worktree != "" || !res.FastForward || f.rev(f.repo, "release") != head {
		t.Errorf("Merge = %+v, release at %s", res, f.rev(f.repo, "release"))
	}
	if f.read(f.repo, "README.md") != "local\n" || exists(filepath.Join(f.repo, "r.txt")) {
		t.Error("main worktree touched")
	}
	if got := f.git(f.repo, "reflog", "-1", "--format=%gs", "release"); got != "jean-claude: merge "+wt.Branch {
		t.Errorf("reflog = %q", got)
	}
}

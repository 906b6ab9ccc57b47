package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestValidateBranchNameHostile(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, name := range []string{
		"", "--foo", "-b", "-", "--end-of-options", "a b", "../x", "x;rm -rf /", "x;rm -rf",
		"HEAD", "@{-1}", "main@{1}", "a..b", "x.lock", "refs/heads/x", "a\nb", "a\tb",
		"/abs", "trailing/", "a~1", "a^", "a:b", "a?b", "a*b", "a[b", `a\b`, ".hidden", "x/.y",
	} {
		if err := f.g.ValidateBranchName(ctx, name); !errors.Is(err, ErrInvalidBranch) {
			t.Errorf("ValidateBranchName(%q) = %v, want ErrInvalidBranch", name, err)
		}
	}
	for _, name := range []string{"main", "feature/x", "jc/fix-1", "x;rm", "ünïcode", "a-b_c.d"} {
		if err := f.g.ValidateBranchName(ctx, name); err != nil {
			t.Errorf("ValidateBranchName(%q) = %v, want nil", name, err)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Fix the Login bug!":         "fix-the-login-bug",
		"  --foo  ":                  "foo",
		"../x":                       "x",
		"x;rm -rf /":                 "x-rm-rf",
		"":                           "task",
		"¡¡¡":                        "task",
		"a very long name that goes": "a-very-long-name-tha",
	} {
		if got := Slug(in, 20); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCreateWorktree(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	mainTip := f.rev(f.repo, "main")

	wt := f.create("Fix the login bug", "0123456789abcdef")
	if wt.Branch != "jc/fix-the-login-bug-01234567" {
		t.Errorf("branch = %q", wt.Branch)
	}
	wantRoot := filepath.Join(filepath.Dir(f.repo), "my repo.worktrees")
	if filepath.Dir(wt.Path) != wantRoot {
		t.Errorf("path = %q, want under %q (outside the repository)", wt.Path, wantRoot)
	}
	if wt.Source != "main" || wt.Base != mainTip {
		t.Errorf("source/base = %q/%q, want main/%s", wt.Source, wt.Base, mainTip)
	}
	if got := f.git(wt.Path, "branch", "--show-current"); got != wt.Branch {
		t.Errorf("worktree on %q, want %q", got, wt.Branch)
	}
	if got := f.read(wt.Path, "README.md"); got != "hello\n" {
		t.Errorf("README = %q", got)
	}
	st, err := f.g.Status(ctx, wt.Path)
	if err != nil || !st.Clean() || st.Branch != wt.Branch || st.Head != mainTip {
		t.Errorf("Status = %+v, %v", st, err)
	}
	// The main worktree does not see it as untracked files.
	if got := f.git(f.repo, "status", "--porcelain"); got != "" {
		t.Errorf("main worktree status = %q, want clean", got)
	}

	// Same task name and id again: a unique suffix.
	wt2 := f.create("Fix the login bug", "0123456789abcdef")
	if wt2.Branch != wt.Branch+"-2" || wt2.Path != wt.Path+"-2" {
		t.Errorf("second worktree = %+v", wt2)
	}

	// A custom root and a source branch with a shell-looking (but valid) name.
	f.git(f.repo, "branch", "x;rm")
	root := filepath.Join(t.TempDir(), "trees with space")
	wt3, err := f.g.CreateWorktree(ctx, CreateOptions{Repo: f.repo, Root: root, TaskName: "--foo -b", TaskID: "id", Source: "x;rm"})
	if err != nil {
		t.Fatal(err)
	}
	if wt3.Branch != "jc/foo-b-id" || wt3.Source != "x;rm" || filepath.Dir(wt3.Path) != root {
		t.Errorf("third worktree = %+v", wt3)
	}

	// Opening from inside a linked worktree finds the same repository.
	r, err := f.g.OpenRepo(ctx, wt.Path)
	if err != nil || !samePath(r.Root, f.repo) {
		t.Errorf("OpenRepo(worktree) = %+v, %v", r, err)
	}
}

func TestCreateWorktreeRefusesBadInput(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, src := range []string{"--foo", "-b", "a b", "../x", "x;rm -rf", "@{-1}"} {
		_, err := f.g.CreateWorktree(ctx, CreateOptions{Repo: f.repo, TaskName: "t", Source: src})
		if !errors.Is(err, ErrInvalidBranch) {
			t.Errorf("source %q: err = %v, want ErrInvalidBranch", src, err)
		}
	}
	if _, err := f.g.CreateWorktree(ctx, CreateOptions{Repo: f.repo, TaskName: "t", Source: "nope"}); !errors.Is(err, ErrBranchNotFound) {
		t.Errorf("missing source: err = %v, want ErrBranchNotFound", err)
	}
	if _, err := f.g.CreateWorktree(ctx, CreateOptions{Repo: f.repo, TaskName: "t", BranchPrefix: "-x/"}); !errors.Is(err, ErrInvalidBranch) {
		t.Errorf("prefix '-x/': err = %v, want ErrInvalidBranch", err)
	}
	for _, root := range []string{"relative/dir", f.repo, filepath.Join(f.repo, ".git", "wt")} {
		if _, err := f.g.CreateWorktree(ctx, CreateOptions{Repo: f.repo, Root: root, TaskName: "t"}); !errors.Is(err, ErrInvalidPath) {
			t.Errorf("root %q: err = %v, want ErrInvalidPath", root, err)
		}
	}
	if _, err := f.g.CreateWorktree(ctx, CreateOptions{Repo: t.TempDir(), TaskName: "t"}); !errors.Is(err, ErrNotRepository) {
		t.Errorf("not a repo: err = %v, want ErrNotRepository", err)
	}
	// Nothing was created by any refused call.
	if got := f.git(f.repo, "branch", "--format=%(refname)"); got != "refs/heads/main" {
		t.Errorf("branches after refused calls = %q", got)
	}
}

func TestBranches(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.create("task", "1")
	f.git(f.repo, "branch", "dev")
	bs, err := f.g.Branches(ctx, f.repo)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range bs {
		got = append(got, fmt.Sprintf("%s current=%v wt=%v", b.Name, b.Current, b.Worktree != ""))
	}
	want := "dev current=false wt=false|jc/task-1 current=false wt=true|main current=true wt=true"
	if strings.Join(got, "|") != want {
		t.Errorf("Branches = %q, want %q", strings.Join(got, "|"), want)
	}
	if d, err := f.g.DefaultBranch(ctx, f.repo); err != nil || d != "main" {
		t.Errorf("DefaultBranch = %q, %v", d, err)
	}
}

func TestRemoveWorktreeSafety(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	a := f.create("task a", "aaaa")
	b := f.create("task b", "bbbb")

	// Dirty: an untracked file and a modification.
	f.write(a.Path, "new file.txt", "work in progress\n")
	f.write(a.Path, "README.md", "changed\n")
	err := f.g.RemoveWorktree(ctx, RemoveOptions{Repo: f.repo, Path: a.Path})
	if !errors.Is(err, ErrDirtyWorktree) {
		t.Fatalf("remove dirty: err = %v, want ErrDirtyWorktree", err)
	}
	if !strings.Contains(err.Error(), "1 untracked") || !strings.Contains(err.Error(), "1 unstaged") {
		t.Errorf("message does not say what is dirty: %v", err)
	}
	if f.read(a.Path, "new file.txt") != "work in progress\n" {
		t.Fatal("refused removal lost a file")
	}

	// Paths that are not linked worktrees of this repository.
	other := newFixture(t)
	ow := other.create("other", "1")
	for _, p := range []string{f.repo, t.TempDir(), ow.Path, filepath.Join(a.Path, "src"), "relative"} {
		if err := f.g.RemoveWorktree(ctx, RemoveOptions{Repo: f.repo, Path: p, Force: true}); err == nil {
			t.Errorf("RemoveWorktree(%q) succeeded", p)
		}
	}
	if !exists(filepath.Join(f.repo, "README.md")) || !exists(ow.Path) || !exists(filepath.Join(a.Path, "src")) {
		t.Fatal("a refused removal deleted something")
	}

	// Branch of a task with unmerged commits is kept unless forced.
	if _, err := f.g.Commit(ctx, a.Path, "wip"); err != nil {
		t.Fatal(err)
	}
	if err := f.g.RemoveWorktree(ctx, RemoveOptions{Repo: f.repo, Path: a.Path}); err != nil {
		t.Fatalf("remove clean worktree: %v", err)
	}
	if exists(a.Path) {
		t.Error("worktree folder still there")
	}
	err = f.g.DeleteBranch(ctx, DeleteBranchOptions{Repo: f.repo, Branch: a.Branch, Source: "main"})
	if !errors.Is(err, ErrUnmergedBranch) {
		t.Errorf("delete unmerged branch: err = %v, want ErrUnmergedBranch", err)
	}
	if err := f.g.DeleteBranch(ctx, DeleteBranchOptions{Repo: f.repo, Branch: a.Branch, Source: "main", Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.g.ResolveBranch(ctx, f.repo, a.Branch); !errors.Is(err, ErrBranchNotFound) {
		t.Errorf("branch still there: %v", err)
	}

	// Forced removal of a dirty worktree.
	f.write(b.Path, "scratch.txt", "x\n")
	if err := f.g.RemoveWorktree(ctx, RemoveOptions{Repo: f.repo, Path: b.Path, Force: true}); err != nil {
		t.Fatalf("forced remove: %v", err)
	}
	if exists(b.Path) {
		t.Error("forced remove left the folder")
	}
	// A branch without commits of its own is merged: deleted without force.
	if err := f.g.DeleteBranch(ctx, DeleteBranchOptions{Repo: f.repo, Branch: b.Branch, Source: "main"}); err != nil {
		t.Errorf("delete merged branch: %v", err)
	}

	// Main repository and the other repository untouched.
	if got := f.git(f.repo, "status", "--porcelain"); got != "" {
		t.Errorf("main worktree dirty after removals: %q", got)
	}
	if got := f.git(f.repo, "rev-parse", "main"); got != a.Base {
		t.Errorf("main moved: %s", got)
	}
	if !exists(ow.Path) {
		t.Error("other repository's worktree removed")
	}
	if got := f.git(f.repo, "worktree", "list", "--porcelain"); strings.Contains(got, "worktree "+a.Path) || strings.Contains(got, "worktree "+b.Path) {
		t.Errorf("worktrees still registered:\n%s", got)
	}
	// Deleting the checked-out main branch is refused by git.
	if err := f.g.DeleteBranch(ctx, DeleteBranchOptions{Repo: f.repo, Branch: "main", Force: true}); err == nil {
		t.Error("deleted the branch checked out in the main worktree")
	}
	for _, br := range []string{"--foo", "-D", "a b"} {
		if err := f.g.DeleteBranch(ctx, DeleteBranchOptions{Repo: f.repo, Branch: br, Force: true}); !errors.Is(err, ErrInvalidBranch) {
			t.Errorf("DeleteBranch(%q) = %v, want ErrInvalidBranch", br, err)
		}
	}
}

func TestRemoveWorktreeAlreadyGone(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wt := f.create("gone", "1")
	if err := os.RemoveAll(wt.Path); err != nil {
		t.Fatal(err)
	}
	if err := f.g.RemoveWorktree(ctx, RemoveOptions{Repo: f.repo, Path: wt.Path}); err != nil {
		t.Fatalf("remove missing worktree: %v", err)
	}
	if got := f.git(f.repo, "worktree", "list"); strings.Contains(got, wt.Path) {
		t.Errorf("still registered: %s", got)
	}
}

func TestParallelTasksAreIsolated(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const n = 4
	wts := make([]Worktree, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wts[i], errs[i] = f.g.CreateWorktree(ctx, CreateOptions{Repo: f.repo, TaskName: "same name", TaskID: "same"})
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("create %d: %v", i, errs[i])
		}
		if seen[wts[i].Branch] || seen[wts[i].Path] {
			t.Fatalf("duplicate branch or path: %+v", wts[i])
		}
		seen[wts[i].Branch], seen[wts[i].Path] = true, true
	}
	// Each task writes its own file concurrently; each diff sees only its own.
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("task%d.txt", i)
			if err := os.WriteFile(filepath.Join(wts[i].Path, name), []byte("from task\n"), 0o644); err != nil {
				errs[i] = err
				return
			}
			d, err := f.g.Diff(ctx, wts[i].Path, wts[i].Base, DiffOptions{})
			if err != nil {
				errs[i] = err
				return
			}
			if len(d.Files) != 1 || d.Files[0].Path != name || d.Files[0].Status != Added {
				errs[i] = fmt.Errorf("task %d diff = %+v", i, d.Files)
				return
			}
			if _, err := f.g.Commit(ctx, wts[i].Path, "task "+name); err != nil {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
	}
	// Merge all of them back, sequentially in any order but started in parallel.
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: wts[i].Branch, Into: "main"})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("merge %d: %v", i, err)
		}
	}
	for i := range n {
		if got := f.read(f.repo, fmt.Sprintf("task%d.txt", i)); got != "from task\n" {
			t.Errorf("main worktree misses task%d.txt: %q", i, got)
		}
	}
	if got := f.git(f.repo, "status", "--porcelain"); got != "" {
		t.Errorf("main worktree dirty: %q", got)
	}
}

func TestReopenWorktree(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wt := f.create("reopen me", "1")
	f.write(wt.Path, "w.txt", "work\n")
	head, err := f.g.Commit(ctx, wt.Path, "work")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.g.RemoveWorktree(ctx, RemoveOptions{Repo: f.repo, Path: wt.Path}); err != nil {
		t.Fatal(err)
	}
	path, err := f.g.ReopenWorktree(ctx, f.repo, "", wt.Branch)
	if err != nil {
		t.Fatal(err)
	}
	if path != wt.Path {
		t.Errorf("reopened at %s, want the same folder %s", path, wt.Path)
	}
	if got := f.git(path, "branch", "--show-current"); got != wt.Branch {
		t.Errorf("on %q, want %q (not detached)", got, wt.Branch)
	}
	if f.rev(path, "HEAD") != head || f.read(path, "w.txt") != "work\n" {
		t.Error("reopened worktree lost the work")
	}
	// Already checked out: git refuses; hostile and missing names refused.
	if _, err := f.g.ReopenWorktree(ctx, f.repo, "", wt.Branch); err == nil {
		t.Error("reopened a branch checked out elsewhere")
	}
	if _, err := f.g.ReopenWorktree(ctx, f.repo, "", "--foo"); !errors.Is(err, ErrInvalidBranch) {
		t.Errorf("hostile: %v", err)
	}
	if _, err := f.g.ReopenWorktree(ctx, f.repo, "", "nope"); !errors.Is(err, ErrBranchNotFound) {
		t.Errorf("missing: %v", err)
	}
}

package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileRefsInRepository: branches that git itself cannot create with
// `git branch` but that exist (made with update-ref, or by another tool)
// are listed, never used as options, and refused as sources or targets.
func TestHostileRefsInRepository(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	tip := f.rev(f.repo, "main")
	for _, name := range []string{"--foo", "-b", "--end-of-options"} {
		f.git(f.repo, "update-ref", "refs/heads/"+name, tip)
	}
	bs, err := f.g.Branches(ctx, f.repo)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bs {
		names = append(names, b.Name)
	}
	if got := strings.Join(names, " "); got != "--end-of-options --foo -b main" {
		t.Errorf("Branches = %q", got)
	}
	if d, err := f.g.DefaultBranch(ctx, f.repo); err != nil || d != "main" {
		t.Errorf("DefaultBranch = %q, %v", d, err)
	}
	wt := f.create("t", "1")
	f.write(wt.Path, "x.txt", "x\n")
	if _, err := f.g.Commit(ctx, wt.Path, "x"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"--foo", "-b", "--end-of-options"} {
		if _, err := f.g.CreateWorktree(ctx, CreateOptions{Repo: f.repo, TaskName: "h", Source: name}); !errors.Is(err, ErrInvalidBranch) {
			t.Errorf("CreateWorktree(source %q) = %v", name, err)
		}
		if _, err := f.g.Merge(ctx, MergeOptions{Repo: f.repo, Branch: wt.Branch, Into: name}); !errors.Is(err, ErrInvalidBranch) {
			t.Errorf("Merge(into %q) = %v", name, err)
		}
		if err := f.g.DeleteBranch(ctx, DeleteBranchOptions{Repo: f.repo, Branch: name, Force: true}); !errors.Is(err, ErrInvalidBranch) {
			t.Errorf("DeleteBranch(%q) = %v", name, err)
		}
		if got := f.rev(f.repo, "refs/heads/"+name); got != tip {
			t.Errorf("%s moved to %s", name, got)
		}
	}
}

// TestPathsWithSpacesAndDashes: repository, worktree folder and file names
// with spaces, leading dashes and shell characters.
func TestPathsWithSpacesAndDashes(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "-rf ; $(echo pwned)", "trees")
	wt, err := f.g.CreateWorktree(ctx, CreateOptions{Repo: f.repo, Root: root, TaskName: "$(touch pwned)", TaskID: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(wt.Path) != root || wt.Branch != "jc/touch-pwned-1" {
		t.Errorf("worktree = %+v", wt)
	}
	for _, name := range []string{"-n", "--all", "a b.txt", "$(x);y.txt", "*.go"} {
		f.write(wt.Path, name, name+"\n")
	}
	d, err := f.g.Diff(ctx, wt.Path, wt.Base, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range d.Files {
		got = append(got, fmt.Sprintf("%s:%s:+%d", c.Path, c.Status, c.Added))
	}
	want := "$(x);y.txt:added:+1|*.go:added:+1|--all:added:+1|-n:added:+1|a b.txt:added:+1"
	if strings.Join(got, "|") != want {
		t.Errorf("diff = %q, want %q", strings.Join(got, "|"), want)
	}
	for _, name := range []string{"-n", "--all", "*.go"} {
		fd, err := f.g.FileDiff(ctx, wt.Path, wt.Base, name, "")
		if err != nil || fd.Path != name || fd.Patch != "@@ -0,0 +1 @@\n+"+name+"\n" {
			t.Errorf("FileDiff(%q) = %+v, %v", name, fd, err)
		}
	}
	if _, err := f.g.Commit(ctx, wt.Path, "odd names"); err != nil {
		t.Fatal(err)
	}
	if got := f.git(wt.Path, "show", "--name-only", "--format=", "HEAD"); got != "$(x);y.txt\n*.go\n--all\n-n\na b.txt" {
		t.Errorf("committed = %q", got)
	}
	for _, p := range []string{"pwned", filepath.Join(wt.Path, "pwned")} {
		if exists(p) {
			t.Errorf("%s exists: something ran a shell", p)
		}
	}
	if err := f.g.RemoveWorktree(ctx, RemoveOptions{Repo: f.repo, Path: wt.Path}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(root)); err != nil {
		t.Errorf("the folder above the worktree root was removed: %v", err)
	}
}

func FuzzParseRawNumstat(f *testing.F) {
	f.Add([]byte(":100644 100644 a b M\x00x\x00" + "1\t2\tx\x00\x00diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n"))
	f.Add([]byte(":100644 100644 a b R90\x00o\x00n\x00" + "1\t1\t\x00o\x00n\x00"))
	f.Add([]byte(":000000 100644 a b A\x00bin\x00-\t-\tbin\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		files, patch, err := parseRawNumstat(b)
		if err != nil {
			return
		}
		attachPatches(files, patch, 1<<20, 1<<20)
		for _, fc := range files {
			if fc.Status == "" || fc.Added < 0 && !fc.Binary {
				t.Fatalf("bad file %+v", fc)
			}
		}
	})
}

func FuzzSlug(f *testing.F) {
	for _, s := range []string{"Fix the bug", "--foo", "../x", "", "ünï", "a..b", "x.lock"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Slug(s, 40)
		if len(out) == 0 || len(out) > 40 || strings.HasPrefix(out, "-") || strings.HasSuffix(out, "-") || strings.Contains(out, "--") {
			t.Fatalf("Slug(%q) = %q", s, out)
		}
		if err := checkBranchSyntax("jc/" + out + "-1"); err != nil {
			t.Fatalf("Slug(%q) = %q gives an invalid branch: %v", s, out, err)
		}
		for _, r := range out {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				t.Fatalf("Slug(%q) = %q", s, out)
			}
		}
	})
}

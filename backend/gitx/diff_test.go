package gitx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// summary keeps the fields a diff test checks.
type summary struct {
	Path, OldPath, Status string
	Similarity            int
	OldMode, NewMode      string
	Binary                bool
	Added, Removed        int
}

func summarize(d Diff) []summary {
	var out []summary
	for _, f := range d.Files {
		out = append(out, summary{f.Path, f.OldPath, f.Status, f.Similarity, f.OldMode, f.NewMode, f.Binary, f.Added, f.Removed})
	}
	return out
}

func byPath(d Diff, p string) FileChange {
	for _, f := range d.Files {
		if f.Path == p {
			return f
		}
	}
	return FileChange{}
}

func TestDiffEveryKindOfChange(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wt := f.create("diff", "1")

	// Committed on the task branch.
	f.write(wt.Path, "src/a.go", "package a\n\nfunc A() int {\n\treturn 2\n}\n")
	f.write(wt.Path, "committed new.txt", "c1\nc2\n")
	f.git(wt.Path, "add", ".")
	f.git(wt.Path, "commit", "-q", "-m", "task commit")
	// Staged.
	f.write(wt.Path, "staged.txt", "s\n")
	f.git(wt.Path, "add", "staged.txt")
	// Unstaged modification.
	f.write(wt.Path, "README.md", "hello\nworld\n")
	// Untracked, deleted (not staged), renamed with a plain mv plus an edit.
	f.write(wt.Path, "dir with space/untracked.txt", "u1\nu2\nu3\n")
	if err := os.Remove(filepath.Join(wt.Path, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(wt.Path, "old name.txt"), filepath.Join(wt.Path, "new name.txt")); err != nil {
		t.Fatal(err)
	}
	f.write(wt.Path, "new name.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n")
	// Binary, untracked.
	if err := os.WriteFile(filepath.Join(wt.Path, "logo.png"), []byte("\x89PNG\x00\x01\x02\x03"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Mode change only.
	if err := os.Chmod(filepath.Join(wt.Path, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Ignored files are not part of the diff.
	f.write(wt.Path, ".gitignore", "*.log\n")
	f.write(wt.Path, "debug.log", "noise\n")

	indexBefore := f.git(wt.Path, "ls-files", "--stage")
	statusBefore := f.git(wt.Path, "status", "--porcelain=v1", "--untracked-files=all")

	d, err := f.g.Diff(ctx, wt.Path, wt.Base, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{
		{Path: ".gitignore", Status: Added, NewMode: "100644", Added: 1},
		{Path: "README.md", Status: Modified, OldMode: "100644", NewMode: "100644", Added: 1},
		{Path: "committed new.txt", Status: Added, NewMode: "100644", Added: 2},
		{Path: "dir with space/untracked.txt", Status: Added, NewMode: "100644", Added: 3},
		{Path: "gone.txt", Status: Deleted, OldMode: "100644", Removed: 1},
		{Path: "logo.png", Status: Added, NewMode: "100644", Binary: true},
		{Path: "new name.txt", OldPath: "old name.txt", Status: Renamed, Similarity: 85, OldMode: "100644", NewMode: "100644", Added: 1, Removed: 1},
		{Path: "run.sh", Status: Modified, OldMode: "100644", NewMode: "100755"},
		{Path: "src/a.go", Status: Modified, OldMode: "100644", NewMode: "100644", Added: 1, Removed: 1},
		{Path: "staged.txt", Status: Added, NewMode: "100644", Added: 1},
	}
	sorted := cmpopts.SortSlices(func(a, b summary) bool { return a.Path < b.Path })
	if diff := cmp.Diff(want, summarize(d), sorted); diff != "" {
		t.Errorf("Diff files (-want +got):\n%s", diff)
	}
	if d.Added != 10 || d.Removed != 3 || d.Base != wt.Base || d.Head != f.rev(wt.Path, "HEAD") {
		t.Errorf("totals/base/head = +%d -%d %s %s", d.Added, d.Removed, d.Base, d.Head)
	}
	if !byPath(d, "run.sh").ModeChanged() || byPath(d, "README.md").ModeChanged() {
		t.Error("ModeChanged wrong")
	}

	// Patches: hunks only, per file.
	wantPatch := map[string]string{
		"README.md":                    "@@ -1 +1,2 @@\n hello\n+world\n",
		"src/a.go":                     "@@ -1,5 +1,5 @@\n package a\n \n func A() int {\n-\treturn 1\n+\treturn 2\n }\n",
		"dir with space/untracked.txt": "@@ -0,0 +1,3 @@\n+u1\n+u2\n+u3\n",
		"gone.txt":                     "@@ -1 +0,0 @@\n-bye\n",
		"new name.txt":                 "@@ -5,4 +5,4 @@ four\n five\n six\n seven\n-eight\n+EIGHT\n",
		"logo.png":                     "",
		"run.sh":                       "",
	}
	for p, w := range wantPatch {
		if got := byPath(d, p).Patch; got != w {
			t.Errorf("patch of %s:\n got %q\nwant %q", p, got, w)
		}
	}

	// The worktree's real index and status are untouched, and the
	// untracked file's content was not written as an object.
	if got := f.git(wt.Path, "ls-files", "--stage"); got != indexBefore {
		t.Errorf("index changed by Diff:\n%s\nwas\n%s", got, indexBefore)
	}
	if got := f.git(wt.Path, "status", "--porcelain=v1", "--untracked-files=all"); got != statusBefore {
		t.Errorf("status changed by Diff:\n%s\nwas\n%s", got, statusBefore)
	}
	blob := f.git(wt.Path, "hash-object", "--", "dir with space/untracked.txt")
	if out, code, _ := f.g.run(ctx, call{dir: wt.Path, args: []string{"cat-file", "-e", blob}, ok: []int{1, 128}}); code == 0 {
		t.Errorf("Diff wrote the untracked file's blob %s into the object store (%s)", blob, out)
	}

	// Status counts match.
	st, err := f.g.Status(ctx, wt.Path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Staged != 1 || st.Unstaged != 4 || st.Untracked != 4 || st.Clean() {
		t.Errorf("Status = %+v", st)
	}

	// FileDiff of a rename by its new path.
	fd, err := f.g.FileDiff(ctx, wt.Path, wt.Base, "new name.txt", "old name.txt")
	if err != nil {
		t.Fatal(err)
	}
	if fd.Status != Renamed || fd.Patch != wantPatch["new name.txt"] {
		t.Errorf("FileDiff = %+v", fd)
	}
	// Paths are literal, never globs or magic.
	fd, err = f.g.FileDiff(ctx, wt.Path, wt.Base, "dir with space/untracked.txt", "")
	if err != nil || fd.Added != 3 {
		t.Errorf("FileDiff(untracked) = %+v, %v", fd, err)
	}
	for _, p := range []string{"*.txt", ":(top)README.md", "--cached"} {
		if _, err := f.g.FileDiff(ctx, wt.Path, wt.Base, p, ""); err == nil {
			t.Errorf("FileDiff(%q) matched something", p)
		}
	}
	// Base must be a commit id.
	for _, b := range []string{"--cached", "HEAD~1", "main", ""} {
		if _, err := f.g.Diff(ctx, wt.Path, b, DiffOptions{}); err == nil {
			t.Errorf("Diff(base %q) accepted", b)
		}
	}
}

func TestDiffBudget(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wt := f.create("big", "1")
	var big strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	f.write(wt.Path, "big.txt", big.String())
	f.write(wt.Path, "small.txt", "s\n")
	d, err := f.g.Diff(ctx, wt.Path, wt.Base, DiffOptions{MaxFilePatch: 1000})
	if err != nil {
		t.Fatal(err)
	}
	b, s := byPath(d, "big.txt"), byPath(d, "small.txt")
	if !b.PatchOmitted || b.Patch != "" || b.Added != 2000 {
		t.Errorf("big = omitted %v, %d bytes, +%d", b.PatchOmitted, len(b.Patch), b.Added)
	}
	if s.PatchOmitted || s.Patch != "@@ -0,0 +1 @@\n+s\n" {
		t.Errorf("small = %+v", s)
	}
	full, err := f.g.FileDiff(ctx, wt.Path, wt.Base, "big.txt", "")
	if err != nil || full.PatchOmitted || strings.Count(full.Patch, "\n+line ") != 2000 {
		t.Errorf("FileDiff(big) omitted=%v err=%v", full.PatchOmitted, err)
	}
	nop, err := f.g.Diff(ctx, wt.Path, wt.Base, DiffOptions{NoPatch: true})
	if err != nil || len(nop.Files) != 2 || nop.Added != 2001 || byPath(nop, "small.txt").Patch != "" {
		t.Errorf("NoPatch diff = %+v, %v", nop, err)
	}
}

func TestDiffEmptyAndStatusParse(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wt := f.create("empty", "1")
	d, err := f.g.Diff(ctx, wt.Path, wt.Base, DiffOptions{})
	if err != nil || len(d.Files) != 0 || d.Added != 0 {
		t.Errorf("empty diff = %+v, %v", d, err)
	}
	st := parseStatus([]byte("# branch.oid (initial)\x00# branch.head (detached)\x00" +
		"1 M. N... 100644 100644 100644 a b x\x00" +
		"2 R. N... 100644 100644 100644 a b R100 new\x00old\x00" +
		"u UU N... 100644 100644 100644 100644 a b c conflict\x00? u\x00! ignored\x00"))
	if want := (Status{Staged: 2, Conflicted: 1, Untracked: 1}); st != want {
		t.Errorf("parseStatus = %+v, want %+v", st, want)
	}
	if _, err := f.g.Diff(ctx, t.TempDir(), wt.Base, DiffOptions{}); err == nil {
		t.Error("Diff outside a repository succeeded")
	}
}

func TestParseRawNumstatRejectsGarbage(t *testing.T) {
	for _, in := range []string{":100644 100644 a b\x00x\x00", ":100644 100644 a b R100\x00only-one", ":1 2 3 4 M"} {
		if _, _, err := parseRawNumstat([]byte(in)); err == nil {
			t.Errorf("parseRawNumstat(%q) accepted", in)
		}
	}
	if _, _, err := parseRawNumstat(nil); err != nil {
		t.Errorf("empty output: %v", err)
	}
}

// TestDiffWhileAgentWrites polls the diff while files appear and vanish.
func TestDiffWhileAgentWrites(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wt := f.create("busy", "1")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			time.Sleep(5 * time.Millisecond)
			p := filepath.Join(wt.Path, fmt.Sprintf("churn%d.txt", i%5))
			if i%2 == 0 {
				_ = os.WriteFile(p, []byte(strings.Repeat("x\n", i%7+1)), 0o644)
			} else {
				_ = os.Remove(p)
			}
		}
	}()
	for i := range 15 {
		if _, err := f.g.Diff(ctx, wt.Path, wt.Base, DiffOptions{}); err != nil {
			t.Errorf("poll %d: %v", i, err)
		}
	}
	close(stop)
	<-done
}

func TestDiffBetweenCommits(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	wt := f.create("commits", "1")
	f.write(wt.Path, "README.md", "hello\nagain\n")
	head, err := f.g.Commit(ctx, wt.Path, "c")
	if err != nil {
		t.Fatal(err)
	}
	f.write(wt.Path, "uncommitted.txt", "u\n")
	d, err := f.g.Diff(ctx, wt.Path, wt.Base, DiffOptions{To: head})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 1 || d.Files[0].Path != "README.md" || d.Head != head || d.Files[0].Patch != "@@ -1 +1,2 @@\n hello\n+again\n" {
		t.Errorf("commit diff = %+v", d)
	}
	// From the main repository too (shared objects), after the worktree is gone.
	if err := f.g.RemoveWorktree(ctx, RemoveOptions{Repo: f.repo, Path: wt.Path, Force: true}); err != nil {
		t.Fatal(err)
	}
	fd, err := f.g.FileDiffTo(ctx, f.repo, wt.Base, head, "README.md", "")
	if err != nil || fd.Added != 1 {
		t.Errorf("FileDiffTo = %+v, %v", fd, err)
	}
	if _, err := f.g.Diff(ctx, f.repo, wt.Base, DiffOptions{To: "HEAD"}); err == nil {
		t.Error("To must be a commit id")
	}
}

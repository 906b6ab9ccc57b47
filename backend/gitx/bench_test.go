package gitx

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkDiff measures one poll of a task's diff (Diff with patches and
// Status) on a repository of 2000 files with 20 modified, 5 untracked and
// 1 deleted; the diff view polls this every ~2 s.
func BenchmarkDiff(b *testing.B) {
	dir := b.TempDir()
	global := filepath.Join(dir, "gitconfig")
	if err := os.WriteFile(global, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + global,
		"GIT_AUTHOR_NAME=B", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=B", "GIT_COMMITTER_EMAIL=b@example.com"}
	g, err := New(Options{Env: env})
	if err != nil {
		b.Skip(err)
	}
	repo := filepath.Join(dir, "repo")
	run := func(d string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = d, append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		b.Fatal(err)
	}
	run(repo, "init", "-q", "-b", "main")
	body := strings.Repeat("some line of code\n", 200)
	for i := range 2000 {
		p := filepath.Join(repo, fmt.Sprintf("pkg%02d", i%40), fmt.Sprintf("file%04d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	run(repo, "add", ".")
	run(repo, "commit", "-q", "-m", "init")
	ctx := context.Background()
	wt, err := g.CreateWorktree(ctx, CreateOptions{Repo: repo, TaskName: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		p := filepath.Join(wt.Path, fmt.Sprintf("pkg%02d", i%40), fmt.Sprintf("file%04d.go", i))
		if err := os.WriteFile(p, []byte(body+"changed\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 5 {
		if err := os.WriteFile(filepath.Join(wt.Path, fmt.Sprintf("new%d.go", i)), []byte(strings.Repeat(fmt.Sprintf("new %d\n", i), 50)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(wt.Path, "pkg39", "file1999.go")); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		d, err := g.Diff(ctx, wt.Path, wt.Base, DiffOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(d.Files) != 26 {
			b.Fatalf("%d files", len(d.Files))
		}
		if _, err := g.Status(ctx, wt.Path); err != nil {
			b.Fatal(err)
		}
	}
}

package gitx

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testEnv isolates git from the machine's configuration and gives it an
// identity.
func testEnv(t *testing.T) []string {
	t.Helper()
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte("[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + global,
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
	}
}

type fixture struct {
	t    *testing.T
	g    *Git
	env  []string
	repo string
}

// newFixture makes a repository (in a folder whose name has a space) with
// one commit on main.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	env := testEnv(t)
	g, err := New(Options{Env: env})
	if err != nil {
		t.Skipf("git not available: %v", err)
	}
	repo := filepath.Join(t.TempDir(), "my repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, g: g, env: env, repo: repo}
	f.git(repo, "init", "-q", "-b", "main")
	f.write(repo, "README.md", "hello\n")
	f.write(repo, "src/a.go", "package a\n\nfunc A() int {\n\treturn 1\n}\n")
	f.write(repo, "old name.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n")
	f.write(repo, "gone.txt", "bye\n")
	f.write(repo, "run.sh", "#!/bin/sh\necho hi\n")
	f.git(repo, "add", ".")
	f.git(repo, "commit", "-q", "-m", "init")
	return f
}

// git runs a git command for the test's own setup and checks.
func (f *fixture) git(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), f.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

func (f *fixture) write(dir, name, content string) {
	f.t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(dir, name string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func (f *fixture) create(name, id string) Worktree {
	f.t.Helper()
	wt, err := f.g.CreateWorktree(context.Background(), CreateOptions{Repo: f.repo, TaskName: name, TaskID: id})
	if err != nil {
		f.t.Fatalf("CreateWorktree: %v", err)
	}
	return wt
}

func (f *fixture) rev(dir, rev string) string {
	f.t.Helper()
	return f.git(dir, "rev-parse", "--verify", "--end-of-options", rev)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

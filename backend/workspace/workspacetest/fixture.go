// Package workspacetest is the git fixture of the workspace and services
// tests: a database with one project over a fresh repository (one commit
// on main) and a git that reads no user or system configuration.
package workspacetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Fixture is a project over a git repository, in a temporary database.
type Fixture struct {
	T       *testing.T
	G       *gitx.Git
	Env     []string // what git runs with (no global or system config)
	Repo    string   // the project folder: a repository with one commit on main
	DB      *store.DB
	Project store.Project
}

// New returns the fixture; it skips the test when git is not installed.
func New(t *testing.T) *Fixture {
	t.Helper()
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + global,
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com"}
	g, err := gitx.New(gitx.Options{Env: env})
	if err != nil {
		t.Skipf("git: %v", err)
	}
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &Fixture{T: t, G: g, Env: env, Repo: filepath.Join(t.TempDir(), "the project"), DB: db}
	if err := os.Mkdir(f.Repo, 0o755); err != nil {
		t.Fatal(err)
	}
	f.Git(f.Repo, "init", "-q", "-b", "main")
	f.Write(f.Repo, "README.md", "hello\n")
	f.Git(f.Repo, "add", ".")
	f.Git(f.Repo, "commit", "-q", "-m", "init")
	f.Project, err = store.AddProject(t.Context(), db.W, store.NewProject{Name: "p", Path: f.Repo, IsGitRepo: true, DefaultAgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Git runs git in dir and returns its trimmed output; a failure fails the test.
func (f *Fixture) Git(dir string, args ...string) string {
	f.T.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), f.Env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.T.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes a file of dir.
func (f *Fixture) Write(dir, name, content string) {
	f.T.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		f.T.Fatal(err)
	}
}

// Task creates a task of the project and returns its id.
func (f *Fixture) Task(name string) string {
	f.T.Helper()
	tk, err := store.CreateTask(f.T.Context(), f.DB.W, store.NewTask{ProjectID: f.Project.ID, Name: name, Prompt: "p", AgentBackend: agent.BackendClaudeCode})
	if err != nil {
		f.T.Fatal(err)
	}
	return tk.ID
}

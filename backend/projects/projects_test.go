package projects_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/inputerr"
	"github.com/jean-claude/jean-claude/backend/projects"
	"github.com/jean-claude/jean-claude/backend/store"
)

type fixture struct {
	db  *store.DB
	reg *agent.Registry
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reg := agent.NewRegistry()
	reg.Register(agent.Unavailable{Desc: agent.Info{Name: agent.BackendClaudeCode}})
	return fixture{db: db, reg: reg}
}

func (f fixture) add(t *testing.T, path string) (store.Project, error) {
	t.Helper()
	return projects.Add(t.Context(), f.db, f.reg, path)
}

// pathErr reports whether err is an input error about the path.
func pathErr(err error) bool {
	var ie *inputerr.Error
	return errors.As(err, &ie) && ie.Field == "path"
}

func TestAddChecksTheFolder(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "does-not-exist")
	if _, err := f.add(t, missing); !pathErr(err) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing path: err = %v, want a path error wrapping fs.ErrNotExist", err)
	}
	file := filepath.Join(dir, "file.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.add(t, file); !pathErr(err) || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file: err = %v, want 'not a directory'", err)
	}
	if _, err := f.add(t, "   "); !pathErr(err) {
		t.Errorf("empty path: err = %v, want a path error", err)
	}
	// A relative path that exists from the test's working directory is
	// refused all the same: it is never resolved against the app's cwd.
	for _, rel := range []string{"../..", ".", "some/dir", "./x"} {
		if _, err := f.add(t, rel); !pathErr(err) || !strings.Contains(err.Error(), "relative path") {
			t.Errorf("Add(%q): err = %v, want a 'relative path' input error", rel, err)
		}
		if _, err := projects.ExpandPath(rel); err == nil {
			t.Errorf("ExpandPath(%q) accepted", rel)
		}
	}
	if ps, err := store.ListProjects(t.Context(), f.db.R); err != nil || len(ps) != 0 {
		t.Fatalf("projects after refusals: %v %v", ps, err)
	}
}

func TestAddDetectsGitAndNamesTheProject(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain folder") // a space in the path
	repo := filepath.Join(dir, "repo")
	linked := filepath.Join(dir, "linked") // a linked worktree: .git is a file
	for _, d := range []string{plain, filepath.Join(repo, ".git"), linked} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(linked, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, git := range map[string]bool{plain: false, repo: true, linked: true} {
		p, err := f.add(t, path+"/")
		if err != nil {
			t.Fatal(err)
		}
		if p.IsGitRepo != git || p.Name != filepath.Base(path) || p.Path != path || p.DefaultAgentBackend != agent.BackendClaudeCode {
			t.Errorf("Add(%s) = %+v, want git %v, named after the folder, the default backend", path, p, git)
		}
	}
	if _, err := f.add(t, repo); !pathErr(err) || !errors.Is(err, store.ErrDuplicate) {
		t.Errorf("the same path twice: err = %v, want a path error wrapping store.ErrDuplicate", err)
	}
}

func TestExpandPathExpandsHome(t *testing.T) {
	f := newFixture(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.Mkdir(filepath.Join(home, "code"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := projects.ExpandPath(" ~/code/ ")
	if err != nil || got != filepath.Join(home, "code") {
		t.Fatalf("ExpandPath(~/code/) = %q, %v", got, err)
	}
	if got, err := projects.ExpandPath("~"); err != nil || got != home {
		t.Errorf("ExpandPath(~) = %q, %v", got, err)
	}
	p, err := f.add(t, "~/code")
	if err != nil || p.Path != filepath.Join(home, "code") {
		t.Fatalf("Add(~/code) = %+v, %v", p, err)
	}
}

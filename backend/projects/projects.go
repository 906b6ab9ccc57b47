// Package projects holds the rules of adding a project: the folder the
// user typed ("~" expanded, absolute, cleaned), checked to be a directory
// not added yet, named after its last element, a git repository detected,
// and the backend its tasks start with (tasks.DefaultBackend).
// services.ProjectService is its face. Invalid input is an inputerr.
package projects

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/inputerr"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/tasks"
)

// Add stores the directory at path as a project named after its last path
// element. The path must exist and be a directory not added yet; a git
// repository (a .git directory or file) is detected and recorded. Its
// default backend is the global default.
func Add(ctx context.Context, db *store.DB, reg *agent.Registry, path string) (store.Project, error) {
	abs, err := checkFolder(path)
	if err != nil {
		return store.Project{}, err
	}
	backend, err := tasks.DefaultBackend(ctx, db, reg)
	if err != nil {
		return store.Project{}, err
	}
	p, err := store.AddProject(ctx, db.W, store.NewProject{
		Name:                name(abs),
		Path:                abs,
		IsGitRepo:           isGitRepo(abs),
		DefaultAgentBackend: backend,
	})
	if errors.Is(err, store.ErrDuplicate) {
		return store.Project{}, inputerr.New("path", err, "project already added: %s", abs)
	}
	return p, err
}

// checkFolder returns the cleaned absolute path of a typed folder that
// exists and is a directory.
func checkFolder(path string) (string, error) {
	abs, err := ExpandPath(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", inputerr.New("path", err, "path does not exist: %s", abs)
	}
	if err != nil {
		return "", inputerr.New("path", err, "cannot read %s: %v", abs, err)
	}
	if !st.IsDir() {
		return "", inputerr.New("path", nil, "not a directory: %s", abs)
	}
	return abs, nil
}

// ExpandPath checks a user-typed path is absolute and cleans it ("~" and
// "~/..." are the home directory); a relative path is an error saying so.
func ExpandPath(path string) (string, error) {
	path = strings.TrimSpace(path)
	if path == "" {
		return "", inputerr.New("path", nil, "path is empty")
	}
	if path == "~" || strings.HasPrefix(path, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", inputerr.New("path", err, "cannot expand ~: %v", err)
		}
		path = filepath.Join(home, path[1:])
	}
	if !filepath.IsAbs(path) {
		return "", inputerr.New("path", nil, "%q is a relative path: give the full path of the folder (it starts with / or ~/)", path)
	}
	return filepath.Clean(path), nil
}

// name is a project's name from its folder: the last path element, else
// the whole path ("/").
func name(abs string) string {
	if n := filepath.Base(abs); n != "" && n != string(filepath.Separator) && n != "." {
		return n
	}
	return abs
}

// isGitRepo reports whether dir is the top of a git work tree: it has a
// .git directory, or a .git file (a linked worktree or a submodule).
func isGitRepo(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil && (st.IsDir() || st.Mode().IsRegular())
}

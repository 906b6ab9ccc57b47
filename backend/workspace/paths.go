package workspace

import (
	"context"
	"path/filepath"
)

// Paths are where a task's files are.
type Paths struct {
	// Root is the folder the task's files stay in: its worktree, else the
	// project folder.
	Root string
	// Cwd is where its agent runs (inside Root; a project in a subfolder
	// of its repository runs at the same place in the worktree).
	Cwd string
	// Project is the project folder, which the agent may name in the
	// paths it prints while it works in the worktree.
	Project string
}

// Paths returns where task taskID's files are.
func (w *Manager) Paths(ctx context.Context, taskID string) (Paths, error) {
	t, err := w.Task(ctx, taskID)
	if err != nil {
		return Paths{}, err
	}
	info := w.withCwd(ctx, t)
	root := info.WorktreePath
	if root == "" {
		root = info.Cwd
	}
	return Paths{Root: root, Cwd: info.Cwd, Project: t.Project.Path}, nil
}

// File maps a path the agent printed to the task's own file: a relative
// path is relative to where the agent runs; an absolute path into the
// project folder (agents often print those) is the same file in the
// task's worktree; any other path is returned as it is (opener.Resolve
// then decides whether it may be opened).
func (p Paths) File(path string) string {
	if path == "" {
		return ""
	}
	if !filepath.IsAbs(path) {
		return filepath.Join(p.Cwd, path)
	}
	if within(p.Root, path) {
		return path // already the task's (a worktree may lie inside the project folder)
	}
	if rel, ok := under(p.Project, path); ok {
		return filepath.Join(p.Cwd, rel)
	}
	return path
}

// within reports whether path is dir or lies under it (lexically).
func within(dir, path string) bool {
	_, ok := under(dir, path)
	return ok
}

// under returns path relative to dir when it is dir or lies under it.
func under(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	return rel, err == nil && (rel == "." || filepath.IsLocal(rel))
}

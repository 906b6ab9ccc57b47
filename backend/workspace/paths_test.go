package workspace_test

import (
	"testing"

	"github.com/jean-claude/jean-claude/backend/workspace"
)

func TestPathsFileMapsTheProjectFolderIntoTheWorktree(t *testing.T) {
	// A project in a subfolder of its repository, its worktree elsewhere.
	wt := workspace.Paths{Root: "/wt/t1", Cwd: "/wt/t1/apps/web", Project: "/repo/apps/web"}
	// Worktrees inside the project folder (a worktree root set there).
	inside := workspace.Paths{Root: "/repo/.wt/t1", Cwd: "/repo/.wt/t1", Project: "/repo"}
	// No worktree: everything is the project folder.
	plain := workspace.Paths{Root: "/repo", Cwd: "/repo", Project: "/repo"}
	for _, c := range []struct {
		at         workspace.Paths
		path, want string
	}{
		{wt, "/repo/apps/web/src/a.go", "/wt/t1/apps/web/src/a.go"},
		{wt, "/repo/apps/web", "/wt/t1/apps/web"},
		{wt, "src/a.go", "/wt/t1/apps/web/src/a.go"},
		{wt, "../../README.md", "/wt/t1/README.md"},
		{wt, "/wt/t1/apps/web/b.go", "/wt/t1/apps/web/b.go"},
		{wt, "/repo/apps/website/x", "/repo/apps/website/x"}, // a sibling, not the project
		{wt, "/repo/README.md", "/repo/README.md"},           // outside the project: Resolve refuses
		{wt, "/etc/passwd", "/etc/passwd"},
		{wt, "", ""},
		{inside, "/repo/.wt/t1/a.go", "/repo/.wt/t1/a.go"},
		{inside, "/repo/a.go", "/repo/.wt/t1/a.go"},
		{plain, "/repo/a.go", "/repo/a.go"},
		{plain, "a.go", "/repo/a.go"},
	} {
		if got := c.at.File(c.path); got != c.want {
			t.Errorf("%+v.File(%q) = %q, want %q", c.at, c.path, got, c.want)
		}
	}
}

func TestPathsOfATask(t *testing.T) {
	f := newGitFixture(t)
	id := f.Task("paths")
	at, err := f.ws.Paths(t.Context(), id)
	if want := (workspace.Paths{Root: f.Repo, Cwd: f.Repo, Project: f.Repo}); err != nil || at != want {
		t.Errorf("before its worktree: Paths = %+v, %v; want %+v", at, err, want)
	}
	info := f.prepare(id)
	at, err = f.ws.Paths(t.Context(), id)
	if want := (workspace.Paths{Root: info.WorktreePath, Cwd: info.Cwd, Project: f.Repo}); err != nil || at != want {
		t.Errorf("with its worktree: Paths = %+v, %v; want %+v", at, err, want)
	}
	if _, err := f.ws.Paths(t.Context(), "no-such-task"); err == nil {
		t.Error("Paths of a missing task: no error")
	}
}

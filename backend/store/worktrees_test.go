package store_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

func openWorktreesDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "wt.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestWorktrees(t *testing.T) {
	db := openWorktreesDB(t)
	ctx := t.Context()
	p, err := store.NewProjects(db).Add(ctx, store.NewProject{Name: "p", Path: "/p", IsGitRepo: true})
	if err != nil {
		t.Fatal(err)
	}
	task, err := store.NewTasks(db).Create(ctx, store.NewTask{ProjectID: p.ID, Name: "fix", Prompt: "x", AgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	r := store.NewWorktrees(db)

	// Defaults: worktrees on, default root and branch.
	pg, err := r.Project(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(store.ProjectGit{ProjectID: p.ID, Path: "/p", IsGitRepo: true, WorktreesEnabled: true}, pg); diff != "" {
		t.Errorf("Project (-want +got):\n%s", diff)
	}
	tg, err := r.Task(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !tg.WantsWorktree() || tg.UseWorktree != nil || tg.WorktreePath != "" || tg.TaskName != "fix" || tg.Status != store.StatusCreated {
		t.Errorf("new task git = %+v", tg)
	}

	// Project setting off; task override on wins.
	if _, err := r.SetProjectSettings(ctx, p.ID, store.ProjectGitSettings{WorktreesEnabled: false, WorktreeRoot: "/trees", DefaultSourceBranch: "dev"}); err != nil {
		t.Fatal(err)
	}
	tg, _ = r.Task(ctx, task.ID)
	if tg.WantsWorktree() || tg.Project.WorktreeRoot != "/trees" || tg.Project.DefaultSourceBranch != "dev" {
		t.Errorf("after project settings = %+v", tg)
	}
	on := true
	if err := r.SetTaskOptions(ctx, task.ID, &on, "release"); err != nil {
		t.Fatal(err)
	}
	tg, _ = r.Task(ctx, task.ID)
	if !tg.WantsWorktree() || tg.SourceBranch != "release" {
		t.Errorf("override = %+v", tg)
	}

	if err := r.RecordWorktree(ctx, task.ID, "/trees/fix-1", "jc/fix-1", "release", "abc"); err != nil {
		t.Fatal(err)
	}
	if err := r.RecordHead(ctx, task.ID, "def"); err != nil {
		t.Fatal(err)
	}
	if err := r.RecordMerge(ctx, task.ID, "123", 42); err != nil {
		t.Fatal(err)
	}
	tg, _ = r.Task(ctx, task.ID)
	want := store.TaskGit{TaskID: task.ID, TaskName: "fix", Status: store.StatusCreated, Project: tg.Project, UseWorktree: &on,
		SourceBranch: "release", WorktreePath: "/trees/fix-1", BranchName: "jc/fix-1", BaseCommit: "abc",
		HeadCommit: "def", MergedAt: 42, MergeCommit: "123"}
	if diff := cmp.Diff(want, tg); diff != "" {
		t.Errorf("Task (-want +got):\n%s", diff)
	}
	ids, err := r.TasksWithWorktree(ctx, p.ID)
	if err != nil || len(ids) != 1 || ids[0] != task.ID {
		t.Errorf("TasksWithWorktree = %v, %v", ids, err)
	}

	if err := r.ClearWorktree(ctx, task.ID, true); err != nil {
		t.Fatal(err)
	}
	tg, _ = r.Task(ctx, task.ID)
	if tg.WorktreePath != "" || tg.BranchName != "jc/fix-1" || tg.BaseCommit != "abc" {
		t.Errorf("clear keeping branch = %+v", tg)
	}
	if err := r.ClearWorktree(ctx, task.ID, false); err != nil {
		t.Fatal(err)
	}
	tg, _ = r.Task(ctx, task.ID)
	if tg.BranchName != "" || tg.HeadCommit != "def" {
		t.Errorf("clear = %+v", tg)
	}

	// Not a git repo: never a worktree, whatever the settings.
	q, _ := store.NewProjects(db).Add(ctx, store.NewProject{Name: "q", Path: "/q"})
	qt, _ := store.NewTasks(db).Create(ctx, store.NewTask{ProjectID: q.ID, Prompt: "x", AgentBackend: agent.BackendClaudeCode})
	if err := r.SetTaskOptions(ctx, qt.ID, &on, ""); err != nil {
		t.Fatal(err)
	}
	if tg, _ := r.Task(ctx, qt.ID); tg.WantsWorktree() {
		t.Error("non-git project wants a worktree")
	}

	for _, err := range []error{
		r.RecordHead(ctx, "missing", "x"),
		r.SetTaskOptions(ctx, "missing", nil, ""),
		func() error { _, err := r.Task(ctx, "missing"); return err }(),
		func() error { _, err := r.Project(ctx, "missing"); return err }(),
		func() error { _, err := r.SetProjectSettings(ctx, "missing", store.ProjectGitSettings{}); return err }(),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("missing row: err = %v, want ErrNotFound", err)
		}
	}
}

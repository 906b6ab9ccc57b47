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
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "p", Path: "/p", IsGitRepo: true})
	if err != nil {
		t.Fatal(err)
	}
	task, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "fix", Prompt: "x", AgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}

	// Defaults: worktrees on, default root and branch.
	pg, err := store.GetProjectGit(ctx, db.R, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(store.ProjectGit{ProjectID: p.ID, Path: "/p", IsGitRepo: true, WorktreesEnabled: true}, pg); diff != "" {
		t.Errorf("Project (-want +got):\n%s", diff)
	}
	tg, err := store.GetTaskGit(ctx, db.R, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !tg.WantsWorktree() || tg.UseWorktree != nil || tg.WorktreePath != "" || tg.TaskName != "fix" || tg.Status != store.StatusCreated {
		t.Errorf("new task git = %+v", tg)
	}

	// Project setting off; task override on wins.
	if _, err := store.SetProjectGit(ctx, db.W, p.ID, store.ProjectGitSettings{WorktreesEnabled: false, WorktreeRoot: "/trees", DefaultSourceBranch: "dev"}); err != nil {
		t.Fatal(err)
	}
	tg, _ = store.GetTaskGit(ctx, db.R, task.ID)
	if tg.WantsWorktree() || tg.Project.WorktreeRoot != "/trees" || tg.Project.DefaultSourceBranch != "dev" {
		t.Errorf("after project settings = %+v", tg)
	}
	on := true
	if err := store.SetTaskGitOptions(ctx, db.W, task.ID, &on, "release"); err != nil {
		t.Fatal(err)
	}
	tg, _ = store.GetTaskGit(ctx, db.R, task.ID)
	if !tg.WantsWorktree() || tg.SourceBranch != "release" {
		t.Errorf("override = %+v", tg)
	}

	if err := store.RecordWorktree(ctx, db.W, task.ID, "/trees/fix-1", "jc/fix-1", "release", "abc"); err != nil {
		t.Fatal(err)
	}
	if err := store.RecordHead(ctx, db.W, task.ID, "def"); err != nil {
		t.Fatal(err)
	}
	if err := store.RecordMerge(ctx, db.W, task.ID, "123", 42); err != nil {
		t.Fatal(err)
	}
	tg, _ = store.GetTaskGit(ctx, db.R, task.ID)
	want := store.TaskGit{TaskID: task.ID, TaskName: "fix", Status: store.StatusCreated, Project: tg.Project, UseWorktree: &on,
		SourceBranch: "release", WorktreePath: "/trees/fix-1", BranchName: "jc/fix-1", BaseCommit: "abc",
		HeadCommit: "def", MergedAt: 42, MergeCommit: "123"}
	if diff := cmp.Diff(want, tg); diff != "" {
		t.Errorf("Task (-want +got):\n%s", diff)
	}
	ids, err := store.TasksWithWorktree(ctx, db.R, p.ID)
	if err != nil || len(ids) != 1 || ids[0] != task.ID {
		t.Errorf("TasksWithWorktree = %v, %v", ids, err)
	}

	if err := store.ClearWorktree(ctx, db.W, task.ID, true); err != nil {
		t.Fatal(err)
	}
	tg, _ = store.GetTaskGit(ctx, db.R, task.ID)
	if tg.WorktreePath != "" || tg.BranchName != "jc/fix-1" || tg.BaseCommit != "abc" {
		t.Errorf("clear keeping branch = %+v", tg)
	}
	if err := store.ClearWorktree(ctx, db.W, task.ID, false); err != nil {
		t.Fatal(err)
	}
	tg, _ = store.GetTaskGit(ctx, db.R, task.ID)
	if tg.BranchName != "" || tg.HeadCommit != "def" {
		t.Errorf("clear = %+v", tg)
	}

	// Not a git repo: never a worktree, whatever the settings.
	q, _ := store.AddProject(ctx, db.W, store.NewProject{Name: "q", Path: "/q"})
	qt, _ := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: q.ID, Prompt: "x", AgentBackend: agent.BackendClaudeCode})
	if err := store.SetTaskGitOptions(ctx, db.W, qt.ID, &on, ""); err != nil {
		t.Fatal(err)
	}
	if tg, _ := store.GetTaskGit(ctx, db.R, qt.ID); tg.WantsWorktree() {
		t.Error("non-git project wants a worktree")
	}

	for _, err := range []error{
		store.RecordHead(ctx, db.W, "missing", "x"),
		store.SetTaskGitOptions(ctx, db.W, "missing", nil, ""),
		func() error { _, err := store.GetTaskGit(ctx, db.R, "missing"); return err }(),
		func() error { _, err := store.GetProjectGit(ctx, db.R, "missing"); return err }(),
		func() error {
			_, err := store.SetProjectGit(ctx, db.W, "missing", store.ProjectGitSettings{})
			return err
		}(),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("missing row: err = %v, want ErrNotFound", err)
		}
	}
}

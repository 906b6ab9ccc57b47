package services_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

func TestTaskDeleteRemovesOnlyItsWorktree(t *testing.T) {
	f := newGitFixture(t)
	tasks := services.NewTaskService(t.Context(), f.DB, agent.NewRegistry(), nil, workspace.New(f.DB, f.G, nil), nil)
	a, b := f.Task("Task A"), f.Task("Task B")
	ia, ib := f.prepare(a), f.prepare(b)
	f.Write(ib.WorktreePath, "b.txt", "other task's work\n")
	mainHead := f.Git(f.Repo, "rev-parse", "main")

	// Dirty: refused, task and files kept.
	f.Write(ia.WorktreePath, "wip.txt", "unsaved\n")
	err := tasks.Delete(a)
	if !errors.Is(err, gitx.ErrDirtyWorktree) || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Fatalf("delete of a dirty worktree = %v, want ErrDirtyWorktree", err)
	}
	if _, err := tasks.Get(a); err != nil {
		t.Errorf("refused delete removed the task: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(ia.WorktreePath, "wip.txt")); err != nil || string(got) != "unsaved\n" {
		t.Errorf("refused delete lost the change: %q, %v", got, err)
	}

	// Confirmed: worktree, branch and task gone.
	if err := tasks.DeleteDiscardingChanges(a); err != nil {
		t.Fatalf("confirmed delete: %v", err)
	}
	if _, err := tasks.Get(a); err == nil {
		t.Error("task still there after confirmed delete")
	}
	if _, err := os.Stat(ia.WorktreePath); !os.IsNotExist(err) {
		t.Errorf("worktree still there: %v", err)
	}
	if out := f.Git(f.Repo, "branch", "--list", ia.BranchName); out != "" {
		t.Errorf("branch %s kept: %q", ia.BranchName, out)
	}

	// Clean: worktree and (merged) branch removed with the task.
	c := f.Task("Task C")
	ic := f.prepare(c)
	if err := tasks.Delete(c); err != nil {
		t.Fatalf("delete of a clean worktree: %v", err)
	}
	if _, err := tasks.Get(c); err == nil {
		t.Error("task C still there")
	}
	if _, err := os.Stat(ic.WorktreePath); !os.IsNotExist(err) {
		t.Errorf("worktree C still there: %v", err)
	}
	if out := f.Git(f.Repo, "branch", "--list", ic.BranchName); out != "" {
		t.Errorf("merged branch %s kept: %q", ic.BranchName, out)
	}

	// Untouched: the main repository and the other task's worktree.
	if got := f.Git(f.Repo, "rev-parse", "main"); got != mainHead {
		t.Errorf("main moved: %s -> %s", mainHead, got)
	}
	if st := f.Git(f.Repo, "status", "--porcelain"); st != "" {
		t.Errorf("main worktree changed: %q", st)
	}
	if got, err := os.ReadFile(filepath.Join(ib.WorktreePath, "b.txt")); err != nil || string(got) != "other task's work\n" {
		t.Errorf("other task's worktree touched: %q, %v", got, err)
	}
	if _, err := tasks.Get(b); err != nil {
		t.Errorf("other task gone: %v", err)
	}

	// A task without a worktree deletes as before.
	d := f.Task("Task D")
	if err := tasks.Delete(d); err != nil {
		t.Errorf("delete without worktree: %v", err)
	}
}

package tasks

import (
	"context"
	"errors"
	"fmt"

	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// Stopper ends a task's live agent session and its processes, returning
// once they are gone (the orchestrator does).
type Stopper interface {
	Stop(ctx context.Context, taskID string) error
}

// Terminals ends a task's shells, every process group, returning once
// they are gone (workspace.Manager does).
type Terminals interface {
	CloseTaskTerminals(ctx context.Context, taskID string) error
}

// Worktrees removes a task's worktree and branch (workspace.Manager does).
type Worktrees interface {
	DeleteTaskWorkspace(ctx context.Context, taskID string, force bool) (workspace.Removal, error)
}

// Ender puts a task's end in order: its agent stopped (its worktree must
// not vanish under a live process, nor be written to after the dirty
// check), its shells closed, its worktree removed, then its row. A step
// that fails keeps everything after it. Nil parts are skipped (nothing of
// that kind runs).
type Ender struct {
	db    *store.DB
	stop  Stopper
	terms Terminals
	trees Worktrees
}

// NewEnder returns an Ender over db; stop, terms and trees may be nil.
func NewEnder(db *store.DB, stop Stopper, terms Terminals, trees Worktrees) *Ender {
	return &Ender{db: db, stop: stop, terms: terms, trees: trees}
}

// Delete ends task id and deletes it with its history, returning the row
// it deleted. Its worktree is removed (an unmerged branch is kept); a
// worktree with uncommitted or untracked changes is refused with an error
// wrapping gitx.ErrDirtyWorktree unless force, which removes them and the
// branch. A missing task is store.ErrNotFound.
func (e *Ender) Delete(ctx context.Context, id string, force bool) (store.Task, error) {
	t, err := store.GetTask(ctx, e.db.R, id)
	if err != nil {
		return store.Task{}, err
	}
	if err := e.end(ctx, id); err != nil {
		return store.Task{}, fmt.Errorf("task not deleted: %w", err)
	}
	if e.trees != nil {
		if _, err := e.trees.DeleteTaskWorkspace(ctx, id, force); err != nil {
			return store.Task{}, fmt.Errorf("task not deleted: %w", err)
		}
	}
	return t, store.DeleteTask(ctx, e.db.W, id)
}

// RemoveProject ends every task of project id (agents stopped, shells
// closed; worktrees stay, as the folder does) and then forgets the project
// and its tasks. If one task cannot be ended, nothing is removed. A
// missing project is store.ErrNotFound.
func (e *Ender) RemoveProject(ctx context.Context, id string) error {
	if _, err := store.GetProject(ctx, e.db.R, id); err != nil {
		return err
	}
	ts, err := store.ListTasks(ctx, e.db.R, id)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := e.end(ctx, t.ID); err != nil {
			return fmt.Errorf("project not removed: task %q: %w", t.Name, err)
		}
	}
	return store.RemoveProject(ctx, e.db.W, id)
}

// end stops a task's agent and closes its shells.
func (e *Ender) end(ctx context.Context, taskID string) error {
	if e.stop != nil {
		if err := e.stop.Stop(ctx, taskID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("could not stop its agent: %w", err)
		}
	}
	if e.terms != nil {
		// Every process group of its shells, none left (issue 18).
		if err := e.terms.CloseTaskTerminals(ctx, taskID); err != nil {
			return fmt.Errorf("could not end its terminals: %w", err)
		}
	}
	return nil
}

package tasks_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/tasks"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// steps records the end of tasks as the orchestrator and the workspace
// see it; fail makes the named step fail.
type steps struct {
	db   *store.DB
	log  []string
	fail map[string]error
}

func (s *steps) step(name, taskID string) error {
	s.log = append(s.log, name+" "+taskID)
	if _, err := store.GetTask(context.Background(), s.db.R, taskID); err != nil {
		return errors.New(name + ": the row went first")
	}
	return s.fail[name]
}

func (s *steps) Stop(_ context.Context, id string) error { return s.step("stop", id) }
func (s *steps) CloseTaskTerminals(_ context.Context, id string) error {
	return s.step("terminals", id)
}
func (s *steps) DeleteTaskWorkspace(_ context.Context, id string, force bool) (workspace.Removal, error) {
	name := "worktree"
	if force {
		name = "worktree!"
	}
	return workspace.Removal{}, s.step(name, id)
}

type endFixture struct {
	db    *store.DB
	steps *steps
	end   *tasks.Ender
	proj  store.Project
}

func newEndFixture(t *testing.T) endFixture {
	t.Helper()
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := store.AddProject(t.Context(), db.W, store.NewProject{Name: "p", Path: t.TempDir(), DefaultAgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	s := &steps{db: db, fail: map[string]error{}}
	return endFixture{db: db, steps: s, end: tasks.NewEnder(db, s, s, s), proj: p}
}

func (f endFixture) task(t *testing.T, name string) string {
	t.Helper()
	tk, err := store.CreateTask(t.Context(), f.db.W, store.NewTask{ProjectID: f.proj.ID, Name: name, Prompt: name, AgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	return tk.ID
}

func (f endFixture) exists(t *testing.T, id string) bool {
	t.Helper()
	_, err := store.GetTask(t.Context(), f.db.R, id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

func TestDeleteEndsTheTaskInOrder(t *testing.T) {
	f := newEndFixture(t)
	id := f.task(t, "a")
	got, err := f.end.Delete(t.Context(), id, true)
	if err != nil || got.ID != id || got.ProjectID != f.proj.ID {
		t.Fatalf("Delete = %+v, %v", got, err)
	}
	want := []string{"stop " + id, "terminals " + id, "worktree! " + id}
	if !slices.Equal(f.steps.log, want) {
		t.Errorf("steps %v, want %v", f.steps.log, want)
	}
	if f.exists(t, id) {
		t.Error("the row is kept")
	}
	if _, err := f.end.Delete(t.Context(), id, false); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Delete of a deleted task = %v, want store.ErrNotFound", err)
	}
}

// A step that fails keeps the steps after it and the row; an agent already
// gone (store.ErrNotFound) is no failure.
func TestDeleteStopsAtTheFailingStep(t *testing.T) {
	for step, want := range map[string][]string{
		"stop":      {"stop"},
		"terminals": {"stop", "terminals"},
		"worktree":  {"stop", "terminals", "worktree"},
	} {
		f := newEndFixture(t)
		id := f.task(t, "a")
		f.steps.fail[step] = errors.New(step + " failed")
		_, err := f.end.Delete(t.Context(), id, false)
		if err == nil || !strings.HasPrefix(err.Error(), "task not deleted: ") || !strings.Contains(err.Error(), step+" failed") {
			t.Errorf("%s fails: Delete = %v", step, err)
		}
		var names []string
		for _, l := range f.steps.log {
			names = append(names, strings.Fields(l)[0])
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s fails: steps %v, want %v", step, names, want)
		}
		if !f.exists(t, id) {
			t.Errorf("%s fails: the row is gone", step)
		}
	}
	f := newEndFixture(t)
	id := f.task(t, "a")
	f.steps.fail["stop"] = store.ErrNotFound
	if _, err := f.end.Delete(t.Context(), id, false); err != nil || f.exists(t, id) {
		t.Errorf("an agent already gone: Delete = %v, row kept %v", err, f.exists(t, id))
	}
}

func TestRemoveProjectEndsEveryTaskOrNone(t *testing.T) {
	f := newEndFixture(t)
	a, b := f.task(t, "a"), f.task(t, "b")
	f.steps.fail["terminals"] = errors.New("a shell would not die")
	err := f.end.RemoveProject(t.Context(), f.proj.ID)
	if err == nil || !strings.HasPrefix(err.Error(), "project not removed: task ") || !strings.Contains(err.Error(), "could not end its terminals") {
		t.Fatalf("RemoveProject with a shell that would not die = %v", err)
	}
	if !f.exists(t, a) || !f.exists(t, b) {
		t.Fatal("a refused RemoveProject removed a task")
	}

	delete(f.steps.fail, "terminals")
	f.steps.log = nil
	if err := f.end.RemoveProject(t.Context(), f.proj.ID); err != nil {
		t.Fatal(err)
	}
	slices.Sort(f.steps.log)
	want := []string{"stop " + a, "stop " + b, "terminals " + a, "terminals " + b}
	slices.Sort(want)
	if !slices.Equal(f.steps.log, want) {
		t.Errorf("steps %v, want %v (agents and shells ended, worktrees kept)", f.steps.log, want)
	}
	if f.exists(t, a) || f.exists(t, b) {
		t.Error("tasks kept")
	}
	if _, err := store.GetProject(t.Context(), f.db.R, f.proj.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("project kept: %v", err)
	}
	if err := f.end.RemoveProject(t.Context(), f.proj.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RemoveProject of a removed project = %v, want store.ErrNotFound", err)
	}
}

// Nil parts are skipped: a task with no agent, shells or worktree.
func TestDeleteWithNothingRunning(t *testing.T) {
	f := newEndFixture(t)
	id := f.task(t, "a")
	if _, err := tasks.NewEnder(f.db, nil, nil, nil).Delete(t.Context(), id, false); err != nil || f.exists(t, id) {
		t.Errorf("Delete = %v, row kept %v", err, f.exists(t, id))
	}
}

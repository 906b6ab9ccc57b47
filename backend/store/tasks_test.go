package store_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

func TestTasks(t *testing.T) {
	db, _ := openTemp(t)
	ctx := t.Context()
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "p", Path: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	q, err := store.AddProject(ctx, db.W, store.NewProject{Name: "q", Path: "/q"})
	if err != nil {
		t.Fatal(err)
	}

	t1, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "first", Prompt: "do it", AgentBackend: agent.BackendOpenCode, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	want := store.Task{
		ID: t1.ID, ProjectID: p.ID, Name: "first", Prompt: "do it", Status: store.StatusCreated,
		AgentBackend: agent.BackendOpenCode, Model: "m", InteractionMode: agent.ModeAsk,
		CreatedAt: t1.CreatedAt, UpdatedAt: t1.CreatedAt,
	}
	if diff := cmp.Diff(want, t1); diff != "" {
		t.Errorf("Create (-want +got):\n%s", diff)
	}
	got, err := store.GetTask(ctx, db.R, t1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(t1, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	t2, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Prompt: "second", AgentBackend: agent.BackendClaudeCode, InteractionMode: agent.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: q.ID, Prompt: "other project", AgentBackend: agent.BackendClaudeCode}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: "missing", Prompt: "x", AgentBackend: agent.BackendClaudeCode}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Create in a missing project: err = %v, want ErrNotFound", err)
	}

	list, err := store.ListTasks(ctx, db.R, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != t2.ID || list[1].ID != t1.ID {
		t.Errorf("List = %v, want [second, first] (newest first)", names(list))
	}
	if list, _ := store.ListTasks(ctx, db.R, "missing"); list == nil || len(list) != 0 {
		t.Errorf("List of a project without tasks = %#v, want empty non-nil", list)
	}

	// Status transitions stamp startedAt and endedAt.
	set := func(id string, change func() error) store.Task {
		t.Helper()
		if err := change(); err != nil {
			t.Fatal(err)
		}
		got, err := store.GetTask(ctx, db.R, id)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	run := set(t1.ID, func() error { return store.SetTaskStatus(ctx, db.W, t1.ID, store.StatusRunning, "", 10) })
	if run.Status != store.StatusRunning || run.StartedAt != 10 || run.EndedAt != 0 || run.UpdatedAt != 10 {
		t.Errorf("running: %+v", run)
	}
	done := set(t1.ID, func() error {
		return store.SetTaskStatus(ctx, db.W, t1.ID, store.StatusErrored, "API error: overloaded", 20)
	})
	if done.Status != store.StatusErrored || done.StatusReason != "API error: overloaded" || done.EndedAt != 20 || done.StartedAt != 10 {
		t.Errorf("errored: %+v", done)
	}
	again := set(t1.ID, func() error { return store.SetTaskStatus(ctx, db.W, t1.ID, store.StatusRunning, "", 30) })
	if again.StartedAt != 10 || again.EndedAt != 0 || again.StatusReason != "" {
		t.Errorf("running again: %+v", again)
	}
	ss := set(t1.ID, func() error { return store.SetTaskSessionID(ctx, db.W, t1.ID, "sess-1", 40) })
	if ss.SessionID != "sess-1" {
		t.Errorf("SetTaskSessionID: %+v", ss)
	}
	sm := set(t1.ID, func() error { return store.SetTaskMode(ctx, db.W, t1.ID, string(agent.ModeBypass), 50) })
	if sm.InteractionMode != agent.ModeBypass {
		t.Errorf("SetTaskMode: %+v", sm)
	}
	smo := set(t1.ID, func() error { return store.SetTaskModel(ctx, db.W, t1.ID, "opus", 60) })
	if smo.Model != "opus" {
		t.Errorf("SetTaskModel: %+v", smo)
	}
	su := set(t1.ID, func() error { return store.SetTaskUnread(ctx, db.W, t1.ID, true, 70) })
	if !su.HasUnread || su.UpdatedAt != 70 {
		t.Errorf("SetTaskUnread: %+v", su)
	}
	rn, err := store.RenameTask(ctx, db.W, t1.ID, "renamed")
	if err != nil || rn.Name != "renamed" || rn.SessionID != "sess-1" || rn.AgentBackend != agent.BackendOpenCode {
		t.Errorf("Rename = %+v, %v", rn, err)
	}

	if err := store.DeleteTask(ctx, db.W, t1.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.GetTask(ctx, db.R, t1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get after Delete: err = %v, want ErrNotFound", err)
	}
	if err := store.DeleteTask(ctx, db.W, t1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second Delete: err = %v, want ErrNotFound", err)
	}
	if err := store.SetTaskStatus(ctx, db.W, t1.ID, store.StatusRunning, "", 80); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetTaskStatus of a deleted task: err = %v, want ErrNotFound", err)
	}
}

func names(ts []store.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Prompt
	}
	return out
}

// The orchestrator's TaskRun is the same Task (same columns, same scan)
// with its project's name and path.
func TestTaskRunIsTheTaskWithItsProject(t *testing.T) {
	db, _ := openTemp(t)
	ctx := t.Context()
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "p", Path: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "n", Prompt: "x", AgentBackend: agent.BackendGemini})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetForkSession(ctx, db.W, tk.ID, "parent-session", "msg_next"); err != nil {
		t.Fatal(err)
	}
	if err := store.SetTaskStatus(ctx, db.W, tk.ID, store.StatusRunning, "", 42); err != nil {
		t.Fatal(err)
	}
	task, err := store.GetTask(ctx, db.R, tk.ID)
	if err != nil || !task.ForkSession || task.ForkPoint != "msg_next" || task.SessionID != "parent-session" || task.Status != store.StatusRunning || task.StartedAt != 42 {
		t.Fatalf("Get = %+v, %v", task, err)
	}
	run, err := store.LoadTaskRun(ctx, db.R, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(store.TaskRun{Task: task, ProjectName: "p", ProjectPath: "/p"}, run); diff != "" {
		t.Errorf("LoadTaskRun (-want +got):\n%s", diff)
	}
	running, err := store.TasksWithStatus(ctx, db.R, store.StatusRunning)
	if err != nil || len(running) != 1 || running[0] != run {
		t.Errorf("TasksWithStatus = %+v, %v", running, err)
	}
}

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
	p, err := store.NewProjects(db).Add(ctx, store.NewProject{Name: "p", Path: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	q, err := store.NewProjects(db).Add(ctx, store.NewProject{Name: "q", Path: "/q"})
	if err != nil {
		t.Fatal(err)
	}
	r := store.NewTasks(db)

	t1, err := r.Create(ctx, store.NewTask{ProjectID: p.ID, Name: "first", Prompt: "do it", AgentBackend: agent.BackendOpenCode, Model: "m"})
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
	got, err := r.Get(ctx, t1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(t1, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	t2, err := r.Create(ctx, store.NewTask{ProjectID: p.ID, Prompt: "second", AgentBackend: agent.BackendClaudeCode, InteractionMode: agent.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Create(ctx, store.NewTask{ProjectID: q.ID, Prompt: "other project", AgentBackend: agent.BackendClaudeCode}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Create(ctx, store.NewTask{ProjectID: "missing", Prompt: "x", AgentBackend: agent.BackendClaudeCode}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Create in a missing project: err = %v, want ErrNotFound", err)
	}

	list, err := r.List(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != t2.ID || list[1].ID != t1.ID {
		t.Errorf("List = %v, want [second, first] (newest first)", names(list))
	}
	if list, _ := r.List(ctx, "missing"); list == nil || len(list) != 0 {
		t.Errorf("List of a project without tasks = %#v, want empty non-nil", list)
	}

	// Status transitions stamp startedAt and endedAt.
	run, err := r.SetStatus(ctx, t1.ID, store.StatusRunning, "")
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.StatusRunning || run.StartedAt == 0 || run.EndedAt != 0 {
		t.Errorf("running: %+v", run)
	}
	done, err := r.SetStatus(ctx, t1.ID, store.StatusErrored, "API error: overloaded")
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != store.StatusErrored || done.StatusReason != "API error: overloaded" || done.EndedAt == 0 || done.StartedAt != run.StartedAt {
		t.Errorf("errored: %+v", done)
	}
	again, err := r.SetStatus(ctx, t1.ID, store.StatusRunning, "")
	if err != nil {
		t.Fatal(err)
	}
	if again.StartedAt != run.StartedAt || again.EndedAt != 0 || again.StatusReason != "" {
		t.Errorf("running again: %+v (first start %d)", again, run.StartedAt)
	}
	if _, err := r.SetStatus(ctx, t1.ID, "exploded", ""); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("unknown status: err = %v, want ErrInvalid", err)
	}

	ss, err := r.SetSessionID(ctx, t1.ID, "sess-1")
	if err != nil || ss.SessionID != "sess-1" {
		t.Errorf("SetSessionID = %+v, %v", ss, err)
	}
	sm, err := r.SetMode(ctx, t1.ID, agent.ModeBypass)
	if err != nil || sm.InteractionMode != agent.ModeBypass {
		t.Errorf("SetMode = %+v, %v", sm, err)
	}
	if _, err := r.SetMode(ctx, t1.ID, "yolo"); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("bad mode: err = %v, want ErrInvalid", err)
	}
	smo, err := r.SetModel(ctx, t1.ID, "opus")
	if err != nil || smo.Model != "opus" {
		t.Errorf("SetModel = %+v, %v", smo, err)
	}
	su, err := r.SetUnread(ctx, t1.ID, true)
	if err != nil || !su.HasUnread {
		t.Errorf("SetUnread = %+v, %v", su, err)
	}
	rn, err := r.Rename(ctx, t1.ID, "renamed")
	if err != nil || rn.Name != "renamed" || rn.SessionID != "sess-1" || rn.AgentBackend != agent.BackendOpenCode {
		t.Errorf("Rename = %+v, %v", rn, err)
	}

	waiting, err := r.SetStatus(ctx, t2.ID, store.StatusWaiting, "permission")
	if err != nil {
		t.Fatal(err)
	}
	byStatus, err := r.ListByStatus(ctx, store.StatusRunning, store.StatusWaiting)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.Task{rn, waiting}, byStatus); diff != "" {
		t.Errorf("ListByStatus (-want +got):\n%s", diff)
	}

	if err := r.Delete(ctx, t1.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, t1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get after Delete: err = %v, want ErrNotFound", err)
	}
	if err := r.Delete(ctx, t1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second Delete: err = %v, want ErrNotFound", err)
	}
	if _, err := r.SetStatus(ctx, t1.ID, store.StatusRunning, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetStatus of a deleted task: err = %v, want ErrNotFound", err)
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
	p, err := store.NewProjects(db).Add(ctx, store.NewProject{Name: "p", Path: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	r := store.NewTasks(db)
	tk, err := r.Create(ctx, store.NewTask{ProjectID: p.ID, Name: "n", Prompt: "x", AgentBackend: agent.BackendGemini})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetForkSession(ctx, db.W, tk.ID, "parent-session"); err != nil {
		t.Fatal(err)
	}
	if err := store.SetTaskStatus(ctx, db.W, tk.ID, store.StatusRunning, "", 42); err != nil {
		t.Fatal(err)
	}
	task, err := r.Get(ctx, tk.ID)
	if err != nil || !task.ForkSession || task.SessionID != "parent-session" || task.Status != store.StatusRunning || task.StartedAt != 42 {
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

package store_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

func TestProjects(t *testing.T) {
	db, _ := openTemp(t)
	ctx := t.Context()

	a, err := store.AddProject(ctx, db.W, store.NewProject{Name: "alpha", Path: "/src/alpha", IsGitRepo: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == "" || a.CreatedAt == 0 || a.UpdatedAt != a.CreatedAt {
		t.Errorf("Add returned %+v", a)
	}
	if a.DefaultAgentBackend != agent.BackendClaudeCode {
		t.Errorf("default backend = %q, want claude-code when none given", a.DefaultAgentBackend)
	}
	b, err := store.AddProject(ctx, db.W, store.NewProject{Name: "beta", Path: "/src/beta", DefaultAgentBackend: agent.BackendOpenCode, DefaultModel: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	if b.SortOrder != a.SortOrder+1 {
		t.Errorf("sort orders %d then %d, want consecutive", a.SortOrder, b.SortOrder)
	}

	if _, err := store.AddProject(ctx, db.W, store.NewProject{Name: "again", Path: "/src/alpha"}); !errors.Is(err, store.ErrDuplicate) {
		t.Errorf("duplicate path: err = %v, want ErrDuplicate", err)
	}

	got, err := store.GetProject(ctx, db.R, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if got, err := store.ProjectByPath(ctx, db.R, "/src/beta"); err != nil || got.ID != b.ID {
		t.Errorf("GetByPath = %+v, %v", got, err)
	}
	list, err := store.ListProjects(ctx, db.R)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.Project{a, b}, list); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}

	ren, err := store.RenameProject(ctx, db.W, a.ID, "Alpha!")
	if err != nil || ren.Name != "Alpha!" || ren.UpdatedAt < a.UpdatedAt {
		t.Errorf("Rename = %+v, %v", ren, err)
	}
	sb, err := store.SetProjectBackend(ctx, db.W, a.ID, agent.BackendOpenCode)
	if err != nil || sb.DefaultAgentBackend != agent.BackendOpenCode || sb.Name != "Alpha!" {
		t.Errorf("SetDefaultBackend = %+v, %v", sb, err)
	}
	sm, err := store.SetProjectModel(ctx, db.W, a.ID, "opus")
	if err != nil || sm.DefaultModel != "opus" || sm.DefaultAgentBackend != agent.BackendOpenCode {
		t.Errorf("SetDefaultModel = %+v, %v", sm, err)
	}
	if got, _ := store.GetProject(ctx, db.R, a.ID); got != sm {
		t.Errorf("Get after updates = %+v, want %+v", got, sm)
	}

	for name, err := range map[string]error{
		"Get":    func() error { _, err := store.GetProject(ctx, db.R, "nope"); return err }(),
		"Rename": func() error { _, err := store.RenameProject(ctx, db.W, "nope", "x"); return err }(),
		"Remove": store.RemoveProject(ctx, db.W, "nope"),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s of a missing project: err = %v, want ErrNotFound", name, err)
		}
	}

	// Removing a project removes its tasks.
	task, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: b.ID, Prompt: "hi", AgentBackend: agent.BackendOpenCode})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.RemoveProject(ctx, db.W, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.GetTask(ctx, db.R, task.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("task of a removed project: err = %v, want ErrNotFound", err)
	}
	if list, _ := store.ListProjects(ctx, db.R); len(list) != 1 || list[0].ID != a.ID {
		t.Errorf("List after Remove = %+v", list)
	}
}

func TestSettings(t *testing.T) {
	db, _ := openTemp(t)
	ctx := t.Context()
	if v, ok, err := store.SettingValue(ctx, db.R, store.SettingDefaultBackend); ok || v != "" || err != nil {
		t.Fatalf("unset Get = %q %v %v", v, ok, err)
	}
	for _, want := range []string{"opencode", "claude-code"} {
		if err := store.SetSetting(ctx, db.W, store.SettingDefaultBackend, want); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := store.SettingValue(ctx, db.R, store.SettingDefaultBackend); !ok || v != want || err != nil {
			t.Fatalf("Get = %q %v %v, want %q", v, ok, err, want)
		}
	}
	if err := store.DeleteSetting(ctx, db.W, store.SettingDefaultBackend); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := store.SettingValue(ctx, db.R, store.SettingDefaultBackend); ok {
		t.Fatal("still set after Delete")
	}
}

package services

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// defaultsBackend is a registered backend whose user settings carry a
// default model and mode, like agentmgr.Configured.
type defaultsBackend struct {
	agent.Unavailable
	model string
	mode  agent.InteractionMode
}

func (d defaultsBackend) Defaults(context.Context) (string, agent.InteractionMode) {
	return d.model, d.mode
}

type fixture struct {
	projects *ProjectService
	tasks    *TaskService
	settings *SettingsService
	events   *eventLog // the task service's
	told     *eventLog // the project service's
}

func newFixture(t *testing.T, extra ...agent.Backend) fixture {
	return newFixtureStopping(t, nil, extra...)
}

func newFixtureStopping(t *testing.T, stopper TaskStopper, extra ...agent.Backend) fixture {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reg := agent.NewRegistry()
	reg.Register(agent.Unavailable{Desc: agent.Info{Name: agent.BackendClaudeCode, DisplayName: "Claude Code"}})
	reg.Register(agent.Unavailable{Desc: agent.Info{Name: agent.BackendOpenCode, DisplayName: "OpenCode"}})
	for _, b := range extra {
		reg.Register(b)
	}
	ev, told := &eventLog{}, &eventLog{}
	return fixture{
		projects: NewProjectService(ctx, db, reg, nil, told, stopper, nil),
		tasks:    NewTaskService(ctx, db, reg, ev, nil, stopper),
		settings: NewSettingsService(ctx, db, reg),
		events:   ev,
		told:     told,
	}
}

// TestProjectChangesAreToldToEveryWindow: every stored change of the
// project list is announced (EventProjectsUpdated) so a second window
// (or the dev server's page) lists what is stored; a refused change is not.
func TestProjectChangesAreToldToEveryWindow(t *testing.T) {
	f := newFixture(t)
	told := func(what string, want int) {
		t.Helper()
		n := 0
		for _, name := range f.told.names {
			if name == EventProjectsUpdated {
				n++
			}
		}
		if n != want || len(f.told.names) != want {
			t.Fatalf("after %s: emitted %v, want %d × %s", what, f.told.names, want, EventProjectsUpdated)
		}
	}
	if _, err := f.projects.Add(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("adding a missing folder succeeded")
	}
	told("a refused add", 0)
	p, err := f.projects.Add(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	told("add", 1)
	if _, err := f.projects.Rename(p.ID, "  "); err == nil {
		t.Fatal("an empty name was accepted")
	}
	told("a refused rename", 1)
	steps := []func() error{
		func() error { _, err := f.projects.Rename(p.ID, "renamed"); return err },
		func() error { _, err := f.projects.SetDefaultBackend(p.ID, string(agent.BackendOpenCode)); return err },
		func() error { _, err := f.projects.SetDefaultModel(p.ID, "m"); return err },
		func() error { return f.projects.Remove(p.ID) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		told(fmt.Sprintf("step %d", i), 2+i)
	}
	if err := f.projects.Remove(p.ID); err == nil {
		t.Fatal("removing it twice succeeded")
	}
	told("a refused remove", 5)
}

func fieldOf(err error) string {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie.Field
	}
	return ""
}

func TestProjectDefaultBackendValidated(t *testing.T) {
	f := newFixture(t)
	p, err := f.projects.Add(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.projects.SetDefaultBackend(p.ID, "no-such-agent")
	if !errors.Is(err, agent.ErrUnknownBackend) || !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("unknown backend: err = %v, want ErrInvalidInput and agent.ErrUnknownBackend", err)
	}
	got, err := f.projects.SetDefaultBackend(p.ID, string(agent.BackendOpenCode))
	if err != nil || got.DefaultBackend != string(agent.BackendOpenCode) {
		t.Fatalf("SetDefaultBackend(opencode) = %+v, %v", got, err)
	}
	if _, err := f.projects.Rename(p.ID, "  "); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("empty name: err = %v, want ErrInvalidInput", err)
	}
	if err := f.settings.SetDefaultBackend("nope"); !errors.Is(err, agent.ErrUnknownBackend) {
		t.Errorf("global default backend 'nope': err = %v, want agent.ErrUnknownBackend", err)
	}
}

func TestTaskCreateValidationAndBackendChoice(t *testing.T) {
	f := newFixture(t)
	p, err := f.projects.Add(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.projects.SetDefaultBackend(p.ID, string(agent.BackendOpenCode)); err != nil {
		t.Fatal(err)
	}

	for name, in := range map[string]CreateTaskInput{
		"empty prompt":    {ProjectID: p.ID, Prompt: " \n\t "},
		"unknown backend": {ProjectID: p.ID, Prompt: "hi", Backend: "gpt-in-a-box"},
		"bad mode":        {ProjectID: p.ID, Prompt: "hi", InteractionMode: "yolo"},
		"no project":      {ProjectID: "missing", Prompt: "hi"},
		// A model named like a flag never reaches an agent's command line.
		"model flag claude": {ProjectID: p.ID, Prompt: "hi", Backend: string(agent.BackendClaudeCode), Model: "--dangerously-skip-permissions"},
		"model flag gemini": {ProjectID: p.ID, Prompt: "hi", Model: "--yolo"},
		"model with spaces": {ProjectID: p.ID, Prompt: "hi", Model: "a b"},
	} {
		if _, err := f.tasks.Create(in); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("%s: err = %v, want ErrInvalidInput", name, err)
		}
	}
	if _, err := f.tasks.Create(CreateTaskInput{ProjectID: p.ID, Prompt: "", Name: "x"}); fieldOf(err) != "prompt" {
		t.Errorf("empty prompt: the error names field %q, want prompt", fieldOf(err))
	}
	if _, err := f.tasks.Create(CreateTaskInput{ProjectID: p.ID, Prompt: "x", Backend: "nope"}); !errors.Is(err, agent.ErrUnknownBackend) {
		t.Errorf("unknown backend: err = %v, want agent.ErrUnknownBackend", err)
	}

	// No override: the project's default, decided once and stored.
	def, err := f.tasks.Create(CreateTaskInput{ProjectID: p.ID, Prompt: "Fix the bug\nin main.go"})
	if err != nil {
		t.Fatal(err)
	}
	if def.Backend != string(agent.BackendOpenCode) || def.InteractionMode != agent.ModeAsk {
		t.Errorf("default task: backend %q mode %q, want opencode / ask", def.Backend, def.InteractionMode)
	}
	if def.Name != "Fix the bug" {
		t.Errorf("name from the prompt's first line = %q", def.Name)
	}
	// An override wins.
	over, err := f.tasks.Create(CreateTaskInput{ProjectID: p.ID, Prompt: "hi", Backend: string(agent.BackendClaudeCode), InteractionMode: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	if over.Backend != string(agent.BackendClaudeCode) || over.InteractionMode != agent.ModePlan {
		t.Errorf("override task: %q / %q, want claude-code / plan", over.Backend, over.InteractionMode)
	}
	// Changing the project's default later does not move existing tasks.
	if _, err := f.projects.SetDefaultBackend(p.ID, string(agent.BackendClaudeCode)); err != nil {
		t.Fatal(err)
	}
	again, err := f.tasks.Get(def.ID)
	if err != nil || again.Backend != string(agent.BackendOpenCode) {
		t.Errorf("stored backend moved to %q (%v) after the project default changed", again.Backend, err)
	}
	list, err := f.tasks.List(p.ID)
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %d tasks, %v; want 2", len(list), err)
	}
	if len(f.events.names) == 0 || f.events.names[0] != orchestrator.EventTaskUpdated {
		t.Errorf("creating tasks emitted %v, want %s", f.events.names, orchestrator.EventTaskUpdated)
	}
	if err := f.tasks.Delete(def.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.tasks.Get(def.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get after Delete: %v, want store.ErrNotFound", err)
	}
}

func TestTaskCreateTakesTheAgentsDefaults(t *testing.T) {
	gem := defaultsBackend{
		Unavailable: agent.Unavailable{Desc: agent.Info{Name: agent.BackendGemini, DisplayName: "Gemini CLI"}},
		model:       "gemini-9-pro", mode: agent.ModeAcceptEdits,
	}
	f := newFixture(t, gem)
	p, err := f.projects.Add(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Neither task nor project chose: the agent's settings apply.
	got, err := f.tasks.Create(CreateTaskInput{ProjectID: p.ID, Prompt: "hi", Backend: string(agent.BackendGemini)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "gemini-9-pro" || got.InteractionMode != agent.ModeAcceptEdits {
		t.Errorf("agent defaults not applied: model %q mode %q", got.Model, got.InteractionMode)
	}
	// What the task or the project chose wins over the agent's defaults.
	if _, err := f.projects.SetDefaultModel(p.ID, "project-model"); err != nil {
		t.Fatal(err)
	}
	got, err = f.tasks.Create(CreateTaskInput{ProjectID: p.ID, Prompt: "hi", Backend: string(agent.BackendGemini), InteractionMode: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "project-model" || got.InteractionMode != agent.ModeAsk {
		t.Errorf("explicit choices lost: model %q mode %q, want project-model / ask", got.Model, got.InteractionMode)
	}
}

// stopRecorder is the orchestrator as TaskService.Delete sees it.
type stopRecorder struct {
	stopped []string
	err     error
}

func (r *stopRecorder) Stop(_ context.Context, taskID string) error {
	r.stopped = append(r.stopped, taskID)
	return r.err
}

func TestTaskDeleteStopsItsAgentFirst(t *testing.T) {
	rec := &stopRecorder{err: errors.New("agent would not die")}
	f := newFixtureStopping(t, rec)
	p, err := f.projects.Add(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	task, err := f.tasks.Create(CreateTaskInput{ProjectID: p.ID, Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	// An agent that cannot be stopped keeps its task.
	if err := f.tasks.Delete(task.ID); err == nil || !strings.Contains(err.Error(), "could not stop its agent") {
		t.Fatalf("Delete with an unstoppable agent: %v, want a refusal naming the agent", err)
	}
	if _, err := f.tasks.Get(task.ID); err != nil {
		t.Fatalf("the task is gone although its agent was not stopped: %v", err)
	}
	rec.err = nil
	if err := f.tasks.Delete(task.ID); err != nil {
		t.Fatal(err)
	}
	if len(rec.stopped) != 2 || rec.stopped[1] != task.ID {
		t.Fatalf("stopped %v, want the task's agent stopped on each delete", rec.stopped)
	}
	if _, err := f.tasks.Get(task.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
}

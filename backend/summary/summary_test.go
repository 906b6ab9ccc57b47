package summary_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/history/oneshot"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/summary"
)

// TestMain lets the test binary act as a fake one-shot Claude Code
// ($JC_FAKE_ONESHOT=claude): `claude -p --output-format text` answering a
// summary of what it reads on stdin.
func TestMain(m *testing.M) {
	if os.Getenv("JC_FAKE_ONESHOT") == "claude" {
		in, _ := io.ReadAll(os.Stdin)
		if strings.Contains(string(in), "Write a title") && strings.Contains(string(in), "fix the parser") {
			fmt.Println("**Parser off-by-one fix.**")
			os.Exit(0)
		}
		if strings.Join(os.Args[1:], " ") != "-p --output-format text" || !strings.Contains(string(in), "fix the parser") {
			fmt.Fprintf(os.Stderr, "unexpected call %q / %q", os.Args[1:], in)
			os.Exit(2)
		}
		fmt.Println("Fixed the parser's off-by-one and added a test.")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type taskEvents struct {
	ch chan services.Task
}

func (e *taskEvents) Emit(name string, payload any) {
	if name == orchestrator.EventTaskUpdated {
		e.ch <- payload.(services.Task)
	}
}

// TestSummaryWhenTaskFinishes: with a summary agent set, a completed task
// gets the fake CLI's one-line summary, stored and emitted; without the
// setting (the default) nothing runs.
func TestSummaryWhenTaskFinishes(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "p", Path: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	task, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "fix", Prompt: "fix the parser", AgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := store.UpsertMessage(ctx, tx, store.MessageWrite{TaskID: task.ID, Format: "claude-code", Version: 1, Now: 1,
			Message: agent.Message{ID: "a", Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: "Fixed it."}}}}); err != nil {
			return err
		}
		return store.SetTaskStatus(ctx, tx, task.ID, store.StatusCompleted, "", 2)
	})
	if err != nil {
		t.Fatal(err)
	}
	ev := &taskEvents{ch: make(chan services.Task, 4)}
	s := &summary.Summaries{DB: db, Changed: services.TaskUpdated(ev),
		Resolve: func(context.Context, agent.BackendType) (string, error) { return os.Args[0], nil },
		Command: func(b agent.BackendType, bin, model string) (oneshot.Command, error) {
			c, err := oneshot.CommandFor(b, bin, model)
			c.Env = append(os.Environ(), "JC_FAKE_ONESHOT=claude")
			return c, err
		}}
	s.RunEnded(ctx, task.ID) // no summary agent set: nothing
	select {
	case got := <-ev.ch:
		t.Fatalf("a summary without the setting: %+v", got)
	case <-time.After(300 * time.Millisecond):
	}
	if err := store.SetSetting(ctx, db.W, store.SettingSummaryAgent, string(agent.BackendClaudeCode)); err != nil {
		t.Fatal(err)
	}
	s.RunEnded(ctx, task.ID)
	select {
	case got := <-ev.ch:
		if got.ID != task.ID || got.Summary != "Fixed the parser's off-by-one and added a test." || got.Name != "fix" {
			t.Errorf("emitted %+v", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no summary emitted")
	}
	stored, err := store.GetTask(ctx, db.R, task.ID)
	if err != nil || stored.Summary != "Fixed the parser's off-by-one and added a test." {
		t.Errorf("stored summary %q, %v", stored.Summary, err)
	}
	// Searchable next to its task.
	hits, err := store.Search(ctx, db.R, store.SearchQuery{Text: "Fixed"})
	if err != nil || len(hits) != 1 || hits[0].TaskSummary != stored.Summary {
		t.Errorf("search hits %+v, %v", hits, err)
	}
}

// TestTitleWhenTaskCreatedUnnamed: with a one-shot agent set, a task
// created without a name is first named from its prompt, then gets the
// fake CLI's title (stored and emitted); a task the user named, or renamed
// before the title came, keeps its name; without the setting nothing runs.
func TestTitleWhenTaskCreatedUnnamed(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := agent.NewRegistry()
	reg.Register(agent.Unavailable{Desc: agent.Info{Name: agent.BackendClaudeCode, DisplayName: "Claude Code"}})
	p, err := services.NewProjectService(ctx, db, reg, nil, nil, nil, nil).Add(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ev := &taskEvents{ch: make(chan services.Task, 8)}
	sum := &summary.Summaries{DB: db, Changed: services.TaskUpdated(ev),
		Resolve: func(context.Context, agent.BackendType) (string, error) { return os.Args[0], nil },
		Command: func(b agent.BackendType, bin, model string) (oneshot.Command, error) {
			c, err := oneshot.CommandFor(b, bin, model)
			c.Env = append(os.Environ(), "JC_FAKE_ONESHOT=claude")
			return c, err
		}}
	tasks := services.NewTaskService(ctx, db, reg, ev, nil, nil)
	services.SetTaskTitler(tasks, sum)
	next := func(what string) services.Task {
		t.Helper()
		select {
		case got := <-ev.ch:
			return got
		case <-time.After(30 * time.Second):
			t.Fatalf("no event: %s", what)
		}
		return services.Task{}
	}
	quiet := func(what string) {
		t.Helper()
		select {
		case got := <-ev.ch:
			t.Fatalf("%s: emitted %+v", what, got)
		case <-time.After(300 * time.Millisecond):
		}
	}

	first, err := tasks.Create(services.CreateTaskInput{ProjectID: p.ID, Prompt: "fix the parser\nit drops the last token"})
	if err != nil || first.Name != "fix the parser" {
		t.Fatalf("created %+v, %v", first, err)
	}
	next("created")
	quiet("no one-shot agent set")

	if err := store.SetSetting(ctx, db.W, store.SettingSummaryAgent, string(agent.BackendClaudeCode)); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Create(services.CreateTaskInput{ProjectID: p.ID, Prompt: "fix the parser\nit drops the last token"})
	if err != nil {
		t.Fatal(err)
	}
	next("created")
	if got := next("titled"); got.ID != task.ID || got.Name != "Parser off-by-one fix" {
		t.Errorf("titled %+v", got)
	}
	if stored, err := store.GetTask(ctx, db.R, task.ID); err != nil || stored.Name != "Parser off-by-one fix" {
		t.Errorf("stored name %q, %v", stored.Name, err)
	}

	named, err := tasks.Create(services.CreateTaskInput{ProjectID: p.ID, Name: "mine", Prompt: "fix the parser"})
	if err != nil {
		t.Fatal(err)
	}
	next("created")
	quiet("a task the user named")

	// Renamed by the user before the title came: the title is dropped.
	if _, err := tasks.Rename(first.ID, "my own name"); err != nil {
		t.Fatal(err)
	}
	next("renamed")
	if err := sum.Title(ctx, agent.BackendClaudeCode, first.ID, "fix the parser"); err != nil {
		t.Fatal(err)
	}
	quiet("a renamed task")
	for id, want := range map[string]string{first.ID: "my own name", named.ID: "mine"} {
		if stored, err := store.GetTask(ctx, db.R, id); err != nil || stored.Name != want {
			t.Errorf("task %s named %q, want %q (%v)", id, stored.Name, want, err)
		}
	}
}

package services_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/compare"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// fakeAgents stands in for the orchestrator: "starting" a task prepares its
// worktree (as the orchestrator's Cwd hook does), writes that agent's
// answer into it, stores a finished turn with its cost, marks the task
// completed and emits "task:updated" through the watching emitter.
type fakeAgents struct {
	t      *testing.T
	db     *store.DB
	ws     *workspace.Manager
	emit   services.Emitter
	mu     sync.Mutex
	stops  []string
	answer map[string]string // backend → file content written
}

func (a *fakeAgents) Start(ctx context.Context, taskID string) error {
	info, err := a.ws.Prepare(ctx, taskID)
	if err != nil {
		return err
	}
	tr, err := store.LoadTaskRun(ctx, a.db.R, taskID)
	if err != nil {
		return err
	}
	body := a.answer[string(tr.AgentBackend)]
	if err := os.WriteFile(filepath.Join(info.Cwd, "answer.txt"), []byte(body), 0o644); err != nil {
		return err
	}
	now := store.Now()
	if err := store.SetTaskStatus(ctx, a.db.W, taskID, store.StatusRunning, "", now); err != nil {
		return err
	}
	ev := `{"type":"complete","result":{"isError":false,"cost":{"costUsd":0.25},"usage":{"inputTokens":1000,"outputTokens":200}}}`
	if err := store.InsertTaskEvent(ctx, a.db.W, taskID, "complete", []byte(ev), now); err != nil {
		return err
	}
	if err := store.SetTaskStatus(ctx, a.db.W, taskID, store.StatusCompleted, "", now+1500); err != nil {
		return err
	}
	tr, _ = store.LoadTaskRun(ctx, a.db.R, taskID)
	a.emit.Emit("task:updated", services.TaskViewOf(tr))
	return nil
}

func (a *fakeAgents) Stop(_ context.Context, taskID string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stops = append(a.stops, taskID)
	return nil
}

// TestCompareThreeAgentsCheckAndKeep: three agents on one prompt, each in
// its own worktree; the project's check command (argv, no shell) runs in
// each when it finishes and its output is kept; keeping one merges it into
// main and removes the other worktrees and branches from disk.
func TestCompareThreeAgentsCheckAndKeep(t *testing.T) {
	f := newGitFixture(t)
	ctx := t.Context()
	reg := agent.NewRegistry()
	for _, b := range []agent.BackendType{agent.BackendClaudeCode, agent.BackendOpenCode, agent.BackendGemini} {
		reg.Register(agent.Unavailable{Desc: agent.Info{Name: b, DisplayName: string(b)}})
	}
	ws := workspace.New(f.DB, f.G, nil)
	tasks := services.NewTaskService(ctx, f.DB, reg, nil, ws, nil)
	agents := &fakeAgents{t: t, db: f.DB, ws: ws, answer: map[string]string{
		"claude-code": "good\n", "opencode": "bad\n", "gemini": "good\nand more\n"}}
	var c *compare.Comparisons
	emit := services.WatchTasks(f.rec, func(tk services.Task) { c.TaskChanged(ctx, services.CompareTaskState(tk)) })
	agents.emit = emit
	c = services.NewComparisons(f.DB, tasks, ws, agents, emit)
	cs := services.NewCompareService(ctx, c)

	// The check passes when answer.txt starts with "good"; quoting is argv's.
	if _, err := cs.SetCheckCommand(f.Project.ID, `grep -q "^good" answer.txt`); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.SetCheckCommand(f.Project.ID, `sh -c 'unterminated`); err == nil {
		t.Fatal("an unparsable check command was accepted")
	}
	if _, err := cs.Create(services.CreateCompareInput{ProjectID: f.Project.ID, Prompt: "p", Agents: []services.CompareAgent{{Backend: "claude-code"}}}); err == nil {
		t.Fatal("a comparison of one agent was accepted")
	}
	v, err := cs.Create(services.CreateCompareInput{ProjectID: f.Project.ID, Prompt: "Write answer.txt", Agents: []services.CompareAgent{
		{Backend: "claude-code", Model: "opus"}, {Backend: "opencode"}, {Backend: "gemini"}}})
	if err != nil {
		t.Fatal(err)
	}
	c.Wait()
	v, err = cs.Get(v.Group.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Members) != 3 {
		t.Fatalf("members = %d", len(v.Members))
	}
	wantCheck := map[string]string{"claude-code": store.CheckPassed, "opencode": store.CheckFailed, "gemini": store.CheckPassed}
	paths := map[string]string{}
	for _, m := range v.Members {
		if m.WorktreePath == "" || m.WorktreePath == f.Repo {
			t.Fatalf("%s: not in its own worktree: %q", m.Task.Backend, m.WorktreePath)
		}
		paths[m.Task.ID] = m.WorktreePath
		if m.Check == nil || m.Check.Status != wantCheck[m.Task.Backend] {
			t.Errorf("%s: check = %+v, want %s", m.Task.Backend, m.Check, wantCheck[m.Task.Backend])
		}
		if m.Task.Status != store.StatusCompleted || m.CostUSD != 0.25 || m.InputTokens != 1000 || m.OutputTokens != 200 || m.DurationMs != 1500 {
			t.Errorf("%s: status %s cost %v tokens %d/%d duration %d", m.Task.Backend, m.Task.Status, m.CostUSD, m.InputTokens, m.OutputTokens, m.DurationMs)
		}
		if !m.Diff.Available || len(m.Diff.Files) != 1 || m.Diff.Files[0].Path != "answer.txt" || m.Diff.Added == 0 {
			t.Errorf("%s: diff = %+v", m.Task.Backend, m.Diff)
		}
	}
	if m := v.Members[1]; m.Check.ExitCode != 1 {
		t.Errorf("failed check exit code = %d, want 1", m.Check.ExitCode)
	}
	if v.Members[0].Task.Model != "opus" {
		t.Errorf("model = %q", v.Members[0].Task.Model)
	}

	kept := v.Members[2].Task.ID // gemini
	out, err := cs.Keep(v.Group.ID, kept)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Removed) != 2 || out.Into != "main" {
		t.Fatalf("keep = %+v", out)
	}
	// The kept answer is merged into main, in the project folder too.
	if got := f.Git(f.Repo, "show", "main:answer.txt"); got != "good\nand more" {
		t.Errorf("main:answer.txt = %q", got)
	}
	// Every worktree is gone from disk (the kept one once merged), and so
	// are the branches of the others.
	for id, p := range paths {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("task %s: worktree %s still on disk (%v)", id, p, err)
		}
	}
	branches := f.Git(f.Repo, "branch", "--list")
	if strings.Count(branches, "\n")+1 != 1 || !strings.Contains(branches, "main") {
		t.Errorf("branches left: %q", branches)
	}
	if g, _ := cs.Get(v.Group.ID); g.Group.KeptTaskID != kept {
		t.Errorf("kept = %q", g.Group.KeptTaskID)
	}
	if len(agents.stops) != 2 {
		t.Errorf("stopped %v, want the two others", agents.stops)
	}
}

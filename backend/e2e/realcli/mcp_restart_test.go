package realcli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/mcpserver"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
)

// restartApp is one run of the app for TestClaudeCodeMCPAcrossRestart:
// its orchestrator (agents behind relays in rdir) and MCP server (its
// state in state), wired as orchestrator_wiring.go does.
func restartApp(t *testing.T, db *store.DB, mk func(*store.DB) agent.Backend, rdir, state string, keep bool) (*orchestrator.Orchestrator, *mcpserver.Server, func()) {
	t.Helper()
	reg := agent.NewRegistry()
	reg.Register(mk(db))
	var srv *mcpserver.Server
	orch, err := orchestrator.New(orchestrator.Options{DB: db, Backends: reg, Formats: agents.Formats(), Emitter: &recorder{},
		TaskView: services.TaskViewOf, Relays: &relay.Transport{Dir: rdir}, KeepOnQuit: keep,
		MCP: func(ctx context.Context, t store.TaskRun) (*agent.MCPServer, error) { return srv.For(ctx, t.ID) }})
	if err != nil {
		t.Fatal(err)
	}
	if srv, err = mcpserver.New(mcpserver.Options{DB: db, Orchestrator: orch, StateFile: state}); err != nil {
		t.Fatal(err)
	}
	quit := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := orch.Close(ctx); err != nil {
			t.Errorf("quit: %v", err)
		}
		_ = reg.Dispose(ctx)
		_ = srv.Close(ctx)
	}
	return orch, srv, quit
}

// TestClaudeCodeMCPAcrossRestart: the real Claude Code runs behind its
// relay; the app quits with "keep" once the first turn is done (the agent
// waits for input; its --mcp-config file is gone with the session) and a
// new app adopts it. A follow-up then makes the model call
// mcp__jean-claude__report_progress: Claude Code calls the URL and token it
// read at its start, the next app's server answers, and the report lands on
// the task.
func TestClaudeCodeMCPAcrossRestart(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "claude")
	runMCPAcrossRestart(t, mcpCase{name: agent.BackendClaudeCode, tool: "mcp__jean-claude__report_progress",
		mk: func(model *fakemodel.Server) func(db *store.DB) agent.Backend {
			return wrapped(t, agent.BackendClaudeCode, claudeEnv(t, model), claude.New(claude.Options{Binary: b}))
		}})
}

// TestCodexMCPAcrossRestart: the same with `codex app-server`, whose MCP
// client holds the server's URL from thread/start and its token in the
// app-server's environment.
func TestCodexMCPAcrossRestart(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "codex")
	runMCPAcrossRestart(t, mcpCase{name: agent.BackendCodex, tool: "mcp__jean-claude__report_progress",
		mk: func(model *fakemodel.Server) func(db *store.DB) agent.Backend {
			return wrapped(t, agent.BackendCodex, codexEnv(t, model), codex.New(codex.Options{Binary: b}))
		}})
}

// runMCPAcrossRestart: c's agent behind its relay; the first turn is
// done, the app quits with "keep" and the next app adopts the agent (the
// task stays completed, "continued after restart"); a follow-up makes the
// model call c.tool, and the report must land on the task with the tool's
// result (permissions, if the agent asks, are allowed once).
func runMCPAcrossRestart(t *testing.T, c mcpCase) {
	ctx := context.Background()
	const progress, done = "Still at it after the restart.", "Reported across the restart."
	model, err := fakemodel.Start(fakemodel.Options{Scripts: map[string]fakemodel.Script{"mcprestart": {
		{Tools: []fakemodel.ToolCall{fakemodel.Named(c.tool, map[string]any{"message": progress})}},
		{Text: done},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rdir, err := os.MkdirTemp("", "jcrr") // short: the relays' sockets live there
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rdir) })
	state := filepath.Join(dir, "mcp-server.json")
	mk := c.mk(model)
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "realcli", Path: newProject(t), IsGitRepo: true})
	if err != nil {
		t.Fatal(err)
	}
	task, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "MCP across a restart",
		Prompt: "Say hello.", AgentBackend: c.name, Model: c.taskModel, InteractionMode: agent.ModeAsk})
	if err != nil {
		t.Fatal(err)
	}
	status := func() store.TaskRun {
		tr, err := store.LoadTaskRun(ctx, db.R, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	wait := func(o *orchestrator.Orchestrator, what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(3 * time.Minute); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				tr := status()
				t.Fatalf("timed out waiting for %s (task %s %q)", what, tr.Status, tr.StatusReason)
			}
			if reqs, _ := o.PendingRequests(ctx, task.ID); len(reqs) == 1 && reqs[0].Kind == store.RequestPermission {
				_ = o.RespondToPermission(ctx, task.ID, reqs[0].RequestID, allowOnce)
			}
		}
	}

	o1, _, quit1 := restartApp(t, db, mk, rdir, state, true)
	if err := o1.Start(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	wait(o1, "the first turn", func() bool { return status().Status == store.StatusCompleted })
	quit1()
	if ms, _ := relay.List(rdir); len(ms) != 1 || !ms[0].Alive() {
		t.Fatalf("relays after quit with keep: %+v", ms)
	}

	o2, srv2, quit2 := restartApp(t, db, mk, rdir, state, false)
	t.Cleanup(quit2)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	srv2.ForgetKept()
	if tr := status(); tr.Status != store.StatusCompleted || tr.StatusReason != orchestrator.ReasonContinued {
		t.Errorf("adopted while waiting for input: %s %q", tr.Status, tr.StatusReason)
	}
	if err := o2.SendMessage(ctx, task.ID, "[scenario:mcprestart] Report your progress."); err != nil {
		t.Fatal(err)
	}
	wait(o2, "the follow-up's turn", func() bool {
		msgs, _ := o2.Messages(ctx, task.ID)
		return status().Status == store.StatusCompleted && strings.Contains(texts(msgs, agent.RoleAssistant), done)
	})
	msgs, err := o2.Messages(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	var reported bool
	var id string
	for _, m := range msgs {
		for _, pt := range m.Parts {
			if pt.Type == agent.PartSystemStatus && pt.Subtype == "progress" && pt.Text == progress {
				reported = true
			}
			if pt.Type == agent.PartToolUse && strings.Contains(pt.ToolName, "report_progress") {
				id = pt.ToolID
			}
		}
	}
	if !reported || id == "" || !toolFinished(msgs, id) {
		t.Errorf("after the restart: progress stored %v, tool call %q finished %v", reported, id, id != "" && toolFinished(msgs, id))
		for _, m := range msgs {
			for _, pt := range m.Parts {
				if pt.Type == agent.PartToolResult {
					t.Logf("tool result %s: %s", pt.ToolID, pt.Content)
				}
			}
		}
	}
}

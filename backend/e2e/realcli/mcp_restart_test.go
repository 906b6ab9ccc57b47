package realcli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
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
	runMCPAcrossRestart(t, codexMCP(t))
}

// The same across a restart for the other agents (the first turn, the
// quit with "keep" and the adoption, then a follow-up that calls the
// app's tool). Headless Gemini CLI runs a process per turn, so its
// follow-up reads a new settings file; the ACP agents keep the server
// they got on session/new; OpenCode's shared server is adopted with its
// registration of the app's server (its token from the previous app).

func TestGeminiMCPAcrossRestart(t *testing.T) {
	t.Parallel()
	runMCPAcrossRestart(t, geminiMCP(t))
}

func TestGeminiACPMCPAcrossRestart(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "gemini")
	runMCPAcrossRestart(t, acpMCP(t, "acp.google.gemini", b, "mcp_jean-claude_report_progress", geminiEnv))
}

func TestCodexACPMCPAcrossRestart(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "codex-acp")
	runMCPAcrossRestart(t, acpMCP(t, "acp.openai.codex", b, "mcp__jean-claude__report_progress", codexEnv))
}

func TestClaudeCodeACPMCPAcrossRestart(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "claude-code-acp")
	runMCPAcrossRestart(t, acpMCP(t, "acp.anthropic.claude-code", b, "mcp__jean-claude__report_progress", claudeEnv))
}

func TestOpenCodeMCPAcrossRestart(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "opencode")
	proj, rdir := newProject(t), relayTempDir(t)
	runMCPAcrossRestart(t, mcpCase{name: agent.BackendOpenCode, tool: "jean-claude_report_progress", taskModel: "fake/fake-basic",
		project: proj, relayDir: rdir, shared: true, mk: func(model *fakemodel.Server) func(db *store.DB) agent.Backend {
			return openCodeBackend(t, b, model, proj, &relay.Transport{Dir: rdir})
		}})
}

// relayGone is how long a relay may take to end after its app's Close.
const relayGone = 5 * time.Second

// relayTempDir is a relay directory with a short path (the relays'
// sockets live there), removed at the end. The test's apps are closed by
// then (cleanups run last first): a relay whose agent's end the app
// stored removes its files and exits on its own, a few milliseconds
// after the app's Close returned (CI once listed one ~10 ms before it
// ended). One still running relayGone later is an error, and it is
// killed with its agent's group, so that a failed test leaves no agent
// behind either.
func relayTempDir(t *testing.T) string {
	rdir, err := os.MkdirTemp("", "jcrr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ms, _ := relay.List(rdir)
		for _, m := range ms {
			for start := time.Now(); m.Alive() && time.Since(start) < relayGone; {
				time.Sleep(10 * time.Millisecond)
			}
			if m.Alive() {
				t.Errorf("relay %s (%s) still runs %v after the test", m.ID, m.Name, relayGone)
				_ = syscall.Kill(-m.AgentPID, syscall.SIGKILL)
				_ = syscall.Kill(m.RelayPID, syscall.SIGKILL)
			}
		}
		os.RemoveAll(rdir)
	})
	return rdir
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
	rdir := c.relayDir
	if rdir == "" {
		rdir = relayTempDir(t)
	}
	state := filepath.Join(dir, "mcp-server.json")
	mk := c.mk(model)
	proj := c.project
	if proj == "" {
		proj = newProject(t)
	}
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "realcli", Path: proj, IsGitRepo: true})
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
	// What outlives the app: the agent's relay (OpenCode: its shared
	// server's); none for an agent run per turn.
	kept, _ := relay.List(rdir)
	if c.perTurn && len(kept) != 0 || !c.perTurn && (len(kept) != 1 || !kept[0].Alive()) {
		t.Fatalf("relays after quit with keep: %+v", kept)
	}

	o2, srv2, quit2 := restartApp(t, db, mk, rdir, state, false)
	t.Cleanup(quit2)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	srv2.ForgetKept()
	want := orchestrator.ReasonContinued
	if c.perTurn || c.shared {
		want = "" // nothing of the task's own was adopted
	}
	if tr := status(); tr.Status != store.StatusCompleted || tr.StatusReason != want {
		t.Errorf("adopted while waiting for input: %s %q, want completed %q", tr.Status, tr.StatusReason, want)
	}
	if err := o2.SendMessage(ctx, task.ID, "[scenario:mcprestart] Report your progress."); err != nil {
		t.Fatal(err)
	}
	wait(o2, "the follow-up's turn", func() bool {
		msgs, _ := o2.Messages(ctx, task.ID)
		return status().Status == store.StatusCompleted && strings.Contains(texts(msgs, agent.RoleAssistant), done)
	})
	// The follow-up ran on what the previous app left running, not on
	// a new agent (or server) started in its place.
	if now, _ := relay.List(rdir); len(kept) == 1 && (len(now) != 1 || now[0].ID != kept[0].ID) {
		t.Errorf("relays after the follow-up: %+v, want the kept one (%s) only", now, kept[0].ID)
	}
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

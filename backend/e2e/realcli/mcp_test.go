package realcli

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/mcpserver"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
)

// What the "mcp" scenario's model says and sends to the app's MCP tools.
const (
	mcpFirst    = "Reporting progress to Jean-Claude first."
	mcpProgress = "Read the code; about to pick a database."
	mcpQuestion = "Which database should I use?"
	mcpAnswer   = "SQLite"
	mcpDone     = "Using the answer from Jean-Claude."
	mcpSubDone  = "Sub-task answer: the tests pass."
)

func mcpScript() fakemodel.Script {
	return fakemodel.Script{
		{Text: mcpFirst, Tools: []fakemodel.ToolCall{
			fakemodel.Named("mcp__jean-claude__report_progress", map[string]any{"message": mcpProgress})}},
		{Tools: []fakemodel.ToolCall{
			fakemodel.Named("mcp__jean-claude__ask_user", map[string]any{"question": mcpQuestion, "options": []string{"SQLite", "Postgres"}})}},
		{Tools: []fakemodel.ToolCall{
			fakemodel.Named("mcp__jean-claude__create_subtask", map[string]any{"prompt": "[scenario:sub] Run the tests."})}},
		{Text: mcpDone},
	}
}

// TestClaudeCodeMCP: the real Claude Code CLI gets the app's MCP server
// (--mcp-config, a 0600 file) in Ask mode; the scripted model calls
// mcp__jean-claude__report_progress, then mcp__jean-claude__ask_user. The
// app stores the progress report on the task, shows the question as a
// pending question (answered here like the question card would), and the
// answer reaches the model as the tool's result; then create_subtask runs a
// sub-task (the real CLI again) whose answer reaches the model. No call asks
// for a permission (the server's tools are allowed with mcp__jean-claude).
func TestClaudeCodeMCP(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "claude")
	ctx := context.Background()
	proj := newProject(t)
	model, err := fakemodel.Start(fakemodel.Options{Scripts: map[string]fakemodel.Script{
		"mcp": mcpScript(), "sub": {{Text: mcpSubDone}}}, KeepBodies: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	h := mcpHarness(t, model, proj, wrapped(t, agent.BackendClaudeCode, claudeEnv(t, model), claude.New(claude.Options{Binary: b})),
		agent.BackendClaudeCode, "", "[scenario:mcp] Use Jean-Claude's tools.")
	orch, task := h.orch, struct{ ID string }{h.task}
	q := waitQuestion(t, h)
	if q.Request.Question != mcpQuestion || len(q.Request.Options) != 2 {
		t.Errorf("question = %+v", q.Request)
	}
	if err := orch.RespondToQuestion(ctx, task.ID, q.RequestID, [][]string{{mcpAnswer}}); err != nil {
		t.Fatal(err)
	}
	// The user's words are stored before they are sent (commit, then act).
	if as, err := orch.QuestionAnswers(ctx, task.ID); err != nil || len(as) != 1 || len(as[0].Answers) != 1 ||
		len(as[0].Answers[0]) != 1 || as[0].Answers[0][0] != mcpAnswer || as[0].RequestID != q.RequestID {
		t.Errorf("stored answers %+v, %v; want [[%q]]", as, err, mcpAnswer)
	}
	h.waitFor(t, "the turn to end", 3*time.Minute, func() bool { return !h.busy() })
	wantStatus(t, h, store.StatusCompleted)
	msgs := h.messages(t)
	wantText(t, msgs, mcpDone)
	checkMCPStored(t, msgs)
	var last fakemodel.Request
	for _, r := range model.Requests() {
		if r.Scenario == "mcp" {
			last = r
		}
	}
	if !strings.Contains(string(last.Body), mcpAnswer) {
		t.Errorf("the answer %q did not reach the model", mcpAnswer)
	}
	checkSubtask(t, h, last)
	noTokenStored(t, h)
	if rec := h.rec; len(rec.agentEvents(agent.EventPermissionRequest)) > 0 {
		t.Errorf("the app's MCP tools asked for permission: %+v", rec.agentEvents(agent.EventPermissionRequest))
	}
	if t.Failed() {
		h.logRequests(t, 0)
		h.logFrames(t, 0)
	}
}

// waitQuestion waits for the task's pending question (answering nothing
// else: a permission request fails the test).
func waitQuestion(t *testing.T, h *harness) store.PendingRequest {
	t.Helper()
	var q *store.PendingRequest
	ok := h.waitFor(t, "the ask_user question", 3*time.Minute, func() bool {
		reqs, err := h.orch.PendingRequests(context.Background(), h.task)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range reqs {
			if r.Kind == store.RequestQuestion {
				q = &r
				return true
			}
			t.Fatalf("unexpected request: %+v", r)
		}
		return !h.busy()
	})
	if !ok || q == nil {
		h.logRequests(t, 0)
		h.logFrames(t, 0)
		t.Fatalf("no question (status %s)", h.status().Status)
	}
	return *q
}

// checkMCPStored: the progress report is a system-status part, and both
// MCP tool calls are normalized tool calls with their results.
func checkMCPStored(t *testing.T, msgs []agent.Message) {
	t.Helper()
	var progress bool
	results := map[string]string{}
	uses := map[string]string{} // tool name → id
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch {
			case p.Type == agent.PartSystemStatus && p.Subtype == orchestrator.SubtypeProgress && p.Text == mcpProgress:
				progress = true
			case p.Type == agent.PartToolUse:
				uses[p.ToolName] = p.ToolID
			case p.Type == agent.PartToolResult && !p.IsError:
				results[p.ToolID] = p.TextContent()
			}
		}
	}
	if !progress {
		t.Error("the progress report is not stored on the task")
	}
	for name, want := range map[string]string{"mcp__jean-claude__report_progress": "Reported.", "mcp__jean-claude__ask_user": mcpAnswer,
		"mcp__jean-claude__create_subtask": mcpSubDone} {
		id, ok := uses[name]
		if !ok {
			t.Errorf("no stored tool call %s (calls: %v)", name, uses)
			continue
		}
		if got := results[id]; !strings.Contains(got, want) {
			t.Errorf("%s result = %q, want %q", name, got, want)
		}
	}
}

// checkSubtask: create_subtask made a sub-task (the real Claude Code again,
// same settings) linked to the task, ran it to its end, and its result
// reached the parent's model.
func checkSubtask(t *testing.T, h *harness, last fakemodel.Request) {
	t.Helper()
	_, children, err := store.TaskLinks(context.Background(), h.db.R, h.task)
	if err != nil || len(children) != 1 {
		t.Fatalf("sub-tasks = %+v, %v", children, err)
	}
	c := children[0]
	if c.Kind != store.LinkSpawn || c.Status != string(store.StatusCompleted) || c.Backend != string(agent.BackendClaudeCode) {
		t.Errorf("sub-task = %+v", c)
	}
	if !strings.Contains(string(last.Body), mcpSubDone) {
		t.Errorf("the sub-task's result %q did not reach the model", mcpSubDone)
	}
}

// mcpHarness is one task on backend mk with the app's MCP server wired to
// its orchestrator (as orchestrator_wiring.go does), started with prompt.
func mcpHarness(t *testing.T, model *fakemodel.Server, proj string, mk func(db *store.DB) agent.Backend, name agent.BackendType, taskModel, prompt string) *harness {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reg := agent.NewRegistry()
	reg.Register(mk(db))
	var srv *mcpserver.Server
	var tokMu sync.Mutex
	var tokens []string
	rec := &recorder{}
	orch, err := orchestrator.New(orchestrator.Options{DB: db, Backends: reg, Formats: agents.Formats(), Emitter: rec,
		TaskView: services.TaskViewOf,
		MCP: func(_ context.Context, t store.TaskRun) (*agent.MCPServer, error) {
			m, err := srv.Grant(t.ID)
			if m != nil {
				tokMu.Lock()
				tokens = append(tokens, m.Token)
				tokMu.Unlock()
			}
			return m, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err = mcpserver.New(mcpserver.Options{DB: db, Orchestrator: orch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = orch.Close(ctx)
		_ = reg.Dispose(ctx)
		_ = srv.Close(ctx)
	})
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "realcli", Path: proj, IsGitRepo: true})
	if err != nil {
		t.Fatal(err)
	}
	task, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "real MCP " + string(name),
		Prompt: prompt, AgentBackend: name, Model: taskModel, InteractionMode: agent.ModeAsk})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, db: db, orch: orch, rec: rec, model: model, proj: proj, task: task.ID, start: time.Now(),
		mcpTokens: func() []string { tokMu.Lock(); defer tokMu.Unlock(); return slices.Clone(tokens) }}
	if err := orch.Start(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestOpenCodeMCP: the real OpenCode gets the app's MCP server through its
// server's POST /mcp; the scripted model calls jean-claude_report_progress
// (OpenCode names an MCP tool <server>_<tool>) and the app stores it.
func TestOpenCodeMCP(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "opencode")
	proj := newProject(t)
	model, err := fakemodel.Start(fakemodel.Options{Scripts: map[string]fakemodel.Script{"ocmcp": {
		{Text: mcpFirst, Tools: []fakemodel.ToolCall{fakemodel.Named("jean-claude_report_progress", map[string]any{"message": mcpProgress})}},
		{Text: mcpDone},
	}}, KeepBodies: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	h := mcpHarness(t, model, proj, openCodeBackend(t, b, model, proj), agent.BackendOpenCode, "fake/fake-basic", "[scenario:ocmcp] Report progress.")
	h.waitFor(t, "the turn to end", 4*time.Minute, func() bool { return !h.busy() })
	msgs := h.messages(t)
	wantText(t, msgs, mcpDone)
	var progress, called bool
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == agent.PartSystemStatus && p.Subtype == orchestrator.SubtypeProgress && p.Text == mcpProgress {
				progress = true
			}
			if p.Type == agent.PartToolUse && p.ToolName == "jean-claude_report_progress" {
				called = true
			}
		}
	}
	if !progress || !called {
		t.Errorf("progress stored %v, tool call stored %v", progress, called)
	}
	noTokenStored(t, h)
	if t.Failed() {
		h.logRequests(t, 0)
		h.logFrames(t, 0)
	}
}

// noTokenStored fails when a stored raw frame of the task carries a bearer
// token (the app's MCP token must never reach the database): one of the
// tokens granted, or any "Bearer " header value but the redacted
// "Bearer [token]" (the ACP client stores its session/new that way).
func noTokenStored(t *testing.T, h *harness) {
	t.Helper()
	toks := h.mcpTokens()
	if len(toks) == 0 {
		t.Error("no MCP token was granted")
	}
	for f, err := range store.RawFrames(context.Background(), h.db.R, h.task) {
		if err != nil {
			continue
		}
		data := string(f.Data)
		if strings.Count(data, "Bearer ") != strings.Count(data, "Bearer [token]") {
			t.Errorf("raw frame %d holds a bearer token", f.Seq)
		}
		for _, tok := range toks {
			if tok != "" && strings.Contains(data, tok) {
				t.Errorf("raw frame %d holds the MCP token", f.Seq)
			}
		}
	}
}

package realcli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Texts the scripted model answers; the steps look for them in the store.
const (
	textAnswer      = "Plain answer: hello from the fake model."
	allowFirst      = "I'll create hello.txt for you."
	allowSecond     = "File written. Now a shell command."
	allowDone       = "Done: hello.txt was written and the command ran."
	readonlyFirst   = "I'll look at hello.txt with a read-only command."
	readonlyDone    = "Read-only command done: hello.txt holds the greeting."
	denyFirst       = "I'll create denied.txt with a command."
	denyDone        = "Understood: denied.txt was not created."
	followupAnswer  = "Follow-up answered: nothing else to change."
	afterStopAnswer = "Back after the stop: still here."
)

// scripts are the model's answers, shared by every CLI (the server maps
// Write/Shell onto each CLI's own tools).
func scripts(proj string) map[string]fakemodel.Script {
	return map[string]fakemodel.Script{
		"text": {{Text: textAnswer}},
		"main": {
			{Text: allowFirst, Tools: []fakemodel.ToolCall{
				fakemodel.Write(filepath.Join(proj, "hello.txt"), "Hello from the fake model!\n")}},
			{Text: allowSecond, Tools: []fakemodel.ToolCall{
				fakemodel.Shell("echo shell-ran > shell.txt", "Write shell.txt")}},
			{Text: allowDone},
		},
		// A read-only command: agents with a read-only allowlist (Claude
		// Code's, Gemini's) run it unasked unless Ask is made to ask.
		"readonly": {
			{Text: readonlyFirst, Tools: []fakemodel.ToolCall{fakemodel.Shell("cat hello.txt", "Show hello.txt")}},
			{Text: readonlyDone},
		},
		"deny": {
			{Text: denyFirst, Tools: []fakemodel.ToolCall{fakemodel.Shell("touch denied.txt", "Create denied.txt")}},
			{Text: denyDone},
		},
		"followup":  {{Text: followupAnswer}},
		"afterstop": {{Text: afterStopAnswer}},
		"slow":      {{Text: "Counting slowly:", Slow: 200 * time.Millisecond, SlowFor: 90 * time.Second}},
	}
}

// recorder is the orchestrator's Emitter: it keeps every emit.
type recorder struct {
	mu  sync.Mutex
	evs []emitted
}

type emitted struct {
	name    string
	payload any
}

func (r *recorder) Emit(name string, payload any) {
	r.mu.Lock()
	r.evs = append(r.evs, emitted{name, payload})
	r.mu.Unlock()
}

func (r *recorder) all() []emitted {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

// agentEvents returns the emitted agent events of type typ.
func (r *recorder) agentEvents(typ agent.EventType) []agent.Event {
	var out []agent.Event
	for _, e := range r.all() {
		if p, ok := e.payload.(orchestrator.AgentEventPayload); ok && p.Event.Type == typ {
			out = append(out, p.Event)
		}
	}
	return out
}

// statuses returns the task statuses emitted with "task:updated", deduped
// consecutively.
func (r *recorder) statuses() []string {
	var out []string
	for _, e := range r.all() {
		if e.name != "task:updated" {
			continue
		}
		var v struct {
			Status string `json:"status"`
		}
		b, _ := json.Marshal(e.payload)
		_ = json.Unmarshal(b, &v)
		if len(out) == 0 || out[len(out)-1] != v.Status {
			out = append(out, v.Status)
		}
	}
	return out
}

// agentCase is one agent under test.
type agentCase struct {
	format string                // the raw frames' format
	mode   agent.InteractionMode // the task's mode
	// asks: the agent asks permissions in mode (false: headless Gemini).
	asks bool
	// wantAsked are the tool names the main step's permission requests
	// carry (nil: at least one edit and one command asked, any names).
	wantAsked []string
	taskModel string
	mk        func(db *store.DB) agent.Backend
	// bypassAllows: in bypass mode the agent still asks, and the app
	// allows each request itself (Claude Code under its ask rule).
	bypassAllows bool
}

// harness is one backend under test: one task, steps run in order.
type harness struct {
	t     *testing.T
	c     agentCase
	db    *store.DB
	orch  *orchestrator.Orchestrator
	rec   *recorder
	model *fakemodel.Server
	proj  string
	task  string
	start time.Time
	known map[string]bool // tool ids stored before the current step
	// mcpTokens are the MCP tokens granted to the task (mcpHarness).
	mcpTokens func() []string
}

// newHarness opens a store and an orchestrator over the backend c.mk makes.
func newHarness(t *testing.T, proj string, model *fakemodel.Server, c agentCase) *harness {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := c.mk(db)
	reg := agent.NewRegistry()
	reg.Register(b)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = reg.Dispose(ctx)
	})
	rec := &recorder{}
	orch, err := orchestrator.New(orchestrator.Options{DB: db, Backends: reg, Formats: agents.Formats(), Emitter: rec,
		TaskView: services.TaskViewOf}) // the app's "task:updated" payload
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = orch.Close(ctx)
	})
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "realcli", Path: proj, IsGitRepo: true})
	if err != nil {
		t.Fatal(err)
	}
	mode := c.mode
	if mode == "" {
		mode = agent.ModeAsk
	}
	task, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "real " + string(b.Info().Name),
		Prompt: "[scenario:text] Say hello.", AgentBackend: b.Info().Name, Model: c.taskModel, InteractionMode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, c: c, db: db, orch: orch, rec: rec, model: model, proj: proj, task: task.ID, start: time.Now()}
}

func (h *harness) status() store.TaskRun {
	h.t.Helper()
	tr, err := store.LoadTaskRun(context.Background(), h.db.R, h.task)
	if err != nil {
		h.t.Fatal(err)
	}
	return tr
}

// waitFor polls cond until it holds or d passes; false on timeout (with
// the state logged as an error).
func (h *harness) waitFor(t testing.TB, what string, d time.Duration, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tr := h.status()
			t.Errorf("timed out after %s waiting for %s (task status %s %q; emitted statuses %v; model requests %d)",
				d, what, tr.Status, tr.StatusReason, h.rec.statuses(), len(h.model.Requests()))
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

func (h *harness) busy() bool {
	s := h.status().Status
	return s == store.StatusRunning || s == store.StatusWaiting
}

// answerUntilIdle answers each permission request with ans as it comes
// until the task is neither running nor waiting; it returns the tool names
// asked for.
func (h *harness) answerUntilIdle(t testing.TB, d time.Duration, ans orchestrator.PermissionAnswer) []string {
	t.Helper()
	ctx := context.Background()
	var asked []string
	answered := map[string]bool{}
	h.waitFor(t, "the turn to end", d, func() bool {
		reqs, err := h.orch.PendingRequests(ctx, h.task)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range reqs {
			if r.Kind != "permission" || answered[r.RequestID] {
				continue
			}
			answered[r.RequestID] = true
			asked = append(asked, r.Request.ToolName)
			if err := h.orch.RespondToPermission(ctx, h.task, r.RequestID, ans); err != nil {
				t.Errorf("answer %s: %v", r.RequestID, err)
			}
		}
		return !h.busy()
	})
	return asked
}

// send sends text as a follow-up (the first step starts the task) and
// waits until the model saw the scenario or the turn is under way.
func (h *harness) send(t testing.TB, scenario, text string) {
	t.Helper()
	ctx := context.Background()
	before := len(h.model.Requests())
	var err error
	if h.status().Status == store.StatusCreated {
		err = h.orch.Start(ctx, h.task)
	} else {
		err = h.orch.SendMessage(ctx, h.task, text)
	}
	if err != nil {
		t.Fatalf("send %q: %v", text, err)
	}
	ok := h.waitFor(t, "the "+scenario+" turn to reach the model", 4*time.Minute, func() bool {
		for _, r := range h.model.Requests()[before:] {
			if r.Scenario == scenario {
				return true
			}
		}
		return false
	})
	if !ok {
		h.logRequests(t, before)
	}
}

// logRequests logs the model requests since before (the tail of each body).
func (h *harness) logRequests(t testing.TB, before int) {
	t.Helper()
	for _, r := range h.model.Requests()[before:] {
		b := string(r.Body)
		if len(b) > 1500 {
			b = "…" + b[len(b)-1500:]
		}
		t.Logf("model request %s %s scenario %q turn %d tools %d: %s", r.API, r.Path, r.Scenario, r.Turn, len(r.Tools), b)
	}
}

// settle stops a task left busy by a failed step, so the next step starts
// from an idle task.
func (h *harness) settle(t testing.TB) {
	t.Helper()
	if !h.busy() {
		return
	}
	t.Logf("the task is still %s: stopping it before the next step", h.status().Status)
	_ = h.orch.Stop(context.Background(), h.task)
	h.waitFor(t, "the task to stop", 30*time.Second, func() bool { return !h.busy() })
}

func (h *harness) messages(t testing.TB) []agent.Message {
	t.Helper()
	msgs, err := h.orch.Messages(context.Background(), h.task)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// texts returns every text part of role's messages.
func texts(msgs []agent.Message, role agent.Role) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Role != role {
			continue
		}
		for _, p := range m.Parts {
			if p.Type == agent.PartText {
				b.WriteString(p.Text)
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// tools returns the tool-use parts of kind k.
func tools(msgs []agent.Message, k agent.ToolKind) []agent.Part {
	var out []agent.Part
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == agent.PartToolUse && p.Kind == k {
				out = append(out, p)
			}
		}
	}
	return out
}

// toolFinished reports whether tool id has a successful result: a
// tool-result part, or the tool-use part itself marked completed.
func toolFinished(msgs []agent.Message, id string) bool {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.ToolID != id {
				continue
			}
			if p.Type == agent.PartToolResult && !p.IsError {
				return true
			}
			if p.Type == agent.PartToolUse && p.State == agent.ToolCompleted {
				return true
			}
		}
	}
	return false
}

type openTool struct{ id, desc string }

// openTools returns the tool-use parts left open: in no final state
// (pending, running or none) and with no tool-result part.
func openTools(msgs []agent.Message) []openTool {
	results := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == agent.PartToolResult {
				results[p.ToolID] = true
			}
		}
	}
	var out []openTool
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type != agent.PartToolUse || results[p.ToolID] {
				continue
			}
			if p.State == "" || p.State == agent.ToolPending || p.State == agent.ToolRunning {
				out = append(out, openTool{p.ToolID, fmt.Sprintf("%s %s (%s) state %q in message %s", p.Kind, p.ToolName, p.ToolID, p.State, m.ID)})
			}
		}
	}
	return out
}

// toolIDs returns the ids of the stored tool-use parts.
func (h *harness) toolIDs(t testing.TB) map[string]bool {
	ids := map[string]bool{}
	for _, m := range h.messages(t) {
		for _, p := range m.Parts {
			if p.Type == agent.PartToolUse {
				ids[p.ToolID] = true
			}
		}
	}
	return ids
}

// checkClosed fails t when a tool call of this step is left open after
// its turn (one left open by an earlier step is only logged: that step
// failed for it).
func (h *harness) checkClosed(t testing.TB) {
	t.Helper()
	var mine, older []string
	for _, o := range openTools(h.messages(t)) {
		id := o.id
		if h.known[id] {
			older = append(older, o.desc)
		} else {
			mine = append(mine, o.desc)
		}
	}
	if len(mine) > 0 {
		t.Errorf("OPEN TOOL after the turn: %d tool call(s) not in a final state: %s", len(mine), strings.Join(mine, "; "))
	}
	if len(older) > 0 {
		t.Logf("still open from an earlier step: %s", strings.Join(older, "; "))
	}
}

// wantText fails t when want is not in the stored assistant texts.
func wantText(t testing.TB, msgs []agent.Message, want string) {
	t.Helper()
	if at := texts(msgs, agent.RoleAssistant); !strings.Contains(at, want) {
		t.Errorf("assistant text %q not stored; assistant texts:\n%s", want, at)
	}
}

func wantStatus(t testing.TB, h *harness, want store.TaskStatus) {
	t.Helper()
	if tr := h.status(); tr.Status != want {
		t.Errorf("the task is %s (%q), want %s", tr.Status, tr.StatusReason, want)
	}
}

func fileIs(t testing.TB, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || strings.TrimSpace(string(got)) != strings.TrimSpace(want) {
		t.Errorf("%s = %q, %v; want %q", filepath.Base(path), got, err, want)
	}
}

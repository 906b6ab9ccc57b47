// Package realcli is the real-CLI test suite: the real `claude` and
// `opencode` CLIs, pointed at the scripted model server
// (backend/agent/agenttest/fakemodel), each run a task through the
// orchestrator with a real SQLite store: text, a file write, a shell
// command, two permissions asked and answered, a follow-up, and a stop.
// The test asserts what the store holds (messages, raw frames, task status,
// permission decisions) and what was emitted.
//
// It runs when JC_REALCLI_BIN names a directory holding the `claude` and
// `opencode` executables (`make test-agents` installs the pinned versions
// with npm into .tools/agents and sets it); otherwise it skips. Tested with
// Claude Code 2.1.330 and OpenCode 1.18.33 (the versions in the Makefile).
package realcli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// binDir returns JC_REALCLI_BIN or skips.
func binDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("JC_REALCLI_BIN")
	if dir == "" {
		t.Skip("JC_REALCLI_BIN is not set: run `make test-agents` to install the real CLIs and run this suite")
	}
	return dir
}

// bin returns the executable name in dir; it fails (not skips) when
// JC_REALCLI_BIN is set but the CLI is missing.
func bin(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("JC_REALCLI_BIN=%s has no %s: %v", dir, name, err)
	}
	return p
}

// scripts are the model's answers, shared by both CLIs (the server maps
// Write/Shell onto each CLI's own tools).
func scripts(proj string) map[string]fakemodel.Script {
	return map[string]fakemodel.Script{
		"main": {
			{Text: "I'll create hello.txt for you.", Tools: []fakemodel.ToolCall{
				fakemodel.Write(filepath.Join(proj, "hello.txt"), "Hello from the fake model!\n")}},
			{Text: "File written. Now a shell command.", Tools: []fakemodel.ToolCall{
				fakemodel.Shell("echo shell-ran > shell.txt", "Write shell.txt")}},
			{Text: "Done: hello.txt was written and the command ran."},
		},
		"followup": {{Text: "Follow-up answered: nothing else to change."}},
		"slow":     {{Text: "Counting slowly:", Slow: 200 * time.Millisecond, SlowFor: 90 * time.Second}},
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

// harness is one backend under test.
type harness struct {
	t     *testing.T
	db    *store.DB
	orch  *orchestrator.Orchestrator
	rec   *recorder
	model *fakemodel.Server
	proj  string
	task  string
}

// newHarness opens a store and an orchestrator over the backend mk makes
// (it gets the store, e.g. for agent settings).
func newHarness(t *testing.T, proj string, model *fakemodel.Server, mk func(db *store.DB) agent.Backend, taskModel string) *harness {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := mk(db)
	reg := agent.NewRegistry()
	reg.Register(b)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = reg.Dispose(ctx)
	})
	rec := &recorder{}
	orch, err := orchestrator.New(orchestrator.Options{DB: db, Backends: reg, Formats: agents.Formats(), Emitter: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = orch.Close(ctx)
	})
	p, err := store.NewProjects(db).Add(ctx, store.NewProject{Name: "realcli", Path: proj, IsGitRepo: true})
	if err != nil {
		t.Fatal(err)
	}
	task, err := store.NewTasks(db).Create(ctx, store.NewTask{ProjectID: p.ID, Name: "real " + string(b.Info().Name),
		Prompt: "[scenario:main] Create hello.txt with a greeting, then run a command.", AgentBackend: b.Info().Name,
		Model: taskModel, InteractionMode: agent.ModeAsk})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, db: db, orch: orch, rec: rec, model: model, proj: proj, task: task.ID}
}

func (h *harness) status() store.TaskRun {
	h.t.Helper()
	tr, err := store.LoadTaskRun(context.Background(), h.db.R, h.task)
	if err != nil {
		h.t.Fatal(err)
	}
	return tr
}

// waitFor polls cond until it holds or the deadline passes.
func (h *harness) waitFor(what string, d time.Duration, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tr := h.status()
			h.t.Fatalf("timed out after %s waiting for %s (task status %s %q; emitted statuses %v; model requests %d)",
				d, what, tr.Status, tr.StatusReason, h.rec.statuses(), len(h.model.Requests()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// answerPermissions allows each pending permission request as it comes
// until the task is no longer running or waiting; it returns the tool
// names asked for.
func (h *harness) runAnsweringPermissions(d time.Duration) []string {
	h.t.Helper()
	ctx := context.Background()
	var asked []string
	answered := map[string]bool{}
	h.waitFor("the turn to end", d, func() bool {
		reqs, err := h.orch.PendingRequests(ctx, h.task)
		if err != nil {
			h.t.Fatal(err)
		}
		for _, r := range reqs {
			if r.Kind != "permission" || answered[r.RequestID] {
				continue
			}
			answered[r.RequestID] = true
			asked = append(asked, r.Request.ToolName)
			if err := h.orch.RespondToPermission(ctx, h.task, r.RequestID, orchestrator.PermissionAnswer{Behavior: agent.Allow, Scope: "once"}); err != nil {
				h.t.Fatalf("answer %s: %v", r.RequestID, err)
			}
		}
		s := h.status().Status
		return s != string(store.StatusRunning) && s != string(store.StatusWaiting)
	})
	return asked
}

func (h *harness) messages() []agent.Message {
	h.t.Helper()
	msgs, err := h.orch.Messages(context.Background(), h.task)
	if err != nil {
		h.t.Fatal(err)
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

// toolFinished reports whether tool id has a result: a tool-result part, or
// the tool-use part itself marked completed.
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

// scenario runs the whole task and checks it. wantAsked are the tool
// names the two permission requests carry.
func (h *harness) scenario(format string, wantAsked []string) {
	t, ctx := h.t, context.Background()
	start := time.Now()

	// 1. The first turn: text, a write and a command, both asked and allowed.
	if err := h.orch.Start(ctx, h.task); err != nil {
		t.Fatalf("start: %v", err)
	}
	asked := h.runAnsweringPermissions(3 * time.Minute)
	if tr := h.status(); tr.Status != string(store.StatusCompleted) {
		t.Fatalf("after the first turn the task is %s (%q), want completed", tr.Status, tr.StatusReason)
	}
	if !slices.Equal(asked, wantAsked) {
		t.Errorf("permissions asked for %v, want %v", asked, wantAsked)
	}
	if got, err := os.ReadFile(filepath.Join(h.proj, "hello.txt")); err != nil || string(got) != "Hello from the fake model!\n" {
		t.Errorf("hello.txt = %q, %v; want the scripted content", got, err)
	}
	if got, err := os.ReadFile(filepath.Join(h.proj, "shell.txt")); err != nil || strings.TrimSpace(string(got)) != "shell-ran" {
		t.Errorf("shell.txt = %q, %v; the shell command did not run", got, err)
	}
	msgs := h.messages()
	if !strings.Contains(texts(msgs, agent.RoleUser), "[scenario:main] Create hello.txt") {
		t.Errorf("the prompt is not stored as a user message:\n%s", texts(msgs, agent.RoleUser))
	}
	at := texts(msgs, agent.RoleAssistant)
	for _, want := range []string{"I'll create hello.txt for you.", "File written. Now a shell command.", "Done: hello.txt was written and the command ran."} {
		if !strings.Contains(at, want) {
			t.Errorf("assistant text %q not stored; assistant texts:\n%s", want, at)
		}
	}
	edits, execs := tools(msgs, agent.ToolEdit), tools(msgs, agent.ToolExecute)
	if len(edits) != 1 || len(execs) != 1 {
		t.Fatalf("stored tool calls: %d edit, %d execute; want 1 and 1", len(edits), len(execs))
	}
	if !strings.Contains(string(edits[0].Input), "hello.txt") || !strings.Contains(string(execs[0].Input), "echo shell-ran") {
		t.Errorf("tool inputs: edit %s, execute %s", edits[0].Input, execs[0].Input)
	}
	for _, p := range []agent.Part{edits[0], execs[0]} {
		if !toolFinished(msgs, p.ToolID) {
			t.Errorf("tool %s (%s) has no successful result stored", p.ToolName, p.ToolID)
		}
	}
	decisions, err := h.orch.Decisions(ctx, h.task)
	if err != nil {
		t.Fatal(err)
	}
	if len(decisions) != 2 {
		t.Errorf("%d permission decisions stored, want 2: %+v", len(decisions), decisions)
	}
	if n := len(h.rec.agentEvents(agent.EventPermissionRequest)); n != 2 {
		t.Errorf("%d permission-request events emitted, want 2", n)
	}
	if tr := h.status(); tr.SessionID == "" {
		t.Error("no session id stored")
	}
	t.Logf("first turn: %s, asked %v, %d messages", time.Since(start).Round(time.Millisecond), asked, len(msgs))

	// 2. A follow-up to the live session.
	before := len(h.model.Requests())
	if err := h.orch.SendMessage(ctx, h.task, "[scenario:followup] Anything else?"); err != nil {
		t.Fatalf("follow-up: %v", err)
	}
	h.waitFor("the follow-up to start", 30*time.Second, func() bool {
		return h.status().Status != string(store.StatusCompleted) || strings.Contains(texts(h.messages(), agent.RoleAssistant), "Follow-up answered")
	})
	if asked := h.runAnsweringPermissions(2 * time.Minute); len(asked) != 0 {
		t.Errorf("the follow-up asked for %v", asked)
	}
	if tr := h.status(); tr.Status != string(store.StatusCompleted) {
		t.Fatalf("after the follow-up the task is %s (%q), want completed", tr.Status, tr.StatusReason)
	}
	msgs = h.messages()
	if !strings.Contains(texts(msgs, agent.RoleUser), "[scenario:followup] Anything else?") ||
		!strings.Contains(texts(msgs, agent.RoleAssistant), "Follow-up answered: nothing else to change.") {
		t.Errorf("follow-up not stored; assistant texts:\n%s", texts(msgs, agent.RoleAssistant))
	}
	followups := 0
	for _, r := range h.model.Requests()[before:] {
		if r.Scenario == "followup" {
			followups++
		}
	}
	if followups == 0 {
		t.Error("the model server never saw the follow-up")
	}

	// 3. A slow turn, stopped.
	before = len(h.model.Requests())
	if err := h.orch.SendMessage(ctx, h.task, "[scenario:slow] Count slowly."); err != nil {
		t.Fatalf("slow turn: %v", err)
	}
	h.waitFor("the slow turn to reach the model", time.Minute, func() bool {
		for _, r := range h.model.Requests()[before:] {
			if r.Scenario == "slow" {
				return true
			}
		}
		return false
	})
	time.Sleep(time.Second) // let a few ticks stream
	stopAt := time.Now()
	if err := h.orch.Stop(ctx, h.task); err != nil {
		t.Fatalf("stop: %v", err)
	}
	h.waitFor("the stop", 30*time.Second, func() bool { return h.status().Status == string(store.StatusInterrupted) })
	t.Logf("stopped in %s", time.Since(stopAt).Round(time.Millisecond))
	if r := h.orch.Running(); slices.Contains(r, h.task) {
		t.Errorf("task still has a live session after Stop: %v", r)
	}

	// What the store holds: raw frames in the backend's format, in order.
	n, err := store.CountRawFrames(ctx, h.db.R, h.task)
	if err != nil || n == 0 {
		t.Fatalf("raw frames: %d, %v", n, err)
	}
	formats := map[string]int{}
	var lastSeq int64 = -1
	for f, err := range store.RawFrames(ctx, h.db.R, h.task) {
		if err != nil {
			t.Fatal(err)
		}
		if f.Seq <= lastSeq {
			t.Errorf("raw frame seq %d after %d", f.Seq, lastSeq)
		}
		lastSeq = f.Seq
		formats[f.Format]++
	}
	if formats[format] == 0 {
		t.Errorf("no raw frames of format %q stored: %v", format, formats)
	}
	// What was emitted: the statuses in order, and only stored messages.
	st := h.rec.statuses()
	for _, want := range []string{"running", "waiting", "completed", "interrupted"} {
		if !slices.Contains(st, want) {
			t.Errorf("status %q never emitted: %v", want, st)
		}
	}
	if st[len(st)-1] != "interrupted" {
		t.Errorf("last emitted status %q, want interrupted (%v)", st[len(st)-1], st)
	}
	stored := map[string]bool{}
	for _, m := range h.messages() {
		stored[m.ID] = true
	}
	removed := map[string]bool{}
	for _, e := range h.rec.agentEvents(agent.EventMessageRemoved) {
		removed[e.MessageID] = true
	}
	for _, e := range h.rec.agentEvents(agent.EventMessage) {
		if !stored[e.Message.ID] && !removed[e.Message.ID] {
			t.Errorf("emitted message %s (%s) is not in the store", e.Message.ID, e.Message.Role)
		}
	}
	reqEmits := 0
	for _, e := range h.rec.all() {
		if e.name == "requests:updated" {
			reqEmits++
		}
	}
	if reqEmits < 4 { // each of the 2 requests appears, then goes
		t.Errorf("%d requests:updated emits, want >= 4", reqEmits)
	}
	t.Logf("%s: %d raw frames %v, statuses %v, %d model requests, total %s", format, n, formats, st,
		len(h.model.Requests()), time.Since(start).Round(time.Millisecond))
}

func newProject(t *testing.T) string {
	t.Helper()
	proj := t.TempDir()
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(git, "init", "-q", proj)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
	}
	return proj
}

func startModel(t *testing.T, proj string) *fakemodel.Server {
	t.Helper()
	m, err := fakemodel.Start(fakemodel.Options{Scripts: scripts(proj)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func version(t *testing.T, bin string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	return strings.TrimSpace(string(out))
}

func TestClaudeCode(t *testing.T) {
	dir := binDir(t)
	b := bin(t, dir, "claude")
	t.Logf("claude --version: %s", version(t, b))
	proj := newProject(t)
	model := startModel(t, proj)
	home, tmp := t.TempDir(), t.TempDir()
	// The environment comes from the agent's stored settings (the Agents
	// page), applied at Start by agentmgr's wrapper: the CLI reaching the
	// model server proves the settings reach the real process.
	mk := func(db *store.DB) agent.Backend {
		m := agentmgr.New(agentmgr.Options{DataDir: t.TempDir(), Settings: store.NewSettings(db)})
		err := m.SetSettings(context.Background(), agent.BackendClaudeCode, agentmgr.AgentSettings{Env: map[string]string{
			"HOME": home, "TMPDIR": tmp, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
			"ANTHROPIC_BASE_URL": model.URL(), "ANTHROPIC_API_KEY": "test",
			"DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_MAX_RETRIES": "1",
		}})
		if err != nil {
			t.Fatal(err)
		}
		return m.Wrap(claude.New(claude.Options{Binary: b}))
	}
	h := newHarness(t, proj, model, mk, "")
	h.scenario("claude-code", []string{"Write", "Bash"})
}

func TestOpenCode(t *testing.T) {
	dir := binDir(t)
	b := bin(t, dir, "opencode")
	t.Logf("opencode --version: %s", version(t, b))
	proj := newProject(t)
	model := startModel(t, proj)
	home, data := t.TempDir(), t.TempDir()
	// The app's path: the binary and the environment are the agent's stored
	// settings; the shared server is (re)built from them by agentmgr at the
	// first Start, with the config generated into the data dir, never the
	// project.
	mk := func(db *store.DB) agent.Backend {
		ctx := context.Background()
		m := agentmgr.New(agentmgr.Options{DataDir: data, Settings: store.NewSettings(db)})
		cfgPath, err := agentmgr.WriteOpenCodeConfig(data, "realcli", agentmgr.OpenCodeConfig{
			Mode: agent.ModeAsk,
			Provider: &agentmgr.OpenAICompatible{ID: "fake", Name: "Fake Model Server", BaseURL: model.OpenAIBaseURL(),
				APIKey: "test", Models: []string{"fake-basic"}},
			Model: "fake/fake-basic",
		})
		if err != nil {
			t.Fatal(err)
		}
		err = m.SetSettings(ctx, agent.BackendOpenCode, agentmgr.AgentSettings{BinaryPath: b, Env: map[string]string{
			"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".local/share"),
			"XDG_CACHE_HOME": filepath.Join(home, ".cache"), "XDG_STATE_HOME": filepath.Join(home, ".local/state"),
			"OPENCODE_CONFIG":             cfgPath,
			"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
			"OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1",
			"OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
		}})
		if err != nil {
			t.Fatal(err)
		}
		spec := agentmgr.Specs(nil)[1]
		rebuild := func(bin string) agent.Backend {
			env, err := m.OpenCodeServerEnv(ctx)
			if err != nil {
				t.Error(err)
			}
			return opencode.New(opencode.Options{Binary: bin, Env: env, HealthTimeout: 90 * time.Second,
				ReconnectMin: 100 * time.Millisecond, ReconnectMax: time.Second})
		}
		// Built at "startup" without a binary: the first Start rebuilds it.
		return m.Rebuilding(spec, opencode.New(opencode.Options{}), "", rebuild).ServerWide(ctx)
	}
	h := newHarness(t, proj, model, mk, "fake/fake-basic")
	h.scenario("opencode", []string{"edit", "bash"})
	if _, err := os.Stat(filepath.Join(proj, "opencode.json")); err == nil {
		t.Error("an opencode.json was written into the project")
	}
}

// TestHealth runs the Agents page's health checks against the real CLIs,
// with the binary path and environment taken from stored agent settings.
func TestHealth(t *testing.T) {
	dir := binDir(t)
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := agentmgr.New(agentmgr.Options{DataDir: t.TempDir(), Settings: store.NewSettings(db), HealthTimeout: 90 * time.Second})
	home := t.TempDir()
	model := startModel(t, t.TempDir()) // claude waits on an unreachable API before it answers
	env := map[string]string{"ANTHROPIC_BASE_URL": model.URL(), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".local/share"),
		"XDG_CACHE_HOME": filepath.Join(home, ".cache"), "XDG_STATE_HOME": filepath.Join(home, ".local/state"), "TMPDIR": t.TempDir(),
		"ANTHROPIC_API_KEY": "test", "DISABLE_AUTOUPDATER": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
		"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1"}
	want := map[agent.BackendType]string{agent.BackendClaudeCode: "initialize answered", agent.BackendOpenCode: "server healthy (version " + agentmgr.OpenCodeVersion + ")"}
	for _, spec := range agentmgr.Specs(nil) {
		w, ok := want[spec.Backend]
		if !ok {
			continue
		}
		if err := m.SetSettings(ctx, spec.Backend, agentmgr.AgentSettings{BinaryPath: bin(t, dir, spec.Command), Env: env}); err != nil {
			t.Fatal(err)
		}
		st := m.Status(ctx, spec)
		if !st.Found || st.Source != agentmgr.SourceSettings || !strings.HasPrefix(st.Version, spec.Pinned) {
			t.Errorf("%s status %+v, want found with version %s", spec.Backend, st, spec.Pinned)
		}
		h := m.Health(ctx, spec)
		t.Logf("%s: %s health ok=%v %q in %d ms", spec.Backend, st.Version, h.OK, h.Detail, h.DurationMs)
		if !h.OK || !strings.Contains(h.Detail, w) {
			t.Errorf("%s health %+v, want ok with %q", spec.Backend, h, w)
		}
	}
}

// TestInstallFromNPM installs OpenCode the way the Agents page does (npm
// into <data dir>/agents) and finds it there. It needs the npm registry, so
// it runs only with JC_REALCLI_INSTALL=1 (make test-agents sets it).
func TestInstallFromNPM(t *testing.T) {
	binDir(t)
	if os.Getenv("JC_REALCLI_INSTALL") != "1" {
		t.Skip("set JC_REALCLI_INSTALL=1 to install from the npm registry")
	}
	ctx := context.Background()
	data := t.TempDir()
	m := agentmgr.New(agentmgr.Options{DataDir: data, LookPath: func(string) (string, error) { return "", os.ErrNotExist }})
	spec := agentmgr.Specs(nil)[1]
	var mu sync.Mutex
	var lines []agentmgr.Progress
	start := time.Now()
	out, err := m.Install(ctx, spec, "", func(p agentmgr.Progress) {
		mu.Lock()
		lines = append(lines, p)
		mu.Unlock()
	})
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	mu.Lock()
	last := lines[len(lines)-1]
	mu.Unlock()
	t.Logf("npm install %s@%s: %s, %d progress events, %d fetched", spec.Package, spec.Pinned, time.Since(start).Round(time.Millisecond), len(lines), last.Fetched)
	if !last.Done || last.Error != "" || last.Fetched == 0 {
		t.Errorf("last progress %+v", last)
	}
	st := m.Status(ctx, spec)
	if !st.Found || st.Source != agentmgr.SourceApp || st.AppInstalled != spec.Pinned || st.Version != spec.Pinned {
		t.Errorf("after install: %+v", st)
	}
	if _, err := m.Uninstall(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if st := m.Status(ctx, spec); st.Found {
		t.Errorf("after uninstall: %+v", st)
	}
}

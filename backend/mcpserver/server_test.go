package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/mcpserver"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// fakeBackend's sessions stay open and idle (the parent task, whose agent
// calls the tools) unless the prompt starts with "child:", which answers
// at once and ends its turn (a sub-task).
type fakeBackend struct {
	mu   sync.Mutex
	cfgs map[string]agent.Config // by prompt
}

func (b *fakeBackend) Info() agent.Info              { return agent.Info{Name: "fake", DisplayName: "Fake"} }
func (b *fakeBackend) Dispose(context.Context) error { return nil }
func (b *fakeBackend) Get(name agent.BackendType) (agent.Backend, error) {
	if name != "fake" && name != "fake2" {
		return nil, &agent.UnknownBackendError{Name: name}
	}
	return b, nil
}

func (b *fakeBackend) Start(_ context.Context, cfg agent.Config, prompt string) (agent.Session, error) {
	b.mu.Lock()
	b.cfgs[prompt] = cfg
	b.mu.Unlock()
	s := &fakeSession{events: make(chan agent.Batch, 16), ended: make(chan struct{})}
	if rest, ok := strings.CutPrefix(prompt, "child:"); ok {
		m := &agent.Message{ID: "a1", Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: "done: " + rest}}}
		s.send(agent.Event{Type: agent.EventMessage, Message: m})
		s.send(agent.Event{Type: agent.EventComplete, Result: &agent.Result{Text: "done: " + rest}})
	}
	return s, nil
}

func (b *fakeBackend) cfg(prompt string) agent.Config {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cfgs[prompt]
}

type fakeSession struct {
	events chan agent.Batch
	once   sync.Once
	ended  chan struct{}
}

func (s *fakeSession) send(evs ...agent.Event) {
	frame, _ := json.Marshal(evs)
	s.events <- agent.Batch{Frame: frame, Format: "fake", Events: evs, ReceivedAt: time.Now()}
}
func (s *fakeSession) Events() <-chan agent.Batch                           { return s.events }
func (s *fakeSession) SendMessage(context.Context, string) error            { return nil }
func (s *fakeSession) SetMode(context.Context, agent.InteractionMode) error { return nil }
func (s *fakeSession) Interrupt(context.Context) error                      { return nil }
func (s *fakeSession) RespondToPermission(context.Context, string, agent.PermissionResponse) error {
	return nil
}
func (s *fakeSession) RespondToQuestion(context.Context, string, agent.QuestionAnswer) error {
	return nil
}
func (s *fakeSession) Stop(context.Context) error {
	s.once.Do(func() { close(s.events); close(s.ended) })
	return nil
}
func (s *fakeSession) Wait() error { <-s.ended; return nil }

type nopEmitter struct{}

func (nopEmitter) Emit(string, any) {}

type harness struct {
	db  *store.DB
	o   *orchestrator.Orchestrator
	be  *fakeBackend
	srv *mcpserver.Server
}

func newHarness(t *testing.T, opts ...func(*mcpserver.Options)) *harness {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &harness{db: db, be: &fakeBackend{cfgs: map[string]agent.Config{}}}
	o, err := orchestrator.New(orchestrator.Options{DB: db, Backends: h.be, Emitter: nopEmitter{},
		MCP: func(_ context.Context, t store.TaskRun) (*agent.MCPServer, error) { return h.srv.Grant(t.ID) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	h.o = o
	opt := mcpserver.Options{DB: db, Orchestrator: o, Poll: 10 * time.Millisecond,
		Backends: func() []string { return []string{"fake", "fake2"} },
		Diff: func(_ context.Context, id string) (mcpserver.TaskDiff, error) {
			return mcpserver.TaskDiff{Available: true, Added: 1, Files: []mcpserver.FileDiff{{Path: "a.txt", Status: "added", Added: 1}}}, nil
		}}
	for _, f := range opts {
		f(&opt)
	}
	srv, err := mcpserver.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	h.srv = srv
	now := store.Now()
	if _, err := db.W.ExecContext(ctx, `INSERT INTO projects (id, name, path, createdAt, updatedAt) VALUES ('p1', 'proj', ?, ?, ?)`,
		t.TempDir(), now, now); err != nil {
		t.Fatal(err)
	}
	return h
}

// start creates and starts a task with the fake agent.
func (h *harness) start(t *testing.T, id, prompt string) {
	t.Helper()
	now := store.Now()
	if _, err := h.db.W.Exec(`INSERT INTO tasks (id, projectId, name, prompt, agentBackend, interactionMode, createdAt, updatedAt)
		VALUES (?, 'p1', ?, ?, 'fake', 'ask', ?, ?)`, id, "Task "+id, prompt, now, now); err != nil {
		t.Fatal(err)
	}
	if err := h.o.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}

// bearer adds the Authorization header.
type bearer struct{ header string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", b.header)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP client session with the server the task's agent got.
func (h *harness) connect(t *testing.T, prompt string) *mcp.ClientSession {
	t.Helper()
	m := h.be.cfg(prompt).MCP
	if m == nil || m.Name != "jean-claude" || !strings.HasPrefix(m.URL, "http://127.0.0.1:") {
		t.Fatalf("the agent got no MCP server: %+v", m)
	}
	return dial(t, m.URL, m.Header())
}

func dial(t *testing.T, url, header string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{header}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, textOf(res))
	}
	return res
}

func textOf(res *mcp.CallToolResult) string {
	var b []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b = append(b, tc.Text)
		}
	}
	return strings.Join(b, "\n")
}

func structured[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var v T
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("structured %s: %v", raw, err)
	}
	return v
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestToolsListed(t *testing.T) {
	h := newHarness(t)
	h.start(t, "t1", "parent")
	cs := h.connect(t, "parent")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || tool.Annotations.Title == "" {
			t.Errorf("tool %s has no title", tool.Name)
		}
	}
	if strings.Join(names, ",") != "ask_user,create_subtask,get_task_result,list_tasks,report_progress" {
		t.Errorf("tools = %v", names)
	}
}

func TestReportProgress(t *testing.T) {
	h := newHarness(t)
	h.start(t, "t1", "parent")
	cs := h.connect(t, "parent")
	res := call(t, cs, "report_progress", map[string]any{"message": "Tests pass; writing the docs"})
	if textOf(res) != "Reported." {
		t.Errorf("result = %q", textOf(res))
	}
	msgs, err := store.Messages(context.Background(), h.db.R, "t1")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == agent.PartSystemStatus && p.Subtype == "progress" && p.Text == "Tests pass; writing the docs" {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("progress not stored as a system-status part: %+v", msgs)
	}
}

func TestAskUser(t *testing.T) {
	h := newHarness(t)
	h.start(t, "t1", "parent")
	cs := h.connect(t, "parent")
	type out struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_user",
			Arguments: map[string]any{"question": "Which database?", "options": []string{"SQLite", "Postgres"}}})
		done <- out{res, err}
	}()
	var pending []store.PendingRequest
	waitFor(t, "the question card", func() bool {
		pending, _ = h.o.PendingRequests(context.Background(), "t1")
		return len(pending) == 1
	})
	p := pending[0]
	if p.Kind != store.RequestQuestion || p.Request.Question != "Which database?" || len(p.Request.Options) != 2 {
		t.Fatalf("pending = %+v", p)
	}
	if tr, _ := store.LoadTaskRun(context.Background(), h.db.R, "t1"); tr.Status != store.StatusWaiting {
		t.Errorf("status while asking = %s, want waiting", tr.Status)
	}
	select {
	case <-done:
		t.Fatal("ask_user returned before the answer")
	case <-time.After(50 * time.Millisecond):
	}
	if err := h.o.RespondToQuestion(context.Background(), "t1", p.RequestID, [][]string{{"SQLite"}}); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil || got.res.IsError {
		t.Fatalf("ask_user: %v %+v", got.err, got.res)
	}
	if textOf(got.res) != "SQLite" {
		t.Errorf("answer = %q", textOf(got.res))
	}
	if tr, _ := store.LoadTaskRun(context.Background(), h.db.R, "t1"); tr.Status != store.StatusRunning {
		t.Errorf("status after the answer = %s, want running", tr.Status)
	}
}

func TestCreateSubtaskWaitsForResult(t *testing.T) {
	h := newHarness(t)
	h.start(t, "t1", "parent")
	cs := h.connect(t, "parent")
	res := call(t, cs, "create_subtask", map[string]any{"prompt": "child:write the tests", "backend": "fake2"})
	r := structured[mcpserver.TaskResult](t, res)
	if r.Status != string(store.StatusCompleted) || r.Result != "done: write the tests" || r.Backend != "fake2" {
		t.Errorf("result = %+v", r)
	}
	if r.Diff == nil || !r.Diff.Available || len(r.Diff.Files) != 1 {
		t.Errorf("diff = %+v", r.Diff)
	}
	parent, _, err := store.TaskLinks(context.Background(), h.db.R, r.TaskID)
	if err != nil || parent == nil || parent.TaskID != "t1" || parent.Kind != store.LinkSpawn {
		t.Errorf("sub-task link = %+v %v", parent, err)
	}
	bad, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_subtask",
		Arguments: map[string]any{"prompt": "x", "backend": "nope"}})
	if err != nil || !bad.IsError || !strings.Contains(textOf(bad), "unknown agent") {
		t.Errorf("unknown backend: %v %+v", err, bad)
	}
}

func TestGetTaskResultAndList(t *testing.T) {
	h := newHarness(t)
	h.start(t, "t1", "parent")
	h.start(t, "t2", "child:other work")
	waitFor(t, "t2 completed", func() bool {
		tr, _ := store.LoadTaskRun(context.Background(), h.db.R, "t2")
		return tr.Status == store.StatusCompleted
	})
	cs := h.connect(t, "parent")
	r := structured[mcpserver.TaskResult](t, call(t, cs, "get_task_result", map[string]any{"taskId": "t2"}))
	if r.TaskID != "t2" || r.Status != string(store.StatusCompleted) || r.Result != "done: other work" || r.Diff == nil {
		t.Errorf("result = %+v", r)
	}
	l := structured[mcpserver.ListOut](t, call(t, cs, "list_tasks", map[string]any{}))
	if len(l.Tasks) != 2 {
		t.Fatalf("tasks = %+v", l.Tasks)
	}
	for _, x := range l.Tasks {
		if x.This != (x.TaskID == "t1") {
			t.Errorf("this flag wrong: %+v", x)
		}
	}
	bad, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_task_result", Arguments: map[string]any{"taskId": "nope"}})
	if err != nil || !bad.IsError {
		t.Errorf("unknown task: %v %+v", err, bad)
	}
}

func TestTokenRequired(t *testing.T) {
	h := newHarness(t)
	h.start(t, "t1", "parent")
	for _, header := range []string{"", "Bearer wrong"} {
		req, _ := http.NewRequest("POST", h.srv.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("header %q: status %d, want 401", header, resp.StatusCode)
		}
	}
	// A new session of the task gets a new token; the old one stops working.
	old := h.be.cfg("parent").MCP
	if _, err := h.srv.Grant("t1"); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", h.srv.URL(), strings.NewReader(`{}`))
	req.Header.Set("Authorization", old.Header())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("revoked token: status %d", resp.StatusCode)
	}
	if strings.Contains(old.String(), old.Token) {
		t.Error("MCPServer.String shows the token")
	}
}

package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/store"
)

// openDB opens a real SQLite file in a temp dir.
func openDB(t testing.TB) *store.DB {
	t.Helper()
	return openDBAt(t, filepath.Join(t.TempDir(), "jc.db"))
}

func openDBAt(t testing.TB, path string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// addTask inserts a project (once) and a created task.
func addTask(t testing.TB, db *store.DB, id, backend, prompt string) {
	t.Helper()
	ctx := context.Background()
	now := store.Now()
	_, err := db.W.ExecContext(ctx, `INSERT OR IGNORE INTO projects (id, name, path, createdAt, updatedAt) VALUES ('p1', 'my-project', ?, ?, ?)`,
		t.TempDir(), now, now)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.W.ExecContext(ctx, `INSERT INTO tasks (id, projectId, name, prompt, agentBackend, interactionMode, createdAt, updatedAt)
		VALUES (?, 'p1', ?, ?, ?, 'ask', ?, ?)`, id, "Task "+id, prompt, backend, now, now)
	if err != nil {
		t.Fatal(err)
	}
}

func loadTask(t testing.TB, db *store.DB, id string) store.TaskRun {
	t.Helper()
	tr, err := store.LoadTaskRun(context.Background(), db.R, id)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// emitted is one recorded emit.
type emitted struct {
	Name    string
	Payload any
	At      time.Time
}

// recorder is an Emitter that records, and checks at emit time that an
// emitted message is already stored (nothing emitted that is not stored).
type recorder struct {
	db *store.DB
	t  testing.TB

	mu     sync.Mutex
	events []emitted
	notify chan struct{}
	bad    []string
	// forget: check each emitted message as usual but keep no event (a
	// flood's test measures the app's heap, not the recorder's).
	forget bool
}

func newRecorder(t testing.TB, db *store.DB) *recorder {
	return &recorder{db: db, t: t, notify: make(chan struct{}, 1)}
}

func (r *recorder) Emit(name string, payload any) {
	if p, ok := payload.(AgentEventPayload); ok && r.db != nil && p.Event.Type == agent.EventMessage {
		var data string
		err := r.db.R.QueryRow(`SELECT normalizedData FROM agent_messages WHERE taskId = ? AND messageId = ?`,
			p.TaskID, p.Event.Message.ID).Scan(&data)
		if err != nil {
			r.mu.Lock()
			r.bad = append(r.bad, fmt.Sprintf("emitted message %s not stored: %v", p.Event.Message.ID, err))
			r.mu.Unlock()
		}
	}
	r.mu.Lock()
	if !r.forget {
		r.events = append(r.events, emitted{name, payload, time.Now()})
	}
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func (r *recorder) all() []emitted {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]emitted(nil), r.events...)
}

// agentEvents returns the agent:event payloads of task id.
func (r *recorder) agentEvents(id string) []AgentEventPayload {
	var out []AgentEventPayload
	for _, e := range r.all() {
		if p, ok := e.Payload.(AgentEventPayload); ok && p.TaskID == id {
			out = append(out, p)
		}
	}
	return out
}

func (r *recorder) checkStored(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.bad {
		t.Error(b)
	}
}

// waitFor polls cond until it holds or 10s pass.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func waitStatus(t testing.TB, db *store.DB, id string, status store.TaskStatus) store.TaskRun {
	t.Helper()
	var tr store.TaskRun
	waitFor(t, "task "+id+" "+string(status), func() bool {
		tr = loadTask(t, db, id)
		return tr.Status == status
	})
	return tr
}

// fakeBackend is an in-process agent.Backend whose sessions the test drives.
type fakeBackend struct {
	mu       sync.Mutex
	sessions []*fakeSession
	started  chan *fakeSession
	startErr error
	secrets  []string // what SecretValues returns
}

func (b *fakeBackend) SecretValues(context.Context) []string { return b.secrets }

func newFakeBackend() *fakeBackend { return &fakeBackend{started: make(chan *fakeSession, 16)} }

func (b *fakeBackend) Info() agent.Info {
	return agent.Info{Name: "fake", DisplayName: "Fake", Capabilities: agent.Capabilities{Resume: true, SetMode: true}}
}

func (b *fakeBackend) Start(ctx context.Context, cfg agent.Config, prompt string) (agent.Session, error) {
	if b.startErr != nil {
		return nil, b.startErr
	}
	s := &fakeSession{cfg: cfg, prompt: prompt, events: make(chan agent.Batch, 64), ended: make(chan struct{})}
	b.mu.Lock()
	b.sessions = append(b.sessions, s)
	b.mu.Unlock()
	b.started <- s
	return s, nil
}

func (b *fakeBackend) Dispose(context.Context) error { return nil }

func (b *fakeBackend) Get(name agent.BackendType) (agent.Backend, error) {
	if name != "fake" {
		return nil, &agent.UnknownBackendError{Name: name}
	}
	return b, nil
}

func (b *fakeBackend) next(t testing.TB) *fakeSession {
	t.Helper()
	select {
	case s := <-b.started:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no session started")
		return nil
	}
}

type call struct {
	Method string
	Arg    any
}

type fakeSession struct {
	cfg    agent.Config
	prompt string
	events chan agent.Batch

	mu      sync.Mutex
	calls   []call
	closeMu sync.Once
	ended   chan struct{}
	waitErr error
	// answerErr is what RespondToQuestion returns (after recording the call).
	answerErr error
}

func (s *fakeSession) record(m string, arg any) {
	s.mu.Lock()
	s.calls = append(s.calls, call{m, arg})
	s.mu.Unlock()
}

func (s *fakeSession) callsOf(m string) []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []any
	for _, c := range s.calls {
		if c.Method == m {
			out = append(out, c.Arg)
		}
	}
	return out
}

func (s *fakeSession) Events() <-chan agent.Batch { return s.events }
func (s *fakeSession) SendMessage(ctx context.Context, text string) error {
	s.record("SendMessage", text)
	return nil
}
func (s *fakeSession) RespondToPermission(ctx context.Context, id string, resp agent.PermissionResponse) error {
	s.record("RespondToPermission", [2]any{id, resp})
	return nil
}
func (s *fakeSession) RespondToQuestion(ctx context.Context, id string, a agent.QuestionAnswer) error {
	s.record("RespondToQuestion", [2]any{id, a})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answerErr
}
func (s *fakeSession) SetMode(ctx context.Context, m agent.InteractionMode) error {
	s.record("SetMode", m)
	return nil
}
func (s *fakeSession) Interrupt(ctx context.Context) error { s.record("Interrupt", nil); return nil }
func (s *fakeSession) Stop(ctx context.Context) error {
	s.record("Stop", nil)
	s.end(nil)
	return nil
}
func (s *fakeSession) Wait() error { <-s.ended; return s.waitErr }

// end closes the event stream with err as Wait's result.
func (s *fakeSession) end(err error) {
	s.closeMu.Do(func() {
		s.waitErr = err
		close(s.events)
		close(s.ended)
	})
}

// send delivers one batch whose frame is the JSON of the events.
func (s *fakeSession) send(evs ...agent.Event) {
	frame, _ := json.Marshal(evs)
	s.events <- agent.Batch{Frame: frame, Format: "fake", Events: evs, ReceivedAt: time.Now()}
}

func msgEv(id string, role agent.Role, text string) agent.Event {
	m := &agent.Message{ID: id, Role: role, Parts: []agent.Part{{Type: agent.PartText, Text: text}}}
	raw, _ := json.Marshal(m)
	return agent.Event{Type: agent.EventMessage, Message: m, Raw: raw}
}

func completeEv(text string) agent.Event {
	return agent.Event{Type: agent.EventComplete, Result: &agent.Result{Text: text}}
}

func permEv(id, tool, command string) agent.Event {
	in, _ := json.Marshal(map[string]string{"command": command})
	return agent.Event{Type: agent.EventPermissionRequest, Request: &agent.Request{RequestID: id, ToolName: tool, ToolID: "tool-" + id, Input: in}}
}

// notes records notifications.
type notes struct {
	mu  sync.Mutex
	got []notify.Notification
}

func (n *notes) Notify(_ context.Context, x notify.Notification) error {
	n.mu.Lock()
	n.got = append(n.got, x)
	n.mu.Unlock()
	return nil
}

func (n *notes) list() []notify.Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]notify.Notification(nil), n.got...)
}

type harness struct {
	db  *store.DB
	be  *fakeBackend
	rec *recorder
	o   *Orchestrator
	nt  *notes
}

func newHarness(t testing.TB, opt Options) *harness {
	t.Helper()
	h := &harness{db: opt.DB, be: newFakeBackend(), nt: &notes{}}
	if h.db == nil {
		h.db = openDB(t)
	}
	h.rec = newRecorder(t, h.db)
	opt.DB, opt.Backends, opt.Emitter = h.db, h.be, h.rec
	if opt.Notifier == nil {
		opt.Notifier = h.nt
	}
	o, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	h.o = o
	t.Cleanup(func() {
		if err := o.Close(context.Background()); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("close: %v", err)
		}
	})
	return h
}

var testTime = time.Unix(1700000000, 0)

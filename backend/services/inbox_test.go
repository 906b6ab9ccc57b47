package services

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// planBackend is an in-process agent whose one session asks to approve a
// plan and records what it is told.
type planBackend struct {
	mu    sync.Mutex
	calls []string
	sess  chan *planSession
}

type planSession struct {
	b      *planBackend
	events chan agent.Batch
	once   sync.Once
}

func (b *planBackend) Info() agent.Info {
	return agent.Info{Name: "plan", Capabilities: agent.Capabilities{SetMode: true}}
}
func (b *planBackend) Start(context.Context, agent.Config, string) (agent.Session, error) {
	s := &planSession{b: b, events: make(chan agent.Batch, 8)}
	b.sess <- s
	return s, nil
}
func (b *planBackend) Dispose(context.Context) error { return nil }
func (b *planBackend) Get(name agent.BackendType) (agent.Backend, error) {
	if name != "plan" {
		return nil, &agent.UnknownBackendError{Name: name}
	}
	return b, nil
}
func (b *planBackend) record(c string) {
	b.mu.Lock()
	b.calls = append(b.calls, c)
	b.mu.Unlock()
}

func (s *planSession) Events() <-chan agent.Batch                { return s.events }
func (s *planSession) SendMessage(context.Context, string) error { return nil }
func (s *planSession) Interrupt(context.Context) error           { return nil }
func (s *planSession) RespondToQuestion(context.Context, string, agent.QuestionAnswer) error {
	return nil
}
func (s *planSession) RespondToPermission(_ context.Context, id string, r agent.PermissionResponse) error {
	s.b.record("permission " + id + " " + string(r.Behavior) + " " + r.Message)
	return nil
}
func (s *planSession) SetMode(_ context.Context, m agent.InteractionMode) error {
	s.b.record("mode " + string(m))
	return nil
}
func (s *planSession) Stop(context.Context) error {
	s.once.Do(func() { close(s.events) })
	return nil
}
func (s *planSession) Wait() error { return nil }

func (s *planSession) askPlan(id, plan string) {
	in, _ := json.Marshal(map[string]string{"plan": plan})
	ev := agent.Event{Type: agent.EventPermissionRequest, Request: &agent.Request{RequestID: id, ToolName: "ExitPlanMode", ToolID: "tool-" + id, Input: in}}
	frame, _ := json.Marshal([]agent.Event{ev})
	s.events <- agent.Batch{Frame: frame, Format: "fake", Events: []agent.Event{ev}, ReceivedAt: time.Now()}
}

func newInboxForTest(t *testing.T) (*InboxService, *planBackend, *store.DB) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "i.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := &planBackend{sess: make(chan *planSession, 4)}
	o, err := orchestrator.New(orchestrator.Options{DB: db, Backends: b, Emitter: &eventLog{}, TaskView: TaskViewOf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(ctx) })
	now := store.Now()
	if _, err := db.W.Exec(`INSERT INTO projects (id, name, path, createdAt, updatedAt) VALUES ('p', 'p', ?, ?, ?)`, t.TempDir(), now, now); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if _, err := db.W.Exec(`INSERT INTO tasks (id, projectId, prompt, agentBackend, interactionMode, createdAt, updatedAt) VALUES (?, 'p', 'plan it', 'plan', 'plan', ?, ?)`, id, now, now); err != nil {
			t.Fatal(err)
		}
	}
	return NewInboxService(ctx, db, o), b, db
}

func waitItems(t *testing.T, s *InboxService, n int) []InboxItem {
	t.Helper()
	for i := 0; i < 200; i++ {
		p, err := s.Items()
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) == n {
			return p.Items
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("inbox never had %d items", n)
	return nil
}

// TestInboxServicePlans: a plan approval is an inbox item; "approve and
// accept edits" allows it and then switches the task to accept-edits (stored
// and sent); "keep planning" denies it with a reason; both leave the inbox.
func TestInboxServicePlans(t *testing.T) {
	s, b, db := newInboxForTest(t)
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		if err := s.o.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		(<-b.sess).askPlan("x-"+id, "# Plan\n1. do "+id)
		waitItems(t, s, map[string]int{"a": 1, "b": 2}[id])
	}
	items := waitItems(t, s, 2)
	if items[0].Kind != "plan" || items[0].Plan != "# Plan\n1. do a" || items[0].RequestID != "x-a" {
		t.Fatalf("plan item %+v", items[0])
	}
	if err := s.AnswerPlan("a", "x-a", PlanApproveAcceptEdits, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.AnswerPlan("b", "x-b", PlanKeepPlanning, ""); err != nil {
		t.Fatal(err)
	}
	waitItems(t, s, 0)
	want := []string{
		"permission x-a allow ",
		"mode accept-edits",
		"permission x-b deny The user wants you to keep planning: do not start on the plan yet.",
	}
	b.mu.Lock()
	got := slices.Clone(b.calls)
	b.mu.Unlock()
	if !slices.Equal(got, want) {
		t.Fatalf("the agents were told %q, want %q", got, want)
	}
	tr, _ := store.LoadTaskRun(ctx, db.R, "a")
	if tr.InteractionMode != agent.ModeAcceptEdits {
		t.Fatalf("task a mode %q", tr.InteractionMode)
	}
	if err := s.AnswerPlan("a", "x-a", "maybe", ""); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("unknown choice: %v", err)
	}
	if err := s.AnswerPlan("a", "x-a", PlanApprove, ""); !errors.Is(err, agent.ErrUnknownRequest) {
		t.Fatalf("answered twice: %v", err)
	}
}

// TestInboxServiceDismiss: marking a finished result read takes it out.
func TestInboxServiceDismiss(t *testing.T) {
	s, _, db := newInboxForTest(t)
	if _, err := db.W.Exec(`UPDATE tasks SET status = 'completed', hasUnread = 1, endedAt = 5 WHERE id = 'a'`); err != nil {
		t.Fatal(err)
	}
	if items := waitItems(t, s, 1); items[0].Key != "result:a" {
		t.Fatalf("items %+v", items)
	}
	if err := s.Dismiss("a"); err != nil {
		t.Fatal(err)
	}
	waitItems(t, s, 0)
	if err := s.Dismiss(""); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("empty id: %v", err)
	}
}

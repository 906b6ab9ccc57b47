package services

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

type eventLog struct{ names []string }

func (e *eventLog) Emit(name string, payload any) { e.names = append(e.names, name) }

func newSessionsForTest(t *testing.T) (*SessionService, *store.DB, *eventLog) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ev := &eventLog{}
	o, err := orchestrator.New(orchestrator.Options{DB: db, Backends: agent.NewRegistry(), Emitter: ev, TaskView: TaskViewOf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(ctx) })
	now := store.Now()
	if _, err := db.W.Exec(`INSERT INTO projects (id, name, path, createdAt, updatedAt) VALUES ('p', 'p', '/p', ?, ?)`, now, now); err != nil {
		t.Fatal(err)
	}
	if _, err := db.W.Exec(`INSERT INTO tasks (id, projectId, prompt, status, hasUnread, createdAt, updatedAt) VALUES ('t', 'p', 'go', 'completed', 1, ?, ?)`, now, now); err != nil {
		t.Fatal(err)
	}
	return NewSessionService(ctx, db, o), db, ev
}

func TestSessionServiceValidatesAndWordsErrors(t *testing.T) {
	s, _, _ := newSessionsForTest(t)
	if err := s.SendMessage("t", "  "); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("empty message: %v", err)
	}
	if err := s.Start(""); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("empty task id: %v", err)
	}
	err := s.RespondToPermission("t", "nope", PermissionAnswer{Behavior: agent.Allow, Scope: "once"})
	if !errors.Is(err, agent.ErrUnknownRequest) || err.Error()[:4] != "that" {
		t.Fatalf("unknown request: %v", err)
	}
	if err := s.Start("missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing task: %v", err)
	}
	if err := s.SetMode("t", "yolo"); !errors.Is(err, orchestrator.ErrInvalid) {
		t.Fatalf("bad mode: %v", err)
	}
}

func TestSessionServiceMarkReadEmitsTaskDTO(t *testing.T) {
	s, db, ev := newSessionsForTest(t)
	if err := s.MarkRead("t"); err != nil {
		t.Fatal(err)
	}
	tr, _ := store.LoadTaskRun(context.Background(), db.R, "t")
	if tr.HasUnread {
		t.Fatal("still unread")
	}
	if len(ev.names) != 1 || ev.names[0] != orchestrator.EventTaskUpdated {
		t.Fatalf("emitted %v", ev.names)
	}
	dto := TaskViewOf(tr).(Task)
	if dto.ID != "t" || dto.Status != store.StatusCompleted || dto.Indicator != IndicatorIdle || dto.HasUnread {
		t.Fatalf("dto %+v", dto)
	}
}

func TestSessionServiceNotificationSettings(t *testing.T) {
	s, _, _ := newSessionsForTest(t)
	got, err := s.NotificationSettings()
	if err != nil || !got["complete"] || !got["permission"] {
		t.Fatalf("defaults %v %v", got, err)
	}
	if err := s.SetNotificationEnabled("complete", false); err != nil {
		t.Fatal(err)
	}
	if err := s.SetNotificationEnabled("bogus", false); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("bogus kind: %v", err)
	}
	got, _ = s.NotificationSettings()
	if got["complete"] || !got["error"] {
		t.Fatalf("after turning completion off: %v", got)
	}
}

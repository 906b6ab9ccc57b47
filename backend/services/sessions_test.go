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

// An "always" rule is edited through the bound call (project settings):
// the pattern is checked as when the rule was made, by its subject type, and
// the list shows the edited rule.
func TestEditPermissionRuleThroughTheService(t *testing.T) {
	s, db, _ := newSessionsForTest(t)
	ctx := context.Background()
	rule := store.PermissionRule{ID: "r1", Scope: store.ScopeProject, ProjectID: "p", ToolName: "Write",
		MatchKind: store.MatchExact, Pattern: "/p/src/a.go", SubjectType: orchestrator.SubjectPath, CreatedAt: store.Now()}
	if err := store.InsertRule(ctx, db.W, rule); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EditPermissionRule("r1", store.MatchFolder, " "); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("empty pattern: %v", err)
	}
	if _, err := s.EditPermissionRule("r1", store.MatchPrefix, "/p/src"); !errors.Is(err, orchestrator.ErrInvalid) {
		t.Fatalf("a prefix is for commands, not paths: %v", err)
	}
	if _, err := s.EditPermissionRule("nope", store.MatchFolder, "/p"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown rule: %v", err)
	}
	got, err := s.EditPermissionRule("r1", store.MatchFolder, "/p/src/")
	if err != nil || got.MatchKind != store.MatchFolder || got.Pattern != "/p/src" || got.ID != "r1" {
		t.Fatalf("EditPermissionRule = %+v, %v", got, err)
	}
	list, err := s.PermissionRules("p")
	if err != nil || len(list) != 1 || list[0].MatchKind != store.MatchFolder || list[0].Pattern != "/p/src" {
		t.Fatalf("PermissionRules after the edit = %+v, %v", list, err)
	}
}

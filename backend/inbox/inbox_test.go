package inbox_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/inbox"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/store"
)

type fixture struct {
	t    *testing.T
	path string
	db   *store.DB
}

func open(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func (f *fixture) exec(q string, args ...any) {
	f.t.Helper()
	if _, err := f.db.W.Exec(q, args...); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) task(id, project, name string, status store.TaskStatus, unread bool, ended int64, reason string) {
	f.exec(`INSERT INTO tasks (id, projectId, name, prompt, status, statusReason, hasUnread, createdAt, updatedAt, endedAt)
		VALUES (?, ?, ?, 'do it', ?, ?, ?, 1, 1, ?)`, id, project, name, status, reason, unread, ended)
}

func (f *fixture) pending(task, req, kind string, r agent.Request, at int64) {
	f.t.Helper()
	r.RequestID = req
	if err := store.AddPending(context.Background(), f.db.W, store.PendingRequest{TaskID: task, RequestID: req, Kind: kind, Request: r, CreatedAt: at}); err != nil {
		f.t.Fatal(err)
	}
}

// newFixture: two projects and one task of every kind, at times that
// interleave the projects.
func newFixture(t *testing.T) *fixture {
	path := filepath.Join(t.TempDir(), "inbox.db")
	f := &fixture{t: t, path: path, db: open(t, path)}
	t.Cleanup(func() { f.db.Close() })
	f.exec(`INSERT INTO projects (id, name, path, createdAt, updatedAt) VALUES ('p1', 'alpha', '/a', 1, 1), ('p2', 'beta', '/b', 1, 1)`)
	f.task("perm", "p1", "Run tests", store.StatusWaiting, false, 0, "")
	f.pending("perm", "r1", store.RequestPermission, agent.Request{ToolName: "Bash", Input: json.RawMessage(`{"command":"npm test"}`)}, 100)
	f.task("ask", "p2", "", store.StatusWaiting, false, 0, "")
	f.pending("ask", "q1", store.RequestQuestion, agent.Request{Questions: []agent.Question{{Question: "Which database?", Options: []agent.QuestionOption{{Label: "SQLite"}, {Label: "Postgres"}}}}}, 200)
	f.task("plan", "p1", "Refactor", store.StatusWaiting, false, 0, "")
	f.pending("plan", "x1", store.RequestPermission, agent.Request{ToolName: "ExitPlanMode", Input: json.RawMessage(`{"plan":"# Plan\n1. Split the file\n2. Add tests"}`)}, 150)
	f.task("done", "p2", "Docs", store.StatusCompleted, true, 50, "")
	msg, _ := json.Marshal(agent.Message{ID: "m1", Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: "All 12 tests pass.\nDetails."}}})
	f.exec(`INSERT INTO agent_messages (taskId, messageId, messageIndex, role, normalizedData, createdAt, updatedAt) VALUES ('done', 'm1', 0, 'assistant', ?, 1, 1)`, string(msg))
	f.task("fail", "p1", "Build", store.StatusErrored, true, 300, "exit status 2\nmore")
	f.task("seen", "p1", "Seen", store.StatusCompleted, false, 60, "")
	f.task("busy", "p2", "Busy", store.StatusRunning, true, 0, "")
	return f
}

func keys(items []inbox.Item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.Key)
	}
	return out
}

func load(t *testing.T, db *store.DB) []inbox.Item {
	t.Helper()
	items, err := inbox.Load(context.Background(), db.R)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// TestInboxEveryKindOldestFirst: every kind, across projects, oldest
// first; read results, running tasks and seen tasks are not in it.
func TestInboxEveryKindOldestFirst(t *testing.T) {
	f := newFixture(t)
	items := load(t, f.db)
	want := []struct {
		key, kind, summary, project string
	}{
		{"result:done", "result", "Done: All 12 tests pass.", "beta"},
		{"request:perm:r1", "permission", "Bash wants to run: npm test", "alpha"},
		{"request:plan:x1", "plan", "Plan ready: Plan", "alpha"},
		{"request:ask:q1", "question", "Which database?", "beta"},
		{"error:fail", "error", "Failed: exit status 2", "alpha"},
	}
	if len(items) != len(want) {
		t.Fatalf("inbox %v, want %d items", keys(items), len(want))
	}
	for i, w := range want {
		it := items[i]
		if it.Key != w.key || string(it.Kind) != w.kind || it.Summary != w.summary || it.ProjectName != w.project {
			t.Errorf("item %d = %s %s %q %s, want %+v", i, it.Key, it.Kind, it.Summary, it.ProjectName, w)
		}
	}
	if items[2].Plan != "# Plan\n1. Split the file\n2. Add tests" {
		t.Errorf("plan text %q", items[2].Plan)
	}
	if items[3].TaskName != "do it" || items[3].Request == nil || len(items[3].Request.Questions) != 1 {
		t.Errorf("question item %+v", items[3])
	}
}

// TestInboxAnsweredAndReadLeave: an answered request and a read result
// leave; read state survives reopening the database.
func TestInboxAnsweredAndReadLeave(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := store.RemovePending(ctx, f.db.W, "perm", "r1"); err != nil {
		t.Fatal(err)
	}
	if err := store.SetTaskUnread(ctx, f.db.W, "done", false, 400); err != nil {
		t.Fatal(err)
	}
	want := []string{"request:plan:x1", "request:ask:q1", "error:fail"}
	if got := keys(load(t, f.db)); !slices.Equal(got, want) {
		t.Fatalf("after answering: %v, want %v", got, want)
	}
	f.db.Close()
	f.db = open(t, f.path)
	if got := keys(load(t, f.db)); !slices.Equal(got, want) {
		t.Fatalf("after reopening: %v, want %v", got, want)
	}
	// A task deleted takes its items with it.
	f.exec(`DELETE FROM tasks WHERE id = 'ask'`)
	if got := keys(load(t, f.db)); !slices.Equal(got, []string{"request:plan:x1", "error:fail"}) {
		t.Fatalf("after deleting a task: %v", got)
	}
}

func TestPlanOf(t *testing.T) {
	cases := []struct {
		req  agent.Request
		want string
	}{
		{agent.Request{ToolName: "ExitPlanMode", Input: json.RawMessage(`{"plan":"do A"}`)}, "do A"},
		{agent.Request{ToolName: "exit_plan_mode", Description: "do B"}, "do B"},
		{agent.Request{ToolName: "Ready to code?", Input: json.RawMessage(`{"plan":"do C"}`)}, "do C"},
		{agent.Request{ToolName: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}, ""},
	}
	for _, c := range cases {
		if got := inbox.PlanOf(c.req); got != c.want {
			t.Errorf("PlanOf(%s) = %q, want %q", c.req.ToolName, got, c.want)
		}
	}
}

type recorder struct {
	mu        sync.Mutex
	payloads  []inbox.Payload
	withdrawn []string
	counts    []int
	ch        chan struct{}
}

func (r *recorder) Emit(name string, payload any) {
	r.mu.Lock()
	if p, ok := payload.(inbox.Payload); ok && name == inbox.EventUpdated {
		r.payloads = append(r.payloads, p)
	}
	r.mu.Unlock()
	r.ch <- struct{}{}
}

func (r *recorder) Withdraw(_ context.Context, key string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.withdrawn = append(r.withdrawn, key)
	return nil
}

// TestWatcher: a trigger event recomputes the inbox once, emits it, sets
// the count and withdraws the notification of an item that left.
func TestWatcher(t *testing.T) {
	f := newFixture(t)
	rec := &recorder{ch: make(chan struct{}, 8)}
	w := &inbox.Watcher{DB: f.db, Out: rec, Withdraw: rec, OnCount: func(n int) { rec.counts = append(rec.counts, n) }, Delay: 5 * time.Millisecond}
	w.Refresh()
	<-rec.ch
	if err := store.RemovePending(context.Background(), f.db.W, "perm", "r1"); err != nil {
		t.Fatal(err)
	}
	w.Touch("agent:event") // not a trigger
	w.Touch("requests:updated")
	w.Touch("task:updated") // coalesced with the one before
	select {
	case <-rec.ch:
	case <-time.After(5 * time.Second):
		t.Fatal("no inbox:updated after requests:updated")
	}
	time.Sleep(50 * time.Millisecond)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.payloads) != 2 || rec.payloads[0].Count != 5 || rec.payloads[1].Count != 4 {
		t.Fatalf("payloads %+v", rec.payloads)
	}
	if !slices.Equal(rec.withdrawn, []string{notify.RequestKey("perm", "r1")}) {
		t.Fatalf("withdrawn %v", rec.withdrawn)
	}
	if !slices.Equal(rec.counts, []int{5, 4}) {
		t.Fatalf("counts %v", rec.counts)
	}
}

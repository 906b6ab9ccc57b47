package orchestrator

// The ACP backend through the orchestrator, with the acp package's scripted
// agent: a follow-up after Stop to an agent that advertises session/load but
// fails it (Gemini CLI 0.61 --acp: "No previous sessions found for this
// project") is stored first, the user is told, and a new session, seeded
// with a transcript of the conversation so far, answers it.

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/store"
)

type oneBackend struct{ b agent.Backend }

func (o oneBackend) Get(agent.BackendType) (agent.Backend, error) { return o.b, nil }

func TestACPFollowUpAfterStopWhenLoadFails(t *testing.T) {
	bin := fakeACP(t)
	b, err := acp.New(acp.Config{Name: "acp.test.loadfails", DisplayName: "LoadFails", Command: bin,
		Env: map[string]string{"FAKEAGENT_BEHAVIOR": "load-fails"}})
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	rec := newRecorder(t, db)
	o, err := New(Options{DB: db, Backends: oneBackend{b}, Emitter: rec, Notifier: &notes{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	ctx := context.Background()
	addTask(t, db, "t1", "acp.test.loadfails", "slow first turn")
	if err := o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first turn streaming", func() bool {
		if loadTask(t, db, "t1").SessionID == "" {
			return false
		}
		for _, e := range rec.agentEvents("t1") {
			if e.Event.Type == agent.EventDelta || (e.Event.Type == agent.EventMessage && e.Event.Message.Role == agent.RoleAssistant) {
				return true
			}
		}
		return false
	})
	if err := o.Stop(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, "t1", store.StatusInterrupted)

	if err := o.SendMessage(ctx, "t1", "follow-up"); err != nil {
		t.Fatalf("follow-up after stop: %v", err)
	}
	msgs, err := store.Messages(ctx, db.R, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if userTextCount(msgs, "follow-up") != 1 {
		t.Errorf("the follow-up is not stored once as SendMessage returns: %+v", msgs)
	}
	tr := waitStatus(t, db, "t1", store.StatusCompleted)
	if tr.StatusReason != "" && strings.Contains(tr.StatusReason, "load") {
		t.Errorf("status reason %q", tr.StatusReason)
	}
	// The status may be stored before the last events are emitted: wait.
	seen := func() (told, answered bool) {
		for _, e := range rec.agentEvents("t1") {
			if e.Event.Type == agent.EventError && strings.Contains(e.Event.Error, "could not resume") &&
				strings.Contains(e.Event.Error, "seeded with a text transcript") && !e.Event.Fatal {
				told = true
			}
			// The fake agent echoes the prompt: the transcript, then the message.
			if r := e.Event.Result; e.Event.Type == agent.EventComplete && strings.Contains(r.Text, "User: slow first turn") &&
				strings.HasSuffix(r.Text, "New message:\nfollow-up") {
				answered = true
			}
		}
		return told, answered
	}
	waitFor(t, "the notice and the new session's answer", func() bool {
		told, answered := seen()
		return told && answered
	})
}

// TestACPStartFailureErrorsTask: an agent that exits before answering
// initialize fails the task with the exit and its stderr, although Start
// returned at once.
func TestACPStartFailureErrorsTask(t *testing.T) {
	bin := fakeACP(t)
	b, err := acp.New(acp.Config{Name: "acp.test.exits", DisplayName: "Exits", Command: bin,
		Env: map[string]string{"FAKEAGENT_BEHAVIOR": "exit-at-once"}})
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	o, err := New(Options{DB: db, Backends: oneBackend{b}, Emitter: newRecorder(t, db), Notifier: &notes{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	addTask(t, db, "t1", "acp.test.exits", "hi")
	if err := o.Start(context.Background(), "t1"); err != nil {
		t.Fatal(err)
	}
	tr := waitStatus(t, db, "t1", store.StatusErrored)
	for _, want := range []string{"the agent exited (exit status 0) before answering initialize", "no API key configured"} {
		if !strings.Contains(tr.StatusReason, want) {
			t.Errorf("status reason %q lacks %q", tr.StatusReason, want)
		}
	}
	msgs, err := store.Messages(context.Background(), db.R, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if userTextCount(msgs, "hi") != 1 {
		t.Errorf("the prompt is not kept: %+v", msgs)
	}
}

// TestACPStopWhileStarting: a task whose agent never answers the handshake
// shows running at once and can be stopped.
func TestACPStopWhileStarting(t *testing.T) {
	bin := fakeACP(t)
	b, err := acp.New(acp.Config{Name: "acp.test.mute", DisplayName: "Mute", Command: bin,
		Env: map[string]string{"FAKEAGENT_BEHAVIOR": "never-answer"}})
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	o, err := New(Options{DB: db, Backends: oneBackend{b}, Emitter: newRecorder(t, db), Notifier: &notes{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	addTask(t, db, "t1", "acp.test.mute", "hi")
	ctx := context.Background()
	t0 := time.Now()
	if err := o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("Start took %s", d)
	}
	if st := loadTask(t, db, "t1").Status; st != store.StatusRunning {
		t.Errorf("status %s while starting", st)
	}
	t0 = time.Now()
	if err := o.Stop(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, "t1", store.StatusInterrupted)
	if d := time.Since(t0); d > 4*time.Second {
		t.Errorf("Stop took %s", d)
	}
}

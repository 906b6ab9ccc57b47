package orchestrator

import (
	"context"
	"slices"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// TestNativeForkFirstStart: a task made a native fork (store.SetForkSession,
// history.Fork) starts by resuming a copy of the parent's session
// (Config.ForkSession) up to its fork point (Config.ForkPoint); once the
// agent announces the copy's id the task owns it, and its next start
// resumes that, without forking again.
func TestNativeForkFirstStart(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "fork", "fake", "Continue from there.")
	if err := store.SetForkSession(ctx, h.db.W, "fork", "sess-parent", "msg_after"); err != nil {
		t.Fatal(err)
	}
	if err := h.o.Start(ctx, "fork"); err != nil {
		t.Fatal(err)
	}
	s := h.be.next(t)
	if s.cfg.SessionID != "sess-parent" || !s.cfg.ForkSession || s.cfg.ForkPoint != "msg_after" || s.prompt != "Continue from there." {
		t.Fatalf("first start: prompt %q cfg %+v", s.prompt, s.cfg)
	}
	s.send(agent.Event{Type: agent.EventSessionID, SessionID: "sess-copy"}, completeEv("ok"))
	tr := waitStatus(t, h.db, "fork", store.StatusCompleted)
	if tr.SessionID != "sess-copy" || tr.ForkSession {
		t.Fatalf("after the first run: %+v", tr)
	}
	s.end(nil)
	waitFor(t, "session ended", func() bool { return !slices.Contains(h.o.Running(), "fork") })
	if err := h.o.Resume(ctx, "fork"); err != nil {
		t.Fatal(err)
	}
	s2 := h.be.next(t)
	if s2.cfg.SessionID != "sess-copy" || s2.cfg.ForkSession || s2.cfg.ForkPoint != "" {
		t.Fatalf("next start: %+v", s2.cfg)
	}
}

package orchestrator

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// transcript is role:text of every stored message, with "!" after a user
// message its agent never received.
func transcript(t *testing.T, h *harness, id string) []string {
	t.Helper()
	msgs, err := h.o.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		s := string(m.Role) + ":" + promptText(m)
		if v, _ := m.Metadata[MetaUndelivered].(bool); v {
			s += "!"
		}
		out = append(out, s)
	}
	return out
}

func TestPromptKeptWhenTheAgentCannotStartAndSentOnRetry(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "fix the bug")
	h.be.startErr = errors.New("Claude Code not found: " + agent.ErrBinaryNotFound.Error())
	if err := h.o.Start(ctx, "t1"); err == nil {
		t.Fatal("no error")
	}
	if d := cmp.Diff([]string{"user:fix the bug!"}, transcript(t, h, "t1")); d != "" {
		t.Fatalf("after a failed start (-want +got):\n%s", d)
	}
	h.rec.checkStored(t)
	// A retry that fails again keeps one message.
	if err := h.o.Resume(ctx, "t1"); err == nil {
		t.Fatal("no error on the second try")
	}
	if d := cmp.Diff([]string{"user:fix the bug!"}, transcript(t, h, "t1")); d != "" {
		t.Fatalf("after two failed starts (-want +got):\n%s", d)
	}
	// The agent is there now: the retry sends the same prompt, shown once.
	h.be.startErr = nil
	if err := h.o.Resume(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s := h.be.next(t)
	if s.prompt != "fix the bug" {
		t.Fatalf("retried with %q", s.prompt)
	}
	waitStatus(t, h.db, "t1", store.StatusRunning)
	s.send(msgEv("a1", agent.RoleAssistant, "Done."))
	s.send(completeEv("Done."))
	waitStatus(t, h.db, "t1", store.StatusCompleted)
	if d := cmp.Diff([]string{"user:fix the bug", "assistant:Done."}, transcript(t, h, "t1")); d != "" {
		t.Fatalf("after the retry (-want +got):\n%s", d)
	}
}

func TestFollowUpKeptWhenTheAgentCannotResume(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "first")
	if err := h.o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s := h.be.next(t)
	s.send(agent.Event{Type: agent.EventSessionID, SessionID: "sess-1"})
	s.send(completeEv("ok"))
	waitStatus(t, h.db, "t1", store.StatusCompleted)
	s.end(nil)
	waitFor(t, "run ended", func() bool { return h.o.getRun("t1") == nil })
	h.be.startErr = errors.New("not signed in")
	if err := h.o.SendMessage(ctx, "t1", "second"); err == nil {
		t.Fatal("no error")
	}
	if d := cmp.Diff([]string{"user:first", "user:second!"}, transcript(t, h, "t1")); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	h.be.startErr = nil
	if err := h.o.Resume(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if s2 := h.be.next(t); s2.prompt != "second" || s2.cfg.SessionID != "sess-1" {
		t.Fatalf("resumed with %q %+v", s2.prompt, s2.cfg)
	}
	waitStatus(t, h.db, "t1", store.StatusRunning)
	if d := cmp.Diff([]string{"user:first", "user:second"}, transcript(t, h, "t1")); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

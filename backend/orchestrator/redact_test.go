package orchestrator

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// An agent that prints the API key the app passed it (its environment, an
// error echoing the key) leaves no trace of the key in the database or in
// what the UI was sent: raw frames, messages, the task's end reason.
func TestSecretsNeverStored(t *testing.T) {
	const key = "sk-ant-api03-SECRETSECRETSECRET"
	h := newHarness(t, Options{})
	h.be.secrets = []string{key}
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "print your env")
	if err := h.o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s := h.be.next(t)
	s.send(msgEv("a1", agent.RoleAssistant, "ANTHROPIC_API_KEY="+key+"\nHOME=/root"))
	s.end(errors.New("exit status 1: invalid x-api-key " + key))
	if tr := waitStatus(t, h.db, "t1", store.StatusErrored); !strings.Contains(tr.StatusReason, "invalid x-api-key "+agent.Redacted) {
		t.Fatalf("reason = %q", tr.StatusReason)
	}

	var dump strings.Builder
	for f, err := range store.RawFrames(ctx, h.db.R, "t1") {
		if err != nil {
			t.Fatal(err)
		}
		dump.Write(f.Data)
	}
	msgs, err := h.o.Messages(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		for _, p := range m.Parts {
			dump.WriteString(p.Text)
		}
	}
	dump.WriteString(loadTask(t, h.db, "t1").StatusReason)
	for _, e := range h.rec.agentEvents("t1") {
		if e.Event.Message != nil {
			for _, p := range e.Event.Message.Parts {
				dump.WriteString(p.Text)
			}
		}
	}
	if strings.Contains(dump.String(), key) {
		t.Fatalf("the key was stored or emitted:\n%s", dump.String())
	}
	if !strings.Contains(dump.String(), "ANTHROPIC_API_KEY="+agent.Redacted) {
		t.Fatalf("the redacted text is missing:\n%s", dump.String())
	}
}

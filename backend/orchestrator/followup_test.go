package orchestrator

// Process-level tests of follow-up messages: whatever path sends a
// follow-up (drained from the queue after a turn, popped by Resume, sent to
// an idle session, or resuming a finished task), it is stored and shown
// exactly once although the Claude backend echoes every user turn.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
	"github.com/jean-claude/jean-claude/backend/store"
)

// userTextCount counts the user messages whose text is text.
func userTextCount(msgs []agent.Message, text string) int {
	n := 0
	for _, m := range msgs {
		if m.Role != agent.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			if p.Type == agent.PartText && p.Text == text {
				n++
				break
			}
		}
	}
	return n
}

// shown replays the task's agent:event stream the way the frontend does:
// a message event upserts by id, message-removed deletes the id.
func shown(rec *recorder, taskID string) []agent.Message {
	var order []string
	byID := map[string]agent.Message{}
	for _, e := range rec.agentEvents(taskID) {
		switch e.Event.Type {
		case agent.EventMessage:
			m := *e.Event.Message
			if _, ok := byID[m.ID]; !ok {
				order = append(order, m.ID)
			}
			byID[m.ID] = m
		case agent.EventMessageRemoved:
			delete(byID, e.Event.MessageID)
		}
	}
	var out []agent.Message
	for _, id := range order {
		if m, ok := byID[id]; ok {
			out = append(out, m)
		}
	}
	return out
}

// checkOnce asserts each text is stored once and shown once, and that the
// fake answered it (so the agent got it).
func checkOnce(t *testing.T, o *Orchestrator, rec *recorder, taskID string, texts ...string) {
	t.Helper()
	msgs, err := o.Messages(context.Background(), taskID)
	if err != nil {
		t.Fatal(err)
	}
	got := shown(rec, taskID)
	for _, text := range texts {
		if n := userTextCount(msgs, text); n != 1 {
			t.Errorf("%q stored %d times, want 1; stored:\n%s", text, n, describe(msgs))
		}
		if n := userTextCount(got, text); n != 1 {
			t.Errorf("%q shown %d times (emitted, not removed), want 1; shown:\n%s", text, n, describe(got))
		}
	}
	rec.checkStored(t)
}

func describe(msgs []agent.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("  " + m.ID + " " + string(m.Role))
		for _, p := range m.Parts {
			if p.Type == agent.PartText {
				b.WriteString(" " + strings.TrimSpace(p.Text))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func answered(t *testing.T, o *Orchestrator, taskID, text string) func() bool {
	return func() bool {
		msgs, _ := o.Messages(context.Background(), taskID)
		for _, m := range msgs {
			if m.Role != agent.RoleAssistant {
				continue
			}
			for _, p := range m.Parts {
				if strings.Contains(p.Text, "You said: "+text) {
					return true
				}
			}
		}
		return false
	}
}

// The e2e scenario: a follow-up typed while the agent waits on a permission
// is queued, and sent once the turn completes.
func TestProcessQueuedFollowUpShownOnce(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	reg := claudeRegistry(t, "FAKE_CLAUDE_SCRIPT="+agenttest.ClaudeRecording(t, "bidi_perm_allow"), "FAKE_CLAUDE_LINE_DELAY=5ms")
	o, rec := newProcHarness(t, db, reg)
	addTask(t, db, "t1", "claude-code", "Create the marker file")
	if err := o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, "t1", store.StatusWaiting)
	const follow = "Now list the directory"
	if err := o.SendMessage(ctx, "t1", follow); err != nil {
		t.Fatal(err)
	}
	if q, _ := o.Queue(ctx, "t1"); len(q) != 1 {
		t.Fatalf("follow-up not queued: %+v", q)
	}
	reqs, _ := o.PendingRequests(ctx, "t1")
	if len(reqs) != 1 {
		t.Fatalf("pending %+v", reqs)
	}
	if err := o.RespondToPermission(ctx, "t1", reqs[0].RequestID, PermissionAnswer{Behavior: agent.Allow, Scope: store.ScopeOnce}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the queued follow-up answered", answered(t, o, "t1", follow))
	waitEmittedCompletes(t, db, rec, "t1", 2)
	if q, _ := o.Queue(ctx, "t1"); len(q) != 0 {
		t.Fatalf("queue not drained: %+v", q)
	}
	checkOnce(t, o, rec, "t1", "Create the marker file", follow)
}

// Several follow-ups queued during one busy turn go one per turn.
func TestProcessQueuedFollowUpsWhileBusyShownOnce(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	reg := claudeRegistry(t, "FAKE_CLAUDE_SCRIPT="+agenttest.ClaudeRecording(t, "bidi_main_bypass"), "FAKE_CLAUDE_LINE_DELAY=20ms")
	o, rec := newProcHarness(t, db, reg)
	addTask(t, db, "t1", "claude-code", "Create hello.txt")
	if err := o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "session id", func() bool { return loadTask(t, db, "t1").SessionID != "" })
	for _, text := range []string{"first follow-up", "second follow-up"} {
		if err := o.SendMessage(ctx, "t1", text); err != nil {
			t.Fatal(err)
		}
	}
	if q, _ := o.Queue(ctx, "t1"); len(q) != 2 {
		t.Fatalf("follow-ups not queued: %+v", q)
	}
	waitFor(t, "both follow-ups answered", func() bool {
		return answered(t, o, "t1", "second follow-up")() && loadTask(t, db, "t1").Status == store.StatusCompleted
	})
	checkOnce(t, o, rec, "t1", "Create hello.txt", "first follow-up", "second follow-up")
}

// A follow-up queued when the app quit is the prompt of Resume.
func TestProcessResumeWithQueuedShownOnce(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	o, _ := newProcHarness(t, db, claudeRegistry(t, "FAKE_CLAUDE_HANG=1"))
	addTask(t, db, "t1", "claude-code", "work forever")
	if err := o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "session id", func() bool { return loadTask(t, db, "t1").SessionID != "" })
	const follow = "then write the docs"
	if err := o.SendMessage(ctx, "t1", follow); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(ctx); err != nil {
		t.Fatal(err)
	}
	o2, rec := newProcHarness(t, db, claudeRegistry(t))
	if err := o2.Resume(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the queued follow-up answered", answered(t, o2, "t1", follow))
	waitEmittedCompletes(t, db, rec, "t1", 1)
	checkOnce(t, o2, rec, "t1", follow)
}

// A follow-up to an idle live session, then one that resumes the finished
// task in a new process (--resume).
func TestProcessFollowUpIdleAndResumedShownOnce(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	argsFile := filepath.Join(t.TempDir(), "args.json")
	o, rec := newProcHarness(t, db, claudeRegistry(t, "FAKE_CLAUDE_ARGS_FILE="+argsFile))
	addTask(t, db, "t1", "claude-code", "Create hello.txt")
	if err := o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	sessionID := waitStatus(t, db, "t1", store.StatusCompleted).SessionID
	const idle = "Now list the files"
	if err := o.SendMessage(ctx, "t1", idle); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "second turn", func() bool {
		return countType(rec.agentEvents("t1"), agent.EventComplete) == 2 && loadTask(t, db, "t1").Status == store.StatusCompleted
	})
	checkOnce(t, o, rec, "t1", "Create hello.txt", idle)

	// End the live session: the next follow-up starts a new process.
	if err := o.Stop(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "session ended", func() bool { return len(o.Running()) == 0 })
	const resumed = "and one more thing"
	if err := o.SendMessage(ctx, "t1", resumed); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the resuming follow-up answered", answered(t, o, "t1", resumed))
	// Stored comes before emitted: wait for the emitted complete (which
	// flushes the coalesced messages before it), not the stored status.
	waitEmittedCompletes(t, db, rec, "t1", 3)
	if b, _ := os.ReadFile(argsFile); !strings.Contains(string(b), `"--resume=`+sessionID+`"`) {
		t.Fatalf("args %s lack --resume %s", b, sessionID)
	}
	checkOnce(t, o, rec, "t1", "Create hello.txt", idle, resumed)
}

// waitEmittedCompletes waits until n complete events of task were emitted
// and the task is stored completed. Stored comes before emitted, and the
// complete event flushes the coalesced messages before it, so checks of
// what was emitted must wait for it, not for the stored status.
func waitEmittedCompletes(t *testing.T, db *store.DB, rec *recorder, task string, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d complete events emitted", n), func() bool {
		return countType(rec.agentEvents(task), agent.EventComplete) >= n && loadTask(t, db, task).Status == store.StatusCompleted
	})
}

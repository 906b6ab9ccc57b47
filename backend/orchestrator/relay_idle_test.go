package orchestrator

import (
	"context"
	"testing"

	"github.com/jean-claude/jean-claude/backend/store"
)

// Quit with "keep" while the task's turn is over (its agent waits for
// input), restart: the task keeps its status (completed, not "running"
// for ever), says it continued after the restart, and a follow-up is
// sent at once rather than queued behind a turn that already ended.
func TestRelayQuitKeepIdleThenFollowUp(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	rdir := relayDir(t)
	addTask(t, db, "t1", "claude-code", "first turn")
	o1 := relayOrchestrator(t, db, rdir, true)
	if err := o1.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, "t1", store.StatusCompleted)
	if err := o1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if tr := loadTask(t, db, "t1"); tr.Status != store.StatusCompleted {
		t.Fatalf("after quit-keep: %s %q", tr.Status, tr.StatusReason)
	}
	o2 := relayOrchestrator(t, db, rdir, false)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if tr := loadTask(t, db, "t1"); tr.Status != store.StatusCompleted || tr.StatusReason != ReasonContinued {
		t.Fatalf("adopted idle: %s %q, want completed %q", tr.Status, tr.StatusReason, ReasonContinued)
	}
	if err := o2.SendMessage(ctx, "t1", "and one more"); err != nil {
		t.Fatal(err)
	}
	waitLong(t, "the follow-up answered", func() bool {
		var n int
		_ = db.R.QueryRow(`SELECT COUNT(*) FROM agent_messages WHERE taskId = 't1' AND normalizedData LIKE '%You said: and one more%'`).Scan(&n)
		return n == 1 && loadTask(t, db, "t1").Status == store.StatusCompleted
	})
	if q, _ := store.Queue(ctx, db.R, "t1"); len(q) != 0 {
		t.Fatalf("still queued: %+v", q)
	}
	checkTranscriptMatchesRaw(t, db, "t1")
}

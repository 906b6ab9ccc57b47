package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

func updatedAt(t *testing.T, db *store.DB, id string) int64 {
	t.Helper()
	var v int64
	if err := db.R.QueryRow(`SELECT updatedAt FROM tasks WHERE id = ?`, id).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Closing the app is not activity: a task's "time ago" must read the same
// after a restart (issue 23), idle or interrupted by the close.
func TestClosingKeepsUpdatedAt(t *testing.T) {
	db := openDB(t)
	h := newHarness(t, Options{DB: db})
	ctx := context.Background()
	addTask(t, db, "idle", "fake", "go")
	addTask(t, db, "busy", "fake", "go")
	_ = h.o.Start(ctx, "idle")
	s := h.be.next(t)
	s.send(completeEv("done"))
	waitStatus(t, db, "idle", store.StatusCompleted)
	_ = h.o.Start(ctx, "busy")
	h.be.next(t)
	waitStatus(t, db, "busy", store.StatusRunning)
	before := map[string]int64{"idle": updatedAt(t, db, "idle"), "busy": updatedAt(t, db, "busy")}
	time.Sleep(20 * time.Millisecond)
	if err := h.o.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for id, b := range before {
		if got := updatedAt(t, db, id); got != b {
			t.Errorf("%s: updatedAt %d after close, was %d", id, got, b)
		}
	}
	if tr := loadTask(t, db, "busy"); tr.Status != store.StatusInterrupted {
		t.Errorf("busy after close: %s", tr.Status)
	}
}

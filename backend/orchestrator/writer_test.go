package orchestrator

import (
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// TestWriterIndexesInPausesAndBoundsTheLagUnderLoad: a round with jobs of a
// saturated writer does not index while the index lags less than
// busySearchLag (a flood keeps the index off the ingest path), one that
// found the writer waiting does, a round without jobs (the pause) indexes once
// store.SearchLag has passed, and the pause's timer waits for indexIdleGap
// after the last round.
func TestWriterIndexesInPausesAndBoundsTheLagUnderLoad(t *testing.T) {
	now := time.Now()
	w := &writer{indexed: now.Add(-time.Second), lastRound: now}
	if w.indexNow(3) {
		t.Error("a busy round indexed with the index 1s behind (want: wait for a pause)")
	}
	if !w.indexNow(0) {
		t.Error("the pause's round did not index with the index 1s behind")
	}
	if d := w.idleIndexIn(); d <= indexIdleGap/2 || d > indexIdleGap {
		t.Errorf("idleIndexIn right after a round = %v, want about %v", d, indexIdleGap)
	}
	w.spare = true
	if !w.indexNow(3) {
		t.Error("a round that found the writer waiting did not index (a slice) with the index 1s behind")
	}
	w.spare = false
	w.indexed = now.Add(-busySearchLag - time.Millisecond)
	if !w.indexNow(3) {
		t.Errorf("a busy round did not index with the index %v behind", busySearchLag)
	}
	w = &writer{indexed: now, lastRound: now.Add(-time.Second)}
	if d := w.idleIndexIn(); d < store.SearchLag-100*time.Millisecond {
		t.Errorf("idleIndexIn right after a batch = %v, want about %v", d, store.SearchLag)
	}
}

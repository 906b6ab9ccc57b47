package orchestrator

import (
	"context"
	"testing"
	"time"
)

// awaitDone: past its deadline, a Stop waits on only while the run keeps
// storing batches; a run that stores nothing fails the Stop one progress
// step after the deadline, and a cancelled caller stops the wait at once.
func TestAwaitDoneWaitsOnProgressOnly(t *testing.T) {
	deadline := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 100*time.Millisecond)
	}
	t.Run("storing", func(t *testing.T) {
		r := &run{done: make(chan struct{})}
		go func() {
			for range 12 { // 2.4 s of progress, past the deadline and two steps
				time.Sleep(200 * time.Millisecond)
				r.stored.Add(1)
			}
			close(r.done)
		}()
		ctx, cancel := deadline()
		defer cancel()
		if !r.awaitDone(context.Background(), ctx) {
			t.Fatal("a run storing its backlog was given up")
		}
	})
	t.Run("stalled", func(t *testing.T) {
		r := &run{done: make(chan struct{})}
		ctx, cancel := deadline()
		defer cancel()
		t0 := time.Now()
		if r.awaitDone(context.Background(), ctx) {
			t.Fatal("a run that never ends reported done")
		}
		if took := time.Since(t0); took > 100*time.Millisecond+3*stopProgressStep {
			t.Fatalf("gave up after %v", took)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		r := &run{done: make(chan struct{})}
		parent, stop := context.WithCancel(context.Background())
		ctx, cancel := context.WithTimeout(parent, time.Minute)
		defer cancel()
		go func() {
			time.Sleep(100 * time.Millisecond)
			stop()
		}()
		t0 := time.Now()
		if r.awaitDone(parent, ctx) || time.Since(t0) > time.Second {
			t.Fatalf("a cancelled Stop waited %v", time.Since(t0))
		}
	})
}

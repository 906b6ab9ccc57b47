package orchestrator

import (
	"context"
	"errors"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// StatusStoreError is the status a task shows while its agent's output
// cannot be stored (disk full, I/O error, read-only file). It is not stored
// (the store is what fails): it overrides the stored status in the
// "task:updated" payload, with the store's error as the reason, until a
// retry succeeds.
const StatusStoreError = "store-error"

// Retry delays of a failed write.
const (
	storeRetryMin = 50 * time.Millisecond
	storeRetryMax = 5 * time.Second
)

// storeRetrying runs write until it succeeds, retrying with a doubling
// delay. While it fails the task shows StatusStoreError and the loop takes
// no batch from the session: the agent is held by backpressure (its
// agent.Stream is bounded, then its stdout pipe fills and it blocks in
// write), so nothing already read is dropped, and writing resumes by itself
// when the cause is gone. We hold rather than stop the agent: stopping would
// lose the turn, while a held agent loses nothing (its API call may time out,
// which it reports itself). It returns false when the task was deleted (its
// session is then stopped) or the orchestrator closed.
func (r *run) storeRetrying(write func() error) bool {
	delay := storeRetryMin
	for {
		err := write()
		if err == nil {
			r.setStoreError(nil)
			return true
		}
		if errors.Is(err, ErrClosed) {
			return false
		}
		if r.taskGone() {
			return false
		}
		r.o.log.Error("orchestrator: store failed; retrying", "task", r.taskID, "in", delay, "err", err)
		r.setStoreError(err)
		time.Sleep(delay)
		delay = min(2*delay, storeRetryMax)
	}
}

// taskGone reports whether the task was deleted under its live session,
// and then stops the session.
func (r *run) taskGone() bool {
	ctx := context.Background()
	if _, err := store.LoadTaskRun(ctx, r.o.db.R, r.taskID); !errors.Is(err, store.ErrNotFound) {
		return false
	}
	r.o.log.Info("orchestrator: task deleted while its agent ran; stopping it", "task", r.taskID)
	unlock := r.o.lock(r.taskID)
	if !r.stopping {
		r.stopping, r.stopReason = true, ReasonStopped
		go func() { _ = r.stop(ctx) }()
	}
	unlock()
	return true
}

// setStoreError records (err != nil) or clears the run's write failure and
// emits the task when that changes.
func (r *run) setStoreError(err error) {
	var why string
	if err != nil {
		why = "Cannot save the agent's output (the agent is paused until it can): " + err.Error()
	}
	if old := r.storeErr.Swap(&why); old != nil && *old == why {
		return
	} else if old == nil && why == "" {
		return
	}
	r.o.emitTask(context.Background(), r.taskID)
}

// storeError is the run's current write failure ("" when none).
func (r *run) storeError() string {
	if p := r.storeErr.Load(); p != nil {
		return *p
	}
	return ""
}

func (o *Orchestrator) isClosed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.closed
}

// taskDeleted reports whether the task no longer exists.
func (r *run) taskDeleted() bool {
	_, err := store.LoadTaskRun(context.Background(), r.o.db.R, r.taskID)
	return errors.Is(err, store.ErrNotFound)
}

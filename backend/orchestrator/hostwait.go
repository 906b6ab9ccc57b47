package orchestrator

// Tasks whose host could not be asked for their relay at app start (issue
// 21, docs/remote.md): their agent may go on there, so they are not marked
// interrupted. They show "host unreachable since …" (as a dropped link),
// and the relays of their hosts are asked for again with backoff in the
// background until they are adopted, the host answers without their relay
// (then they are interrupted), the retry's bound passes, or the app closes.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// HostRetry bounds the background retry of hosts that were unreachable at
// Recover: Min doubling up to Max between rounds, for at most For. AtStart
// bounds how long Recover (the app's start) waits for one host's relays;
// a host slower than that is asked again in the background.
type HostRetry struct {
	Min, Max, For, AtStart time.Duration
}

func (b HostRetry) withDefaults() HostRetry {
	if b.Min <= 0 {
		b.Min = 5 * time.Second
	}
	if b.Max <= 0 {
		b.Max = 5 * time.Minute
	}
	if b.For <= 0 {
		b.For = 24 * time.Hour
	}
	if b.AtStart <= 0 {
		b.AtStart = 10 * time.Second
	}
	return b
}

// unlistedError: the relays of the task's host could not be listed (the
// host is unreachable, or ssh failed): whether its agent goes on is unknown.
type unlistedError struct{ err error }

func (e *unlistedError) Error() string {
	return "the relays on the task's host could not be listed: " + e.err.Error()
}

func (e *unlistedError) Unwrap() error { return e.err }

// unlisted is err's cause when err is an unlistedError.
func unlisted(err error) (error, bool) {
	var u *unlistedError
	if errors.As(err, &u) {
		return u.err, true
	}
	return nil, false
}

// ReasonHostGaveUp is the reason of a task whose host stayed unreachable
// past HostRetry.For.
const ReasonHostGaveUp = "its host stayed unreachable since %s: Jean-Claude stopped waiting for its agent, which may still run there"

// hostWait is a task waiting for its host. Its fields are guarded by the
// task's lock; the map holding it by o.mu.
type hostWait struct {
	since time.Time
	err   error // the last failure
	stop  bool  // Stop was asked meanwhile: stop the agent once adopted
}

func (o *Orchestrator) hostWaitOf(taskID string) *hostWait {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.waits[taskID]
}

func (o *Orchestrator) takeHostWait(taskID string) *hostWait {
	o.mu.Lock()
	defer o.mu.Unlock()
	w := o.waits[taskID]
	delete(o.waits, taskID)
	return w
}

func (o *Orchestrator) waitingTasks() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	ids := make([]string, 0, len(o.waits))
	for id := range o.waits {
		ids = append(ids, id)
	}
	return ids
}

// waitForHost shows t as its host unreachable since since (err why) and
// puts it in the retry's list. A task kept at quit shows running: its
// agent was left running there.
func (o *Orchestrator) waitForHost(t store.TaskRun, since time.Time, err error) {
	unlock := o.lock(t.ID)
	defer unlock()
	w := &hostWait{since: since, err: err, stop: o.stopPending(t.ID)}
	o.mu.Lock()
	o.waits[t.ID] = w
	o.mu.Unlock()
	status := t.Status
	if status == store.StatusInterrupted {
		status = store.StatusRunning
	}
	o.setReason(t.ID, status, unreachableReason(since, err, w.stopNote()))
	o.log.Info("orchestrator: host unreachable at start: its relays are asked for again later", "task", t.ID, "err", err)
}

// startHostRetry starts the background retry once, if tasks wait.
func (o *Orchestrator) startHostRetry() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.waits) == 0 && len(o.stopsLeft) == 0 || o.waitDone != nil || o.closed {
		return
	}
	ctx, cancel := context.WithCancel(o.ctx)
	o.waitDone, o.waitCancel = make(chan struct{}), cancel
	go o.retryHosts(ctx, o.opt.HostRetry.withDefaults())
}

// endHostRetry stops the retry and waits for it (at Close).
func (o *Orchestrator) endHostRetry() {
	o.mu.Lock()
	done, cancel := o.waitDone, o.waitCancel
	o.mu.Unlock()
	if done != nil {
		cancel()
		<-done
	}
}

// retryHosts asks the waiting tasks' hosts again, and delivers the stored
// stops left (pendingstops.go), with backoff, until nothing is left, b.For
// has passed (the waiting tasks are interrupted) or the app closes.
func (o *Orchestrator) retryHosts(ctx context.Context, b HostRetry) {
	defer close(o.waitDone)
	wait, end := b.Min, time.Now().Add(b.For)
	o.deliverStops(ctx) // at once: the host may answer now
	for {
		if len(o.waitingTasks()) == 0 && !o.stopsToDeliver() {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		for _, id := range o.waitingTasks() {
			if ctx.Err() != nil {
				return
			}
			o.retryHost(ctx, id)
		}
		o.deliverStops(ctx)
		if time.Now().After(end) { // the stops left stay stored for the next start
			o.giveUpHosts(ctx)
			return
		}
		wait = min(wait*2, b.Max)
	}
}

// retryHost asks for task id's relay again: adopted, still unreachable, or
// gone (the host answers without it: interrupted).
func (o *Orchestrator) retryHost(ctx context.Context, id string) {
	t, err := store.LoadTaskRun(ctx, o.db.R, id)
	if err != nil { // deleted meanwhile
		o.takeHostWait(id)
		return
	}
	b := o.opt.HostRetry.withDefaults()
	adopted, err := o.adoptHostRelay(ctx, t, max(b.Max, b.AtStart))
	cause, down := unlisted(err)
	switch {
	case adopted:
		o.log.Info("orchestrator: remote relay adopted after its host came back", "task", id)
	case down:
		o.stillUnreachable(id, cause)
	case errors.Is(err, ErrClosed) || ctx.Err() != nil:
		// the app closes: the next start asks again
	default:
		if err != nil {
			o.log.Warn("orchestrator: adopt remote relay", "task", id, "err", err)
		}
		o.endHostWait(ctx, id, "")
	}
}

// stillUnreachable updates the reason when the cause changed.
func (o *Orchestrator) stillUnreachable(id string, err error) {
	unlock := o.lock(id)
	defer unlock()
	w := o.hostWaitOf(id)
	if w == nil || sameCause(w.err, err) {
		return
	}
	w.err = err
	t, lerr := store.LoadTaskRun(context.Background(), o.db.R, id)
	if lerr != nil {
		return
	}
	o.setReason(id, t.Status, unreachableReason(w.since, err, w.stopNote()))
}

func (w *hostWait) stopNote() string {
	if w.stop {
		return ReasonStopQueued
	}
	return ""
}

// endHostWait marks a waiting task interrupted: its relay is gone
// (ReasonAppClosed, or ReasonStopped when Stop was asked), or reason.
func (o *Orchestrator) endHostWait(ctx context.Context, id, reason string) {
	unlock := o.lock(id)
	defer unlock()
	w := o.takeHostWait(id)
	if w == nil || o.getRun(id) != nil {
		return
	}
	if reason == "" {
		reason = ReasonAppClosed
		if w.stop {
			reason = ReasonStopped
		}
	}
	if err := o.markInterrupted(ctx, id, reason); err != nil {
		o.log.Warn("orchestrator: mark interrupted", "task", id, "err", err)
	}
}

// giveUpHosts interrupts the tasks still waiting past the retry's bound.
func (o *Orchestrator) giveUpHosts(ctx context.Context) {
	for _, id := range o.waitingTasks() {
		w := o.hostWaitOf(id)
		if w == nil {
			continue
		}
		o.endHostWait(ctx, id, fmt.Sprintf(ReasonHostGaveUp, w.since.Format("2006-01-02 15:04")))
	}
}

// stopWaiting is Stop of a task waiting for its host (the caller holds the
// task lock): the stop is sent once the host is back and the relay adopted.
func (o *Orchestrator) stopWaiting(w *hostWait, t store.TaskRun) error {
	w.stop = true
	o.rememberWaitingStop(t) // kept across a quit before the host is back
	o.setReason(t.ID, t.Status, unreachableReason(w.since, w.err, ReasonStopQueued))
	return nil
}

// stopAdopted stops a run adopted after Stop was asked while its host was
// unreachable (the caller holds the task lock).
func (o *Orchestrator) stopAdopted(r *run) {
	r.stopping, r.stopReason = true, ReasonStopped
	go func() { _ = r.stop(o.ctx) }()
}

package orchestrator

// Stops asked while a task's host was unreachable, kept across restarts
// (issue 21, docs/remote.md). The host's transport stores each such stop
// until the agent's exit arrives (remote.Tasks.Stops); at the next start
// the stored stops are read: a task whose relay is adopted is stopped right
// after its adoption (what the agent wrote meanwhile is stored first, once),
// a task waiting for its host is stopped once adopted, and the others (the
// task was deleted, an agent that is never adopted: Gemini's turn,
// OpenCode's server) are delivered by the host retry itself, which attaches
// to the relay, stops the agent and lets the relay end.

import (
	"context"

	"github.com/jean-claude/jean-claude/backend/store"
)

// PendingStopper is the optional ability of Options.Hosts to keep the
// stops asked while a host was unreachable (remote.Tasks with Stops).
type PendingStopper interface {
	// PendingStops lists the stored stops.
	PendingStops(ctx context.Context) ([]store.PendingStop, error)
	// DeliverStop stops the relay of s on its host without adopting it
	// and forgets s; an error: the host could not be asked (later).
	DeliverStop(ctx context.Context, s store.PendingStop) error
	// RememberTaskStop stores the stop of any relay of a task (waiting
	// for its host since the start, or an agent never adopted) and
	// returns it; ok false when there is nothing to store (a local task).
	RememberTaskStop(ctx context.Context, projectID, taskID, reason string) (s store.PendingStop, ok bool, err error)
}

func (o *Orchestrator) stopper() PendingStopper {
	ps, _ := o.opt.Hosts.(PendingStopper)
	return ps
}

// loadPendingStops reads the stored stops at start and marks their tasks
// to be stopped once adopted.
func (o *Orchestrator) loadPendingStops(ctx context.Context) []store.PendingStop {
	ps := o.stopper()
	if ps == nil {
		return nil
	}
	list, err := ps.PendingStops(ctx)
	if err != nil {
		o.log.Warn("orchestrator: stored stops", "err", err)
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range list {
		if s.TaskID != "" {
			o.stopsPending[s.TaskID] = true
		}
	}
	if len(list) > 0 {
		o.log.Info("orchestrator: stops asked while a host was unreachable", "count", len(list))
	}
	return list
}

func (o *Orchestrator) stopPending(taskID string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stopsPending[taskID]
}

func (o *Orchestrator) takeStopPending(taskID string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	v := o.stopsPending[taskID]
	delete(o.stopsPending, taskID)
	return v
}

// withStopped adds to tasks the tasks with a stored stop, whatever their
// status (the quit that could not stop them may have ended them here).
func (o *Orchestrator) withStopped(ctx context.Context, tasks []store.TaskRun, pending []store.PendingStop) []store.TaskRun {
	have := map[string]bool{}
	for _, t := range tasks {
		have[t.ID] = true
	}
	for _, s := range pending {
		if s.TaskID == "" || have[s.TaskID] {
			continue
		}
		t, err := store.LoadTaskRun(ctx, o.db.R, s.TaskID)
		if err != nil { // deleted: leftStops delivers it
			continue
		}
		have[t.ID] = true
		tasks = append(tasks, t)
	}
	return tasks
}

// leftStops keeps for the host retry the stored stops that no adopted
// (even if already stopped) or waiting task carries out.
func (o *Orchestrator) leftStops(pending []store.PendingStop, adopted map[string]bool) {
	var left []store.PendingStop
	for _, s := range pending {
		if s.TaskID != "" && (adopted[s.TaskID] || o.getRun(s.TaskID) != nil || o.hostWaitOf(s.TaskID) != nil) {
			continue
		}
		o.takeStopPending(s.TaskID)
		left = append(left, s)
	}
	o.mu.Lock()
	o.stopsLeft = append(o.stopsLeft, left...)
	o.mu.Unlock()
}

func (o *Orchestrator) stopsToDeliver() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.stopsLeft) > 0
}

// deliverStops tries every stop left once; those whose host could not be
// asked stay for the next round (and, past the retry, for the next start).
func (o *Orchestrator) deliverStops(ctx context.Context) {
	ps := o.stopper()
	o.mu.Lock()
	left := o.stopsLeft
	o.stopsLeft = nil
	o.mu.Unlock()
	var still []store.PendingStop
	for _, s := range left {
		if ps == nil || ctx.Err() != nil {
			still = append(still, s)
			continue
		}
		if err := ps.DeliverStop(ctx, s); err != nil {
			o.log.Info("orchestrator: stored stop not delivered yet", "host", s.Host, "relay", s.RelayID, "task", s.TaskID, "err", err)
			still = append(still, s)
			continue
		}
		o.log.Info("orchestrator: stored stop delivered", "host", s.Host, "relay", s.RelayID, "task", s.TaskID)
	}
	o.mu.Lock()
	o.stopsLeft = append(still, o.stopsLeft...)
	o.mu.Unlock()
}

// rememberWaitingStop stores the stop of a task waiting for its host, so
// that a quit before the host is back does not lose it.
func (o *Orchestrator) rememberWaitingStop(t store.TaskRun) {
	ps := o.stopper()
	if ps == nil {
		return
	}
	if _, _, err := ps.RememberTaskStop(context.Background(), t.ProjectID, t.ID, ReasonStopped); err != nil {
		o.log.Warn("orchestrator: store the stop of a task waiting for its host", "task", t.ID, "err", err)
	}
}

// stopUnadopted stores and queues the stop of whatever relay a task left
// running on its host by an agent that is never adopted (Gemini's turn, cut
// by a crash of the previous app): the retry stops it and lets the relay
// remove its files. The caller adds it to the stops left.
func (o *Orchestrator) stopUnadopted(ctx context.Context, t store.TaskRun) (store.PendingStop, bool) {
	ps := o.stopper()
	if ps == nil {
		return store.PendingStop{}, false
	}
	s, ok, err := ps.RememberTaskStop(ctx, t.ProjectID, t.ID, ReasonAppClosed)
	if err != nil {
		o.log.Warn("orchestrator: store the stop of a turn left on a host", "task", t.ID, "err", err)
	}
	return s, ok && err == nil
}

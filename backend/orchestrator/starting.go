package orchestrator

// A start prepares the task's folder first (Options.Workspace: its worktree and
// the worktree's setup command, issue 18) while holding the task's lock;
// Stop, and Close, cancel that preparation: the setup command's process
// group is killed (wtsetup.Run ends with its context) and the task shows
// stopped instead of starting its agent.

import (
	"context"
	"errors"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// ReasonSettingUp is the task's reason while its worktree's setup runs.
const ReasonSettingUp = "setting up the worktree"

// errStartStopped is the cause of a start cancelled by Stop.
var errStartStopped = errors.New("the task was stopped")

// prepare returns the folder t's agent runs in (Options.Workspace; the project's
// path without one). stopped is the task's reason when Stop (or Close)
// cancelled it meanwhile: the agent must not start.
func (o *Orchestrator) prepare(ctx context.Context, t store.TaskRun) (cwd, stopped string, err error) {
	if o.opt.Workspace == nil {
		return t.ProjectPath, "", nil
	}
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	o.mu.Lock()
	o.starting[t.ID] = cancel
	o.mu.Unlock()
	cwd, err = o.opt.Workspace.Cwd(cctx, t)
	o.mu.Lock()
	delete(o.starting, t.ID)
	o.mu.Unlock()
	switch cause := context.Cause(cctx); {
	case errors.Is(cause, errStartStopped):
		return "", ReasonStopped, nil
	case errors.Is(cause, ErrClosed):
		return "", ReasonAppClosed, nil
	}
	return cwd, "", err
}

// cancelStart cancels the preparation of task id's start; false when none
// is under way.
func (o *Orchestrator) cancelStart(id string, cause error) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	cancel, ok := o.starting[id]
	if ok {
		cancel(cause)
	}
	return ok
}

// cancelStarts cancels every preparation under way (at Close).
func (o *Orchestrator) cancelStarts() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, cancel := range o.starting {
		cancel(ErrClosed)
	}
}

// settingUp shows the task running while its worktree's setup runs (its
// output is stored through FrameSink), so the window offers Stop.
func (o *Orchestrator) settingUp(ctx context.Context, taskID string) {
	o.mu.Lock()
	_, starting := o.starting[taskID]
	o.mu.Unlock()
	if !starting {
		return
	}
	if err := o.db.Tx(ctx, func(tx *txT) error {
		return store.SetTaskStatus(ctx, tx, taskID, store.StatusRunning, ReasonSettingUp, store.Now())
	}); err != nil {
		o.log.Warn("orchestrator: task setting up", "task", taskID, "err", err)
		return
	}
	o.emitTask(ctx, taskID)
}

// endStart records a start that did not start its agent: the prompt kept
// as the task's undelivered message and the task in status with reason,
// in one transaction; then both are emitted.
func (o *Orchestrator) endStart(ctx context.Context, taskID, prompt string, status store.TaskStatus, reason string) {
	now := store.Now()
	var kept *agent.Message
	_ = o.db.Tx(ctx, func(tx *txT) error {
		var err error
		if kept, err = o.keepPrompt(ctx, tx, taskID, prompt, now); err != nil {
			return err
		}
		return store.SetTaskStatus(ctx, tx, taskID, status, reason, now)
	})
	if kept != nil {
		o.emitter(taskID).message(agent.Event{Type: agent.EventMessage, Message: kept}, time.Time{})
	}
	o.emitTask(ctx, taskID)
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/compare"
	"github.com/jean-claude/jean-claude/backend/limits"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// compareWiring (issue 17 parts 3-4): usage limits (scheduler, automatic
// retry through the orchestrator's follow-up path), the usage dashboard and
// agent comparisons (check command when a compared task finishes). It is
// built in two steps because the orchestrator and these services need each
// other: options and emitter first, services once the orchestrator exists.
type compareWiring struct {
	ctx     context.Context
	db      *store.DB
	sched   *limits.Scheduler
	usage   *services.UsageService
	compare *compare.Comparisons
	bound   *services.CompareService
}

func newCompareWiring(ctx context.Context, db *store.DB) *compareWiring {
	return &compareWiring{ctx: ctx, db: db}
}

// watch wraps the orchestrator's emitter: finished compared tasks run the check.
func (w *compareWiring) watch(emit orchestrator.Emitter) orchestrator.Emitter {
	return services.WatchTasks(emit, func(t services.Task) {
		if w.compare != nil {
			w.compare.TaskChanged(w.ctx, services.CompareTaskState(t))
		}
	})
}

// options adds the limit hook to the orchestrator's options.
func (w *compareWiring) options(o *orchestrator.Options) {
	o.OnLimit = func(taskID string, l limits.Limit) {
		if w.sched == nil {
			return
		}
		if err := w.sched.Report(w.ctx, taskID, l); err != nil {
			fmt.Fprintf(os.Stderr, "jean-claude: recording a usage limit: %v\n", err)
		}
	}
}

// finish builds the services over the orchestrator o (nil in the bindings
// build); a deleted comparison's tasks are stopped with stop.
func (w *compareWiring) finish(reg *agent.Registry, emit services.Emitter, ws *workspace.Manager, o *orchestrator.Orchestrator, stop services.TaskStopper) {
	var starter compare.Starter
	if o != nil {
		starter = o
		w.sched = limits.NewScheduler(w.ctx, limits.SchedulerOptions{DB: w.db,
			Retry:   limits.RetryLastMessage(w.db, o.SendMessage),
			Changed: func(l store.TaskLimit) { emit.Emit(services.EventLimitUpdated, l) },
			Logger:  slog.New(slog.NewTextHandler(os.Stderr, nil))})
		if err := w.sched.Restore(w.ctx); err != nil {
			fmt.Fprintf(os.Stderr, "jean-claude: restoring usage limits: %v\n", err)
		}
	}
	tasks := services.NewTaskService(w.ctx, w.db, reg, emit, ws, stop)
	w.usage = services.NewUsageService(w.ctx, w.db, w.sched)
	w.compare = services.NewComparisons(w.db, tasks, ws, starter, emit)
	w.bound = services.NewCompareService(w.ctx, w.compare)
}

// stop disarms the retries (before the orchestrator closes).
func (w *compareWiring) stop() {
	if w.sched != nil {
		w.sched.Stop()
	}
}

package services

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/history/oneshot"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// BinaryResolver finds a backend's CLI (the Agents page's path, PATH, the
// app's own install).
type BinaryResolver func(ctx context.Context, backend agent.BackendType) (string, error)

// SummaryTimeout bounds a one-shot summary call.
var SummaryTimeout = 2 * time.Minute

// Summaries writes a task's one-line summary when it finishes, by a
// one-shot call of the CLI chosen in the settings (store.SettingSummaryAgent;
// none = no call, the default, since it costs a model call).
type Summaries struct {
	DB      *store.DB
	Emit    orchestrator.Emitter
	Resolve BinaryResolver
	Log     *slog.Logger
	// Command overrides oneshot.CommandFor (tests).
	Command func(backend agent.BackendType, binary, model string) (oneshot.Command, error)
}

// RunEnded fits orchestrator.Options.OnRunEnd: when the run left the task
// completed and a summary agent is set, it asks for the summary in the
// background and emits the task updated with it.
func (s *Summaries) RunEnded(ctx context.Context, taskID string) {
	backend, _, err := store.SettingValue(ctx, s.DB.R, store.SettingSummaryAgent)
	if err != nil || backend == "" {
		return
	}
	t, err := store.NewTasks(s.DB).Get(ctx, taskID)
	if err != nil || t.Status != store.StatusCompleted {
		return
	}
	go func() {
		if err := s.Summarize(context.WithoutCancel(ctx), agent.BackendType(backend), taskID); err != nil {
			s.log().Warn("task summary", "task", taskID, "agent", backend, "err", err)
		}
	}()
}

func (s *Summaries) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

// Summarize asks backend's CLI for task taskID's summary, stores it and
// emits the task.
func (s *Summaries) Summarize(ctx context.Context, backend agent.BackendType, taskID string) error {
	if s.Resolve == nil {
		return errors.New("no way to find the summary agent's binary")
	}
	t, err := store.NewTasks(s.DB).Get(ctx, taskID)
	if err != nil {
		return err
	}
	msgs, err := store.Messages(ctx, s.DB.R, taskID)
	if err != nil {
		return err
	}
	bin, err := s.Resolve(ctx, backend)
	if err != nil {
		return err
	}
	mk := s.Command
	if mk == nil {
		mk = oneshot.CommandFor
	}
	cmd, err := mk(backend, bin, "")
	if err != nil {
		return err
	}
	line, err := oneshot.Summarize(ctx, cmd, t.Prompt, msgs, SummaryTimeout)
	if err != nil {
		return err
	}
	if err := store.SetTaskSummary(ctx, s.DB.W, taskID, line); err != nil {
		return err
	}
	if s.Emit != nil {
		t.Summary = line
		s.Emit.Emit(orchestrator.EventTaskUpdated, NewTaskDTO(t))
	}
	return nil
}

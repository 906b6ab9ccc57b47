// Package summary writes a task's short title when it is created unnamed
// and its one-line summary when it finishes, each by a one-shot call of the
// agent CLI chosen in the settings (store.SettingSummaryAgent; none = no
// call, the default, since each costs a model call).
package summary

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/history/oneshot"
	"github.com/jean-claude/jean-claude/backend/store"
)

// BinaryResolver finds a backend's CLI (the Agents page's path, PATH, the
// app's own install).
type BinaryResolver func(ctx context.Context, backend agent.BackendType) (string, error)

// Timeout bounds a one-shot call.
var Timeout = 2 * time.Minute

// Summaries writes the titles and summaries of the tasks in DB.
type Summaries struct {
	DB *store.DB
	// Changed is given the task once its new title or summary is stored
	// (services.TaskUpdated: the "task:updated" event); nil: no one is told.
	Changed func(store.Task)
	Resolve BinaryResolver
	Log     *slog.Logger
	// Command overrides oneshot.CommandFor (tests).
	Command func(backend agent.BackendType, binary, model string) (oneshot.Command, error)
}

// RunEnded fits orchestrator.Options.OnRunEnd: when the run left the task
// completed and a summary agent is set, it asks for the summary in the
// background and tells Changed.
func (s *Summaries) RunEnded(ctx context.Context, taskID string) {
	backend := s.agent(ctx)
	if backend == "" {
		return
	}
	t, err := store.GetTask(ctx, s.DB.R, taskID)
	if err != nil || t.Status != store.StatusCompleted {
		return
	}
	go func() {
		if err := s.Summarize(context.WithoutCancel(ctx), backend, taskID); err != nil {
			s.log().Warn("task summary", "task", taskID, "agent", backend, "err", err)
		}
	}()
}

// TaskCreated fits services.Titler: a task named from the first line
// of its prompt (autoName) gets a short title from the one-shot agent, in
// the background, unless the user renamed it meanwhile.
func (s *Summaries) TaskCreated(ctx context.Context, taskID, autoName string) {
	backend := s.agent(ctx)
	if backend == "" {
		return
	}
	go func() {
		if err := s.Title(context.WithoutCancel(ctx), backend, taskID, autoName); err != nil {
			s.log().Warn("task title", "task", taskID, "agent", backend, "err", err)
		}
	}()
}

// agent is the one-shot agent of the settings ("" when none is chosen).
func (s *Summaries) agent(ctx context.Context) agent.BackendType {
	backend, _, err := store.SettingValue(ctx, s.DB.R, store.SettingSummaryAgent)
	if err != nil {
		return ""
	}
	return agent.BackendType(backend)
}

// command is backend's one-shot command.
func (s *Summaries) command(ctx context.Context, backend agent.BackendType) (oneshot.Command, error) {
	if s.Resolve == nil {
		return oneshot.Command{}, errors.New("no way to find the one-shot agent's binary")
	}
	bin, err := s.Resolve(ctx, backend)
	if err != nil {
		return oneshot.Command{}, err
	}
	mk := s.Command
	if mk == nil {
		mk = oneshot.CommandFor
	}
	return mk(backend, bin, "")
}

// Title asks backend's CLI for task taskID's title and stores it when the
// task is still named autoName; then it tells Changed.
func (s *Summaries) Title(ctx context.Context, backend agent.BackendType, taskID, autoName string) error {
	t, err := store.GetTask(ctx, s.DB.R, taskID)
	if err != nil {
		return err
	}
	cmd, err := s.command(ctx, backend)
	if err != nil {
		return err
	}
	title, err := oneshot.Title(ctx, cmd, t.Prompt, Timeout)
	if err != nil {
		return err
	}
	changed, err := store.RenameTaskIf(ctx, s.DB.W, taskID, autoName, title)
	if err != nil || !changed {
		return err
	}
	if t, err = store.GetTask(ctx, s.DB.R, taskID); err != nil {
		return err
	}
	if s.Changed != nil {
		s.Changed(t)
	}
	return nil
}

func (s *Summaries) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

// Summarize asks backend's CLI for task taskID's summary, stores it and
// tells Changed.
func (s *Summaries) Summarize(ctx context.Context, backend agent.BackendType, taskID string) error {
	t, err := store.GetTask(ctx, s.DB.R, taskID)
	if err != nil {
		return err
	}
	msgs, err := store.Messages(ctx, s.DB.R, taskID)
	if err != nil {
		return err
	}
	cmd, err := s.command(ctx, backend)
	if err != nil {
		return err
	}
	line, err := oneshot.Summarize(ctx, cmd, t.Prompt, msgs, Timeout)
	if err != nil {
		return err
	}
	if err := store.SetTaskSummary(ctx, s.DB.W, taskID, line); err != nil {
		return err
	}
	if s.Changed != nil {
		t.Summary = line
		s.Changed(t)
	}
	return nil
}

package services

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jean-claude/jean-claude/backend/term"
)

// TaskTerminal is an open shell of a task.
type TaskTerminal struct {
	term.Info
	TaskID string `json:"taskId"`
	// Cwd is where the shell started (the task's worktree, or the
	// project folder when the task has none).
	Cwd string `json:"cwd"`
}

// OpenTaskTerminal starts a new shell (the user's $SHELL, validated, else
// /bin/sh) in task taskID's worktree, or its project folder when it has
// none, in a terminal of cols×rows. Its processes are killed when the
// task is deleted or the app quits.
func (s *TerminalService) OpenTaskTerminal(taskID string, cols, rows int) (TaskTerminal, error) {
	if s.terms == nil || s.ws == nil {
		return TaskTerminal{}, fmt.Errorf("the terminal is not available")
	}
	if err := need("taskId", taskID); err != nil {
		return TaskTerminal{}, err
	}
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	info, err := s.ws.Info(ctx, taskID)
	if err != nil {
		return TaskTerminal{}, err
	}
	cwd := info.Cwd
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return TaskTerminal{}, fmt.Errorf("the task's folder %s is missing", cwd)
	}
	in, err := s.terms.OpenTaskShell(taskID, cwd, clampSize(cols, 100), clampSize(rows, 30))
	if err != nil {
		return TaskTerminal{}, err
	}
	return TaskTerminal{Info: in, TaskID: taskID, Cwd: cwd}, nil
}

// TaskTerminals lists task taskID's open shells, oldest first.
func (s *TerminalService) TaskTerminals(taskID string) ([]TaskTerminal, error) {
	out := []TaskTerminal{}
	if s.terms == nil {
		return out, nil
	}
	for _, in := range s.terms.TaskShells(taskID) {
		out = append(out, TaskTerminal{Info: in, TaskID: taskID})
	}
	return out, nil
}

// Snapshot returns terminal id's kept scrollback (to replay when its tab
// is shown again) and the output offset it ends at.
func (s *TerminalService) Snapshot(id string) (term.Snapshot, error) {
	return s.terms.Snapshot(id)
}

// CloseTaskTerminals kills every shell of a task (the task is deleted);
// it fits workspace.Manager.SetTerminals. terms may be nil (no shells).
func CloseTaskTerminals(terms *term.Manager) func(ctx context.Context, taskID string) error {
	if terms == nil {
		return func(context.Context, string) error { return nil }
	}
	return terms.CloseTaskShells
}

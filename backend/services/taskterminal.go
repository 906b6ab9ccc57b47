package services

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/term"
)

// FallbackShell is the task terminal's shell when $SHELL is not usable.
const FallbackShell = "/bin/sh"

// TaskTerminal is an open shell of a task.
type TaskTerminal struct {
	term.Info
	TaskID string `json:"taskId"`
	// Cwd is where the shell started (the task's worktree, or the
	// project folder when the task has none).
	Cwd string `json:"cwd"`
}

// taskOwner is the term.Manager owner of a task's shells.
func taskOwner(taskID string) string { return "task:" + taskID }

// UserShell returns $SHELL when it is an absolute, clean path to an
// executable regular file, else FallbackShell. The shell runs with no
// arguments: nothing from the environment becomes a flag.
func UserShell(getenv func(string) string) string {
	sh := getenv("SHELL")
	if sh == "" || !filepath.IsAbs(sh) || filepath.Clean(sh) != sh || strings.ContainsAny(sh, "\x00\n") {
		return FallbackShell
	}
	st, err := os.Stat(sh)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return FallbackShell
	}
	return sh
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
	shell := UserShell(os.Getenv)
	env := append(os.Environ(), "TERM=xterm-256color", "COLORTERM=truecolor", "JEAN_CLAUDE_TASK_ID="+taskID)
	n := len(s.terms.List(taskOwner(taskID))) + 1
	id, err := s.terms.Start(term.Spec{Path: shell, Env: env, Dir: cwd, Cols: clampSize(cols, 100), Rows: clampSize(rows, 30),
		Owner: taskOwner(taskID), Title: fmt.Sprintf("%s %d", filepath.Base(shell), n)})
	if err != nil {
		return TaskTerminal{}, err
	}
	for _, in := range s.terms.List(taskOwner(taskID)) {
		if in.ID == id {
			return TaskTerminal{Info: in, TaskID: taskID, Cwd: cwd}, nil
		}
	}
	return TaskTerminal{}, fmt.Errorf("the shell ended at once")
}

// TaskTerminals lists task taskID's open shells, oldest first.
func (s *TerminalService) TaskTerminals(taskID string) ([]TaskTerminal, error) {
	out := []TaskTerminal{}
	if s.terms == nil {
		return out, nil
	}
	for _, in := range s.terms.List(taskOwner(taskID)) {
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
// it fits Workspaces.SetTerminals.
func CloseTaskTerminals(terms *term.Manager) func(ctx context.Context, taskID string) error {
	return func(ctx context.Context, taskID string) error {
		if terms == nil {
			return nil
		}
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return terms.CloseOwner(ctx, taskOwner(taskID))
	}
}

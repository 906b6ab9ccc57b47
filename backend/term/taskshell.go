package term

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FallbackShell is a task shell's program when $SHELL is not usable.
const FallbackShell = "/bin/sh"

// closeTaskTimeout bounds the wait for a deleted task's shells.
const closeTaskTimeout = 10 * time.Second

// taskOwner is the Owner of a task's shells.
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

// OpenTaskShell starts a new shell of task taskID in dir, in a terminal of
// cols×rows: the user's shell (UserShell), with this process's environment
// plus TERM, COLORTERM and JEAN_CLAUDE_TASK_ID, titled after the shell and
// its number among the task's shells ("zsh 2"). It returns the shell's Info.
func (m *Manager) OpenTaskShell(taskID, dir string, cols, rows uint16) (Info, error) {
	shell := UserShell(os.Getenv)
	env := append(os.Environ(), "TERM=xterm-256color", "COLORTERM=truecolor", "JEAN_CLAUDE_TASK_ID="+taskID)
	n := len(m.List(taskOwner(taskID))) + 1
	id, err := m.Start(Spec{Path: shell, Env: env, Dir: dir, Cols: cols, Rows: rows,
		Owner: taskOwner(taskID), Title: fmt.Sprintf("%s %d", filepath.Base(shell), n)})
	if err != nil {
		return Info{}, err
	}
	for _, in := range m.List(taskOwner(taskID)) {
		if in.ID == id {
			return in, nil
		}
	}
	return Info{}, errors.New("the shell ended at once")
}

// TaskShells returns task taskID's open shells, oldest first.
func (m *Manager) TaskShells(taskID string) []Info { return m.List(taskOwner(taskID)) }

// CloseTaskShells kills every shell of task taskID (the task is deleted),
// every process of their sessions, and waits until they are reaped (at
// most 10 s).
func (m *Manager) CloseTaskShells(ctx context.Context, taskID string) error {
	ctx, cancel := context.WithTimeout(ctx, closeTaskTimeout)
	defer cancel()
	return m.CloseOwner(ctx, taskOwner(taskID))
}

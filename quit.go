package main

// What quitting does to running tasks (issue #15, docs/relay.md): the
// "quitRunningTasks" setting keeps or stops them, or asks.

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/jean-claude/jean-claude/backend/store"
)

// quitAction is what the window's close does.
type quitAction int

const (
	quitStop quitAction = iota // stop the agents (the default)
	quitKeep                   // leave them running under their relays
	quitAsk                    // ask the user first
)

// decideQuit: with relays off, or no task running, or "stop", the agents
// stop; "keep" keeps them; "ask" asks only when a relayed task runs.
func decideQuit(setting string, relays bool, running int) quitAction {
	switch {
	case !relays || running == 0:
		return quitStop
	case setting == "keep":
		return quitKeep
	case setting == "ask":
		return quitAsk
	}
	return quitStop
}

// Answers of the quit dialog.
const (
	answerKeep   = "Keep running"
	answerStop   = "Stop tasks"
	answerCancel = "Cancel"
)

// answerAction maps the dialog's answer: keep, stop, or (Cancel, or the
// dialog closed) do not quit.
func answerAction(answer string) (keep, quit bool) {
	switch answer {
	case answerKeep:
		return true, true
	case answerStop:
		return false, true
	}
	return false, false
}

// beforeClose is Wails' OnBeforeClose: true prevents the close.
func (a *App) beforeClose(ctx context.Context) bool {
	s := a.sessions
	if s == nil || s.o == nil {
		return false
	}
	setting, _, _ := store.SettingValue(ctx, s.db.R, store.SettingQuitRunning)
	switch decideQuit(setting, s.relays, len(s.o.Running())) {
	case quitKeep:
		s.o.SetKeepOnQuit(true)
	case quitAsk:
		answer, err := runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
			Type:          runtime.QuestionDialog,
			Title:         "Tasks are running",
			Message:       "Keep the running tasks going after Jean-Claude closes? They continue under their relays and are picked up at the next start.",
			Buttons:       []string{answerKeep, answerStop, answerCancel},
			DefaultButton: answerKeep,
			CancelButton:  answerCancel,
		})
		if err != nil {
			return false // no dialog: quit with the agents stopped
		}
		keep, quit := answerAction(answer)
		if !quit {
			return true
		}
		s.o.SetKeepOnQuit(keep)
	}
	return false
}

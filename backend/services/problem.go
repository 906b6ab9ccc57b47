package services

import (
	"strings"
	"sync"

	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

var (
	specsOnce sync.Once
	specsByID map[string]agentmgr.Spec
)

// knownSpec is the built-in spec of a backend (display name, npm package).
func knownSpec(backend string) (agentmgr.Spec, bool) {
	specsOnce.Do(func() {
		specsByID = map[string]agentmgr.Spec{}
		for _, s := range agentmgr.Specs(nil) {
			specsByID[string(s.Backend)] = s
		}
	})
	s, ok := specsByID[backend]
	return s, ok
}

// taskProblem explains an errored task's reason in the user's words, with
// the action that fixes it (nil for a task that is not errored).
func taskProblem(status store.TaskStatus, backend, reason string) *agentmgr.Problem {
	if status != store.StatusErrored {
		return nil
	}
	if p, ok := setupProblem(reason); ok {
		return &p
	}
	display, installable := backend, false
	if s, ok := knownSpec(backend); ok {
		display, installable = s.DisplayName, s.Package != ""
	}
	p := agentmgr.Explain(display, installable, reason)
	return &p
}

// setupProblem is a failed worktree setup (workspace.ErrSetupFailed): the agent is
// not at fault, the setup (or the worktree) is fixed, then Retry.
func setupProblem(reason string) (agentmgr.Problem, bool) {
	i := strings.Index(reason, workspace.ErrSetupFailed.Error())
	if i < 0 {
		return agentmgr.Problem{}, false
	}
	msg := "W" + reason[i+1:] // from "worktree setup failed…", the app's prefixes gone
	return agentmgr.Problem{Kind: agentmgr.ProblemSetupFailed, Message: msg, Action: agentmgr.ActionRetry, ActionLabel: "Retry"}, true
}

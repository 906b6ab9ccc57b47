package inbox_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/inbox"
	"github.com/jean-claude/jean-claude/backend/inputerr"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
)

// answerer logs what the orchestrator is told; modeErr fails SetMode.
type answerer struct {
	calls   []string
	modeErr error
}

func (a *answerer) RespondToPermission(_ context.Context, taskID, requestID string, ans orchestrator.PermissionAnswer) error {
	a.calls = append(a.calls, fmt.Sprintf("%s %s %s %s %q", taskID, requestID, ans.Behavior, ans.Scope, ans.Message))
	return nil
}

func (a *answerer) SetMode(_ context.Context, taskID string, mode agent.InteractionMode) error {
	a.calls = append(a.calls, fmt.Sprintf("%s mode %s", taskID, mode))
	return a.modeErr
}

func TestAnswerPlan(t *testing.T) {
	for _, c := range []struct {
		choice, message string
		want            []string
	}{
		{inbox.PlanApprove, "", []string{`t x allow once ""`}},
		{inbox.PlanApproveAcceptEdits, "", []string{`t x allow once ""`, "t mode accept-edits"}},
		{inbox.PlanKeepPlanning, "", []string{`t x deny once "The user wants you to keep planning: do not start on the plan yet."`}},
		{inbox.PlanKeepPlanning, "split step 2", []string{`t x deny once "split step 2"`}},
	} {
		a := &answerer{}
		if err := inbox.AnswerPlan(t.Context(), a, "t", "x", c.choice, c.message); err != nil || !slices.Equal(a.calls, c.want) {
			t.Errorf("%s %q: %v, told %q; want %q", c.choice, c.message, err, a.calls, c.want)
		}
	}
	a := &answerer{}
	if err := inbox.AnswerPlan(t.Context(), a, "t", "x", "maybe", ""); !errors.Is(err, inputerr.ErrInvalid) || len(a.calls) != 0 {
		t.Errorf("unknown choice: %v, told %q", err, a.calls)
	}
	// An agent that cannot switch modes: approved all the same.
	a = &answerer{modeErr: fmt.Errorf("no modes: %w", agent.ErrUnsupported)}
	if err := inbox.AnswerPlan(t.Context(), a, "t", "x", inbox.PlanApproveAcceptEdits, ""); err != nil || len(a.calls) != 2 {
		t.Errorf("mode unsupported: %v, told %q", err, a.calls)
	}
	a = &answerer{modeErr: errors.New("store full")}
	if err := inbox.AnswerPlan(t.Context(), a, "t", "x", inbox.PlanApproveAcceptEdits, ""); err == nil {
		t.Error("a failed mode switch was not reported")
	}
}

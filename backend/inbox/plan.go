package inbox

import (
	"context"
	"errors"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/inputerr"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Plan answers (AnswerPlan).
const (
	PlanApprove            = "approve"
	PlanApproveAcceptEdits = "approve-accept-edits"
	PlanKeepPlanning       = "keep-planning"
)

// keepPlanning is what the agent is told when the user gave no reason.
const keepPlanning = "The user wants you to keep planning: do not start on the plan yet."

// Answerer is the orchestrator as a plan answer sees it.
type Answerer interface {
	RespondToPermission(ctx context.Context, taskID, requestID string, ans orchestrator.PermissionAnswer) error
	SetMode(ctx context.Context, taskID string, mode agent.InteractionMode) error
}

// AnswerPlan answers plan approval requestID of task taskID: PlanApprove
// allows it; PlanApproveAcceptEdits allows it and then switches the task
// to accept-edits (approving ends plan mode; an agent that cannot switch
// is no error); PlanKeepPlanning denies it, telling the agent message, else
// to go on planning. Any other choice is an inputerr.
func AnswerPlan(ctx context.Context, o Answerer, taskID, requestID, choice, message string) error {
	ans := orchestrator.PermissionAnswer{Behavior: agent.Allow, Scope: store.ScopeOnce}
	switch choice {
	case PlanApprove, PlanApproveAcceptEdits:
	case PlanKeepPlanning:
		if message == "" {
			message = keepPlanning
		}
		ans = orchestrator.PermissionAnswer{Behavior: agent.Deny, Scope: store.ScopeOnce, Message: message}
	default:
		return inputerr.New("choice", nil, "unknown plan answer %q", choice)
	}
	if err := o.RespondToPermission(ctx, taskID, requestID, ans); err != nil {
		return err
	}
	if choice != PlanApproveAcceptEdits {
		return nil
	}
	if err := o.SetMode(ctx, taskID, agent.ModeAcceptEdits); err != nil && !errors.Is(err, agent.ErrUnsupported) {
		return err
	}
	return nil
}

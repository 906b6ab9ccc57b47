package services

import (
	"context"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/inbox"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// InboxItem is one thing waiting on the user: inbox.Item with its JSON
// names (the "inbox:updated" event carries an inbox.Payload of those).
type InboxItem struct {
	// Key names the item for its whole life; its desktop notification
	// carries the same key.
	Key          string         `json:"key"`
	Kind         inbox.Kind     `json:"kind"`
	TaskID       string         `json:"taskId"`
	TaskName     string         `json:"taskName"`
	ProjectID    string         `json:"projectId"`
	ProjectName  string         `json:"projectName"`
	AgentBackend string         `json:"agentBackend"`
	Status       string         `json:"status"`
	RequestID    string         `json:"requestId,omitempty"`
	Request      *agent.Request `json:"request,omitempty"`
	// Plan is the plan to approve, as markdown.
	Plan string `json:"plan,omitempty"`
	// Summary says the item in one line.
	Summary string `json:"summary"`
	At      int64  `json:"at"` // when it started waiting (ms since the epoch)
}

// InboxPayload is the whole inbox: its items, oldest first, and their
// count (the "inbox:updated" event's inbox.Payload, as a DTO).
type InboxPayload struct {
	Items []InboxItem `json:"items"`
	Count int         `json:"count"`
}

func inboxItemOf(i inbox.Item) InboxItem { return InboxItem(i) }

// Plan answers (AnswerPlan).
const (
	PlanApprove            = inbox.PlanApprove
	PlanApproveAcceptEdits = inbox.PlanApproveAcceptEdits
	PlanKeepPlanning       = inbox.PlanKeepPlanning
)

// InboxService is the attention inbox: everything waiting on the user
// across all projects. Permissions and questions are answered through
// SessionService; plans and results here. Changes come as "inbox:updated"
// (InboxPayload); a clicked desktop notification sends "inbox:open".
type InboxService struct {
	ctx context.Context
	db  *store.DB
	o   *orchestrator.Orchestrator
}

// NewInboxService returns the service; ctx bounds its calls.
func NewInboxService(ctx context.Context, db *store.DB, o *orchestrator.Orchestrator) *InboxService {
	return &InboxService{ctx: ctx, db: db, o: o}
}

// Items returns the inbox, oldest first.
func (s *InboxService) Items() (InboxPayload, error) {
	if s.db == nil {
		return InboxPayload{Items: []InboxItem{}}, nil
	}
	items, err := inbox.Load(s.ctx, s.db.R)
	if err != nil {
		return InboxPayload{}, userErr(err)
	}
	return InboxPayload{Items: mapAll(items, inboxItemOf), Count: len(items)}, nil
}

// AnswerPlan answers a plan approval: "approve", "approve-accept-edits"
// (approve, then switch the task to accept-edits) or "keep-planning" (the
// agent is told to go on planning; message, when given, says what to
// change). The rule is inbox.AnswerPlan.
func (s *InboxService) AnswerPlan(taskID, requestID, choice, message string) error {
	if err := need("taskId", taskID); err != nil {
		return err
	}
	if err := need("requestId", requestID); err != nil {
		return err
	}
	return userErr(inbox.AnswerPlan(s.ctx, s.o, taskID, requestID, choice, message))
}

// Dismiss marks a task's finished result (or error) read: it leaves the
// inbox.
func (s *InboxService) Dismiss(taskID string) error {
	if err := need("taskId", taskID); err != nil {
		return err
	}
	return userErr(s.o.MarkRead(s.ctx, taskID))
}

package services

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// SessionService is the frontend's handle on running agents: start, follow
// up, answer, stop, resume, and read a task's transcript. Live changes come
// as events ("agent:event", "task:updated", "queue:updated",
// "requests:updated", "permission:decided", "question:answered",
// "renormalize:progress").
type SessionService struct {
	ctx context.Context
	o   *orchestrator.Orchestrator
	db  *store.DB
}

// NewSessionService returns the service over o; ctx bounds its calls.
func NewSessionService(ctx context.Context, db *store.DB, o *orchestrator.Orchestrator) *SessionService {
	return &SessionService{ctx: ctx, o: o, db: db}
}

// TaskViewOf maps the orchestrator's task row to the Task DTO, the
// "task:updated" payload (orchestrator.Options.TaskView).
func TaskViewOf(t store.TaskRun) any { return NewTaskDTO(t.Task) }

func need(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return invalid(field, nil, "%s is required", field)
	}
	return nil
}

// Start starts a created task's agent with the task's prompt.
func (s *SessionService) Start(taskID string) error {
	if err := need("taskId", taskID); err != nil {
		return err
	}
	return userErr(s.o.Start(s.ctx, taskID))
}

// SendMessage sends a follow-up: at once when the agent is idle, queued
// while it is busy, resuming the stored session when the task has ended.
func (s *SessionService) SendMessage(taskID, text string) error {
	if err := need("taskId", taskID); err != nil {
		return err
	}
	if err := need("text", text); err != nil {
		return err
	}
	return userErr(s.o.SendMessage(s.ctx, taskID, text))
}

// Stop interrupts the agent and ends its processes; the task becomes
// interrupted.
func (s *SessionService) Stop(taskID string) error {
	return userErr(s.o.Stop(s.ctx, taskID))
}

// Resume restarts an interrupted, errored or completed task's session by
// its stored session id (the first queued message, else "continue").
func (s *SessionService) Resume(taskID string) error {
	return userErr(s.o.Resume(s.ctx, taskID))
}

// RespondToPermission answers a pending permission request.
func (s *SessionService) RespondToPermission(taskID, requestID string, answer PermissionAnswer) error {
	return userErr(s.o.RespondToPermission(s.ctx, taskID, requestID, answer.toOrchestrator()))
}

// RespondToQuestion answers a pending question: for each question, in
// order, the chosen labels or the text typed.
func (s *SessionService) RespondToQuestion(taskID, requestID string, answers [][]string) error {
	return userErr(s.o.RespondToQuestion(s.ctx, taskID, requestID, answers))
}

// SetMode switches the task's interaction mode (ask, accept-edits, plan,
// bypass), live when it runs.
func (s *SessionService) SetMode(taskID string, mode agent.InteractionMode) error {
	return userErr(s.o.SetMode(s.ctx, taskID, mode))
}

// SetModel switches the task's model, live when the backend can.
func (s *SessionService) SetModel(taskID, model string) error {
	return userErr(s.o.SetModel(s.ctx, taskID, model))
}

// Messages returns the task's transcript. Tool calls answered by a
// permission decision carry it in metadata.permissionDecisions[toolId].
func (s *SessionService) Messages(taskID string) ([]agent.Message, error) {
	m, err := s.o.Messages(s.ctx, taskID)
	return m, userErr(err)
}

// MessagePage is one page of a task's transcript, oldest first.
type MessagePage struct {
	Messages []agent.Message `json:"messages"`
	// Cursor is the page's oldest message's position: pass it as before
	// to get the page before this one.
	Cursor int64 `json:"cursor"`
	// HasOlder tells whether older messages exist.
	HasOlder bool `json:"hasOlder"`
}

// MessagePage returns up to limit of the task's messages before cursor
// before (the newest when before < 0), oldest first, as Messages shows
// them. With messageID, the page reaches back to that message, so a view
// jumping to it holds it.
func (s *SessionService) MessagePage(taskID string, before int64, limit int, messageID string) (MessagePage, error) {
	p, err := s.o.MessagesPage(s.ctx, taskID, before, limit, messageID)
	return MessagePage{Messages: p.Messages, Cursor: p.First, HasOlder: p.HasOlder}, userErr(err)
}

// PendingRequests returns the task's pending permission requests and questions.
func (s *SessionService) PendingRequests(taskID string) ([]PendingRequest, error) {
	r, err := s.o.PendingRequests(s.ctx, taskID)
	return mapAll(r, pendingRequestOf), userErr(err)
}

// PermissionDecisions returns every answer given to the task's permission
// requests, oldest first.
func (s *SessionService) PermissionDecisions(taskID string) ([]PermissionDecision, error) {
	d, err := s.o.Decisions(s.ctx, taskID)
	return mapAll(d, permissionDecisionOf), userErr(err)
}

// QuestionAnswers returns every answer the user gave to the task's
// questions, oldest first.
func (s *SessionService) QuestionAnswers(taskID string) ([]QuestionAnswer, error) {
	a, err := s.o.QuestionAnswers(s.ctx, taskID)
	return mapAll(a, questionAnswerOf), userErr(err)
}

// PermissionRules returns the project's "always allow" rules (its tasks'
// rules included).
func (s *SessionService) PermissionRules(projectID string) ([]PermissionRule, error) {
	r, err := store.ProjectRules(s.ctx, s.db.R, projectID)
	return mapAll(r, permissionRuleOf), userErr(err)
}

// EditPermissionRule changes what an "always allow" rule covers: matchKind
// exact, prefix (commands) or folder (paths), and its pattern.
func (s *SessionService) EditPermissionRule(id, matchKind, pattern string) (PermissionRule, error) {
	if err := need("pattern", pattern); err != nil {
		return PermissionRule{}, err
	}
	r, err := s.o.EditRule(s.ctx, id, orchestrator.RuleSpec{MatchKind: matchKind, Pattern: pattern})
	return permissionRuleOf(r), userErr(err)
}

// DeletePermissionRule removes an "always allow" rule.
func (s *SessionService) DeletePermissionRule(id string) error {
	return userErr(store.DeleteRule(s.ctx, s.db.W, id))
}

// Queue returns the task's queued follow-ups in send order.
func (s *SessionService) Queue(taskID string) ([]QueuedMessage, error) {
	q, err := s.o.Queue(s.ctx, taskID)
	return mapAll(q, queuedMessageOf), userErr(err)
}

// EditQueued changes a queued follow-up not yet sent.
func (s *SessionService) EditQueued(id, text string) error {
	if err := need("text", text); err != nil {
		return err
	}
	return userErr(s.o.EditQueued(s.ctx, id, text))
}

// RemoveQueued deletes a queued follow-up not yet sent.
func (s *SessionService) RemoveQueued(id string) error {
	return userErr(s.o.RemoveQueued(s.ctx, id))
}

// MarkRead clears the task's unread flag.
func (s *SessionService) MarkRead(taskID string) error {
	return userErr(s.o.MarkRead(s.ctx, taskID))
}

// SetWindowFocused tells the backend whether the window has focus: desktop
// notifications are only sent while it has not. The frontend calls it on
// window focus and blur.
func (s *SessionService) SetWindowFocused(focused bool) error {
	s.o.SetWindowFocused(focused)
	return nil
}

// NotificationSettings returns which notification kinds are on
// (complete, error, permission, question; all on unless turned off).
func (s *SessionService) NotificationSettings() (map[string]bool, error) {
	out := map[string]bool{}
	for _, k := range notify.Kinds {
		v, ok, err := store.SettingValue(s.ctx, s.db.R, k.SettingKey())
		if err != nil {
			return nil, userErr(err)
		}
		out[string(k)] = notify.Enabled(v, ok)
	}
	return out, nil
}

// SetNotificationEnabled turns one kind of notification on or off.
func (s *SessionService) SetNotificationEnabled(kind string, enabled bool) error {
	k := notify.Kind(kind)
	if !slices.Contains(notify.Kinds, k) {
		return invalid("kind", nil, "unknown notification kind %q", kind)
	}
	return userErr(store.SetSetting(s.ctx, s.db.W, k.SettingKey(), strconv.FormatBool(enabled)))
}

// userErr words orchestrator errors for the user (the message is what the
// frontend shows).
func userErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("not found: %w", err)
	case errors.Is(err, orchestrator.ErrBusy):
		return fmt.Errorf("the task is already running: %w", err)
	case errors.Is(err, agent.ErrUnknownRequest):
		return fmt.Errorf("that request was already answered or has expired: %w", err)
	case errors.Is(err, agent.ErrSessionClosed):
		return fmt.Errorf("the agent session has ended; resume the task to continue: %w", err)
	}
	return err
}

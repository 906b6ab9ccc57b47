package services

import (
	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// The SessionService's DTOs: the shapes the UI calls with and reads back.
// Their JSON names are the store's, because the live events
// ("queue:updated", "requests:updated", "permission:decided",
// "question:answered") still carry
// the store types; sessiondto_test.go holds the two to the same fields.

// PermissionAnswer is the user's answer to a permission request:
// behavior "allow" | "deny", scope "once" | "task" | "project" (always for
// this task / project; ignored on deny), message (the reason given to the
// agent on deny), interrupt (deny and end the turn), rule (what an "always"
// allow covers, as the user edited it; nil keeps the request's own subject).
type PermissionAnswer struct {
	Behavior  agent.Behavior `json:"behavior"`
	Scope     string         `json:"scope"`
	Message   string         `json:"message,omitempty"`
	Interrupt bool           `json:"interrupt,omitempty"`
	Rule      *RuleSpec      `json:"rule,omitempty"`
}

// RuleSpec is what an "always allow" rule covers: matchKind exact, prefix
// (commands) or folder (paths), and its pattern.
type RuleSpec struct {
	MatchKind string `json:"matchKind"`
	Pattern   string `json:"pattern"`
}

// QueuedMessage is a follow-up waiting for the agent to be idle.
type QueuedMessage struct {
	ID        string `json:"id"`
	TaskID    string `json:"taskId"`
	Text      string `json:"text"`
	Position  int64  `json:"position"`
	CreatedAt int64  `json:"createdAt"`
}

// PendingRequest is a permission request or question the agent waits on.
type PendingRequest struct {
	TaskID    string        `json:"taskId"`
	RequestID string        `json:"requestId"`
	Kind      string        `json:"kind"` // permission | question
	Request   agent.Request `json:"request"`
	CreatedAt int64         `json:"createdAt"`
}

// PermissionDecision is one answer to a permission request, by the user or
// by a stored rule (Label says which, for the UI).
type PermissionDecision struct {
	ID        int64  `json:"id"`
	TaskID    string `json:"taskId"`
	RequestID string `json:"requestId"`
	ToolID    string `json:"toolId,omitempty"`
	ToolName  string `json:"toolName"`
	Input     string `json:"input,omitempty"`
	Behavior  string `json:"behavior"` // allow | deny
	Scope     string `json:"scope"`    // once | task | project
	Source    string `json:"source"`   // user | rule
	RuleID    string `json:"ruleId,omitempty"`
	Label     string `json:"label"`
	Message   string `json:"message,omitempty"`
	CreatedAt int64  `json:"createdAt"`
}

// QuestionAnswer is the user's answer to a question: for each question of
// Request, in order, the labels chosen or the text typed.
type QuestionAnswer struct {
	ID        int64         `json:"id"`
	TaskID    string        `json:"taskId"`
	RequestID string        `json:"requestId"`
	ToolID    string        `json:"toolId,omitempty"`
	Request   agent.Request `json:"request"`
	Answers   [][]string    `json:"answers"`
	CreatedAt int64         `json:"createdAt"`
}

// PermissionRule is an "always allow" rule: scope task | project, matchKind
// exact | prefix | folder, subjectType command | path | other (which kinds
// an edit may choose).
type PermissionRule struct {
	ID          string `json:"id"`
	Scope       string `json:"scope"`
	ProjectID   string `json:"projectId"`
	TaskID      string `json:"taskId,omitempty"`
	ToolName    string `json:"toolName"`
	MatchKind   string `json:"matchKind"`
	Pattern     string `json:"pattern"`
	SubjectType string `json:"subjectType"`
	CreatedAt   int64  `json:"createdAt"`
}

// toOrchestrator maps the UI's answer to the orchestrator's.
func (a PermissionAnswer) toOrchestrator() orchestrator.PermissionAnswer {
	out := orchestrator.PermissionAnswer{Behavior: a.Behavior, Scope: a.Scope, Message: a.Message, Interrupt: a.Interrupt}
	if a.Rule != nil {
		out.Rule = &orchestrator.RuleSpec{MatchKind: a.Rule.MatchKind, Pattern: a.Rule.Pattern}
	}
	return out
}

func queuedMessageOf(m store.QueuedMessage) QueuedMessage {
	return QueuedMessage{ID: m.ID, TaskID: m.TaskID, Text: m.Text, Position: m.Position, CreatedAt: m.CreatedAt}
}

func pendingRequestOf(p store.PendingRequest) PendingRequest {
	return PendingRequest{TaskID: p.TaskID, RequestID: p.RequestID, Kind: p.Kind, Request: p.Request, CreatedAt: p.CreatedAt}
}

func permissionDecisionOf(d store.PermissionDecision) PermissionDecision {
	return PermissionDecision{
		ID: d.ID, TaskID: d.TaskID, RequestID: d.RequestID, ToolID: d.ToolID, ToolName: d.ToolName,
		Input: d.Input, Behavior: d.Behavior, Scope: d.Scope, Source: d.Source, RuleID: d.RuleID,
		Label: d.Label, Message: d.Message, CreatedAt: d.CreatedAt,
	}
}

func questionAnswerOf(a store.QuestionAnswer) QuestionAnswer {
	return QuestionAnswer{ID: a.ID, TaskID: a.TaskID, RequestID: a.RequestID, ToolID: a.ToolID, Request: a.Request,
		Answers: a.Answers, CreatedAt: a.CreatedAt}
}

func permissionRuleOf(r store.PermissionRule) PermissionRule {
	return PermissionRule{
		ID: r.ID, Scope: r.Scope, ProjectID: r.ProjectID, TaskID: r.TaskID, ToolName: r.ToolName,
		MatchKind: r.MatchKind, Pattern: r.Pattern, SubjectType: r.SubjectType, CreatedAt: r.CreatedAt,
	}
}

// mapAll maps a list with f; nil stays nil (null on the wire, as before).
func mapAll[S, D any](in []S, f func(S) D) []D {
	if in == nil {
		return nil
	}
	out := make([]D, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

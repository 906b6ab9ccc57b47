// Package inbox is the attention inbox (issue 17): everything waiting on
// the user across all projects — permission requests, questions, plan
// approvals, unread finished results and errors — computed from the store
// in one query (store.Inbox), oldest first, and kept up to date by Watcher,
// which recomputes it after every stored change the orchestrator emits and
// withdraws the desktop notification of an item that left it.
package inbox

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Kind is what an inbox item asks of the user.
type Kind string

// Item kinds.
const (
	KindPermission Kind = "permission"
	KindQuestion   Kind = "question"
	KindPlan       Kind = "plan" // a plan to approve (Claude's ExitPlanMode, an ACP agent's plan)
	KindResult     Kind = "result"
	KindError      Kind = "error"
)

// Item is one thing waiting on the user.
type Item struct {
	// Key names the item for its whole life (notify.RequestKey,
	// notify.ResultKey); its desktop notification carries the same key.
	Key          string         `json:"key"`
	Kind         Kind           `json:"kind"`
	TaskID       string         `json:"taskId"`
	TaskName     string         `json:"taskName"`
	ProjectID    string         `json:"projectId"`
	ProjectName  string         `json:"projectName"`
	AgentBackend string         `json:"agentBackend"`
	Status       string         `json:"status"`
	RequestID    string         `json:"requestId,omitempty"`
	Request      *agent.Request `json:"request,omitempty"`
	// Plan is the plan to approve, as markdown (KindPlan).
	Plan string `json:"plan,omitempty"`
	// Summary says the item in one line: "Bash wants to run: npm test",
	// the question, the result's first line, why it failed.
	Summary string `json:"summary"`
	At      int64  `json:"at"` // when it started waiting (ms since the epoch)
}

// Payload is the "inbox:updated" event and InboxService.Items' answer.
type Payload struct {
	Items []Item `json:"items"`
	Count int    `json:"count"`
}

// EventUpdated is emitted with a Payload whenever the inbox changed.
const EventUpdated = "inbox:updated"

// EventOpen asks the window to show one item (a notification was clicked):
// its payload is an OpenRequest.
const EventOpen = "inbox:open"

// OpenRequest is the "inbox:open" payload.
type OpenRequest struct {
	Key    string `json:"key"`
	TaskID string `json:"taskId"`
}

// Load computes the inbox from the store.
func Load(ctx context.Context, q store.SQLRunner) ([]Item, error) {
	rows, err := store.Inbox(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]Item, 0, len(rows))
	for _, r := range rows {
		out = append(out, itemOf(ctx, q, r))
	}
	return out, nil
}

func itemOf(ctx context.Context, q store.SQLRunner, r store.InboxRow) Item {
	it := Item{
		Kind: Kind(r.Kind), TaskID: r.TaskID, TaskName: taskName(r), ProjectID: r.ProjectID,
		ProjectName: r.ProjectName, AgentBackend: r.AgentBackend, Status: string(r.Status), RequestID: r.RequestID, At: r.At,
	}
	if r.Kind == store.InboxResult {
		it.Kind, it.Summary = resultOf(ctx, q, r)
		it.Key = notify.ResultKey(r.TaskID, it.Kind == KindError)
		return it
	}
	var req agent.Request
	if err := json.Unmarshal(r.Request, &req); err != nil {
		// A request the app cannot read still waits: it is shown plainly.
		it.Summary = "The agent waits for an answer (open the task)"
	}
	it.Request = &req
	switch {
	case it.Kind == KindQuestion:
		it.Summary = QuestionSummary(req)
	case PlanOf(req) != "":
		it.Kind, it.Plan = KindPlan, PlanOf(req)
		it.Summary = "Plan ready: " + firstLine(it.Plan)
	default:
		it.Summary = orchestrator.PermissionSummary(req)
	}
	it.Key = notify.RequestKey(r.TaskID, r.RequestID)
	return it
}

// PlanOf returns the plan a permission request asks to approve: Claude's
// ExitPlanMode tool (input.plan), or any agent's request whose input
// carries a "plan" text (claude-code-acp's "Ready to code?"); "" when the
// request is not a plan approval.
func PlanOf(req agent.Request) string {
	var in map[string]any
	_ = json.Unmarshal(req.Input, &in)
	if p, ok := in["plan"].(string); ok && strings.TrimSpace(p) != "" {
		return p
	}
	if isPlanTool(req.ToolName) {
		if req.Description != "" {
			return req.Description
		}
		return "(the agent gave no plan text)"
	}
	return ""
}

func isPlanTool(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(name, "_", ""))
	return n == "exitplanmode"
}

// QuestionSummary is a question request in one line.
func QuestionSummary(req agent.Request) string {
	q := req.Question
	if q == "" && len(req.Questions) > 0 {
		q = req.Questions[0].Question
		if n := len(req.Questions); n > 1 {
			q += " (+" + strconv.Itoa(n-1) + " more)"
		}
	}
	if q == "" {
		return "The agent asks a question"
	}
	return firstLine(q)
}

func resultOf(ctx context.Context, q store.SQLRunner, r store.InboxRow) (Kind, string) {
	if r.Status == store.StatusErrored {
		why := firstLine(r.StatusReason)
		if why == "" {
			why = "the agent stopped with an error"
		}
		return KindError, "Failed: " + why
	}
	if r.Status == store.StatusInterrupted {
		return KindResult, "Stopped: " + firstLine(r.StatusReason)
	}
	m, ok, err := store.LastMessage(ctx, q, r.TaskID)
	if err != nil || !ok {
		return KindResult, "Done"
	}
	text := m.Result
	if text == "" {
		for _, p := range m.Parts {
			if p.Type == agent.PartText && strings.TrimSpace(p.Text) != "" {
				text = p.Text
			}
		}
	}
	if m.IsError {
		return KindError, "Failed: " + firstLine(text)
	}
	if text == "" {
		return KindResult, "Done"
	}
	return KindResult, "Done: " + firstLine(text)
}

func taskName(r store.InboxRow) string {
	if r.TaskName != "" {
		return r.TaskName
	}
	return firstLine(r.TaskPrompt)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	s = strings.TrimLeft(s, "# ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// TaskOfKey returns the task id an item key names ("" when it is not a key).
func TaskOfKey(key string) string {
	parts := strings.SplitN(key, ":", 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

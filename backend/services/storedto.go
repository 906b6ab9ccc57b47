package services

import "github.com/jean-claude/jean-claude/backend/store"

// The store rows the history, usage and comparison screens read, as the
// services' own DTOs: same fields and JSON names as the store's (the
// "limit:updated" event carries a store.TaskLimit), converted with a Go
// conversion that stops compiling when the two drift apart.

// CompareGroup is one prompt run on several agents (issue 17).
type CompareGroup struct {
	ID         string   `json:"id"`
	ProjectID  string   `json:"projectId"`
	Prompt     string   `json:"prompt"`
	CreatedAt  int64    `json:"createdAt"`
	KeptTaskID string   `json:"keptTaskId"`
	KeptAt     int64    `json:"keptAt"`
	TaskIDs    []string `json:"taskIds"` // in the order they were chosen
}

// CheckRun is the project's check command run in a task's worktree.
type CheckRun struct {
	TaskID    string `json:"taskId"`
	Command   string `json:"command"`
	Status    string `json:"status"` // running | passed | failed | error
	ExitCode  int    `json:"exitCode"`
	Output    string `json:"output"`
	StartedAt int64  `json:"startedAt"`
	EndedAt   int64  `json:"endedAt"`
}

// SearchHit is one message matching a search, newest first.
type SearchHit struct {
	RowID        int64  `json:"rowId"`
	TaskID       string `json:"taskId"`
	TaskName     string `json:"taskName"`
	TaskPrompt   string `json:"taskPrompt"`
	TaskSummary  string `json:"taskSummary"`
	ProjectID    string `json:"projectId"`
	ProjectName  string `json:"projectName"`
	Agent        string `json:"agent"`
	MessageID    string `json:"messageId"`
	MessageIndex int    `json:"messageIndex"`
	Role         string `json:"role"`
	CreatedAt    int64  `json:"createdAt"`
	// Snippet is the text around the first match with every match between
	// MarkStart and MarkEnd.
	Snippet string `json:"snippet"`
}

// TaskLink is a task linked to another one: its parent (the task it was
// forked or spawned from) or one of its children.
type TaskLink struct {
	TaskID    string `json:"taskId"`
	Name      string `json:"name"`
	Kind      string `json:"kind"` // fork | spawn
	Backend   string `json:"backend"`
	Status    string `json:"status"`
	MessageID string `json:"messageId,omitempty"` // the message a fork continues from
}

// UsageRow is one project × agent × day of cost and tokens.
type UsageRow struct {
	Day          string  `json:"day"` // YYYY-MM-DD, local time
	ProjectID    string  `json:"projectId"`
	ProjectName  string  `json:"projectName"`
	Agent        string  `json:"agent"`
	CostUSD      float64 `json:"costUsd"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	Turns        int     `json:"turns"`
}

// TaskLimit is a task's last reported usage limit (times in Unix ms).
type TaskLimit struct {
	TaskID     string `json:"taskId"`
	ResetAt    int64  `json:"resetAt"`
	Message    string `json:"message"`
	Kind       string `json:"kind"`
	State      string `json:"state"`
	DetectedAt int64  `json:"detectedAt"`
	RetriedAt  int64  `json:"retriedAt"`
	Error      string `json:"error"`
}

func compareGroupOf(g store.CompareGroup) CompareGroup { return CompareGroup(g) }
func searchHitOf(h store.SearchHit) SearchHit          { return SearchHit(h) }
func taskLinkOf(l store.TaskLink) TaskLink             { return TaskLink(l) }
func usageRowOf(r store.UsageRow) UsageRow             { return UsageRow(r) }

// ptrOf maps an optional row.
func ptrOf[S, D any](in *S, f func(S) D) *D {
	if in == nil {
		return nil
	}
	out := f(*in)
	return &out
}

package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// InboxRow is one thing waiting on the user, as stored: a pending request
// (Kind "permission" or "question", RequestID set) or a task's unread
// finished result (Kind "result", Status completed, errored or interrupted).
type InboxRow struct {
	Kind         string
	TaskID       string
	TaskName     string
	TaskPrompt   string
	ProjectID    string
	ProjectName  string
	AgentBackend string
	Status       TaskStatus
	StatusReason string
	RequestID    string
	Request      json.RawMessage // agent.Request JSON; nil for a result
	At           int64           // when it started waiting (ms)
}

// Inbox kinds of rows that are not requests.
const InboxResult = "result"

// inboxSQL is the one query behind the inbox: pending requests of every
// task, and every unread task that has finished, oldest first (ties in
// insertion order, so two requests of one batch keep their order).
const inboxSQL = `
SELECT kind, taskId, name, prompt, projectId, projectName, agentBackend, status, statusReason, requestId, request, at
FROM (
	SELECT r.kind AS kind, t.id AS taskId, t.name AS name, t.prompt AS prompt, p.id AS projectId,
		p.name AS projectName, t.agentBackend AS agentBackend, t.status AS status,
		t.statusReason AS statusReason, r.requestId AS requestId, r.request AS request,
		r.createdAt AS at, r.rowid AS seq
	FROM pending_requests r JOIN tasks t ON t.id = r.taskId JOIN projects p ON p.id = t.projectId
	UNION ALL
	SELECT 'result', t.id, t.name, t.prompt, p.id, p.name, t.agentBackend, t.status, t.statusReason,
		'', NULL, coalesce(nullif(t.endedAt, 0), t.updatedAt), 0
	FROM tasks t JOIN projects p ON p.id = t.projectId
	WHERE t.hasUnread = 1 AND t.status IN ('completed', 'errored', 'interrupted')
)
ORDER BY at, seq, taskId`

// Inbox returns everything waiting on the user across all projects,
// oldest first.
func Inbox(ctx context.Context, q SQLRunner) ([]InboxRow, error) {
	rows, err := q.QueryContext(ctx, inboxSQL)
	if err != nil {
		return nil, fmt.Errorf("store: inbox: %w", err)
	}
	defer rows.Close()
	out := []InboxRow{}
	for rows.Next() {
		var r InboxRow
		var req *string
		if err := rows.Scan(&r.Kind, &r.TaskID, &r.TaskName, &r.TaskPrompt, &r.ProjectID, &r.ProjectName,
			&r.AgentBackend, &r.Status, &r.StatusReason, &r.RequestID, &req, &r.At); err != nil {
			return nil, fmt.Errorf("store: inbox: %w", err)
		}
		if req != nil {
			r.Request = json.RawMessage(*req)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: inbox: %w", err)
	}
	return out, nil
}

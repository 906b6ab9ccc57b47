package store

import (
	"context"
	"fmt"
)

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

// Parent kinds.
const (
	LinkFork  = "fork"
	LinkSpawn = "spawn"
)

// SetParent links task id to its parent (kind fork or spawn; messageID is
// the message a fork continues from).
func SetParent(ctx context.Context, q SQLRunner, id, parentID, kind, messageID string) error {
	_, err := q.ExecContext(ctx, `UPDATE tasks SET parentTaskId = ?, parentKind = ?, forkedFromMessageId = ? WHERE id = ?`,
		parentID, kind, messageID, id)
	if err != nil {
		return fmt.Errorf("store: link task %s to %s: %w", id, parentID, err)
	}
	return nil
}

// TaskLinks returns task id's parent (nil when none) and children, oldest
// child first.
func TaskLinks(ctx context.Context, q SQLRunner, id string) (*TaskLink, []TaskLink, error) {
	var parent *TaskLink
	rows, err := q.QueryContext(ctx, `SELECT p.id, p.name, c.parentKind, p.agentBackend, p.status, c.forkedFromMessageId
		FROM tasks c JOIN tasks p ON p.id = c.parentTaskId WHERE c.id = ?`, id)
	if err != nil {
		return nil, nil, fmt.Errorf("store: links of task %s: %w", id, err)
	}
	for rows.Next() {
		var l TaskLink
		if err := rows.Scan(&l.TaskID, &l.Name, &l.Kind, &l.Backend, &l.Status, &l.MessageID); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("store: links of task %s: %w", id, err)
		}
		parent = &l
	}
	rows.Close()
	rows, err = q.QueryContext(ctx, `SELECT id, name, parentKind, agentBackend, status, forkedFromMessageId
		FROM tasks WHERE parentTaskId = ? ORDER BY createdAt, rowid`, id) // rowid: creation order within a millisecond
	if err != nil {
		return nil, nil, fmt.Errorf("store: children of task %s: %w", id, err)
	}
	defer rows.Close()
	children := []TaskLink{}
	for rows.Next() {
		var l TaskLink
		if err := rows.Scan(&l.TaskID, &l.Name, &l.Kind, &l.Backend, &l.Status, &l.MessageID); err != nil {
			return nil, nil, fmt.Errorf("store: children of task %s: %w", id, err)
		}
		children = append(children, l)
	}
	return parent, children, rows.Err()
}

// SetForkSession makes the task a native fork of sessionID: its next start
// resumes a copy of that session (agent.Config.ForkSession) and the task
// owns the copy's id from then on (migration 0117 clears the flag). point
// says where the copy ends ("" = the whole session; agent.Config.ForkPoint).
func SetForkSession(ctx context.Context, q SQLRunner, taskID, sessionID, point string) error {
	if _, err := q.ExecContext(ctx, `UPDATE tasks SET sessionId = ?, forkSession = 1, forkPoint = ? WHERE id = ?`, sessionID, point, taskID); err != nil {
		return fmt.Errorf("store: fork session of task %s: %w", taskID, err)
	}
	return nil
}

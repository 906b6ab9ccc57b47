package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Request kinds.
const (
	RequestPermission = "permission"
	RequestQuestion   = "question"
)

// PendingRequest is a permission request or question the agent waits on.
type PendingRequest struct {
	TaskID    string        `json:"taskId"`
	RequestID string        `json:"requestId"`
	Kind      string        `json:"kind"` // permission | question
	Request   agent.Request `json:"request"`
	CreatedAt int64         `json:"createdAt"`
}

// AddPending stores a pending request (replacing one with the same id).
func AddPending(ctx context.Context, q SQLRunner, p PendingRequest) error {
	data, err := json.Marshal(p.Request)
	if err != nil {
		return fmt.Errorf("store: encode request %s: %w", p.RequestID, err)
	}
	_, err = q.ExecContext(ctx, `INSERT OR REPLACE INTO pending_requests (taskId, requestId, kind, request, createdAt)
		VALUES (?, ?, ?, ?, ?)`, p.TaskID, p.RequestID, p.Kind, string(data), p.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: add pending request %s of task %s: %w", p.RequestID, p.TaskID, err)
	}
	return nil
}

// GetPending returns one pending request, or an error wrapping ErrNotFound.
func GetPending(ctx context.Context, q SQLRunner, taskID, requestID string) (PendingRequest, error) {
	p := PendingRequest{TaskID: taskID, RequestID: requestID}
	var data string
	err := q.QueryRowContext(ctx, `SELECT kind, request, createdAt FROM pending_requests WHERE taskId = ? AND requestId = ?`,
		taskID, requestID).Scan(&p.Kind, &data, &p.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("store: pending request %s of task %s: %w", requestID, taskID, ErrNotFound)
	}
	if err != nil {
		return p, fmt.Errorf("store: pending request %s of task %s: %w", requestID, taskID, err)
	}
	if err := json.Unmarshal([]byte(data), &p.Request); err != nil {
		return p, fmt.Errorf("store: pending request %s: decode: %w", requestID, err)
	}
	return p, nil
}

// RemovePending deletes one pending request.
func RemovePending(ctx context.Context, q SQLRunner, taskID, requestID string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM pending_requests WHERE taskId = ? AND requestId = ?`, taskID, requestID); err != nil {
		return fmt.Errorf("store: remove pending request %s of task %s: %w", requestID, taskID, err)
	}
	return nil
}

// TakePending deletes one pending request and reports whether it was
// there.
func TakePending(ctx context.Context, q SQLRunner, taskID, requestID string) (bool, error) {
	res, err := q.ExecContext(ctx, `DELETE FROM pending_requests WHERE taskId = ? AND requestId = ?`, taskID, requestID)
	if err != nil {
		return false, fmt.Errorf("store: take pending request %s of task %s: %w", requestID, taskID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: take pending request %s of task %s: %w", requestID, taskID, err)
	}
	return n > 0, nil
}

// ClearPending deletes every pending request of a task.
func ClearPending(ctx context.Context, q SQLRunner, taskID string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM pending_requests WHERE taskId = ?`, taskID); err != nil {
		return fmt.Errorf("store: clear pending requests of task %s: %w", taskID, err)
	}
	return nil
}

// ListPending returns a task's pending requests, oldest first.
func ListPending(ctx context.Context, q SQLRunner, taskID string) ([]PendingRequest, error) {
	rows, err := q.QueryContext(ctx, `SELECT requestId, kind, request, createdAt FROM pending_requests
		WHERE taskId = ? ORDER BY createdAt, rowid`, taskID)
	if err != nil {
		return nil, fmt.Errorf("store: pending requests of task %s: %w", taskID, err)
	}
	defer rows.Close()
	out := []PendingRequest{}
	for rows.Next() {
		p := PendingRequest{TaskID: taskID}
		var data string
		if err := rows.Scan(&p.RequestID, &p.Kind, &data, &p.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: pending requests of task %s: %w", taskID, err)
		}
		if err := json.Unmarshal([]byte(data), &p.Request); err != nil {
			return nil, fmt.Errorf("store: pending request %s: decode: %w", p.RequestID, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: pending requests of task %s: %w", taskID, err)
	}
	return out, nil
}

// TaskEvent is a stored non-message session event.
type TaskEvent struct {
	ID        int64           `json:"id"`
	TaskID    string          `json:"taskId"`
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	CreatedAt int64           `json:"createdAt"`
}

// InsertTaskEvent stores a non-message event (rate-limit, tool-state-update, ...).
func InsertTaskEvent(ctx context.Context, q SQLRunner, taskID, typ string, data []byte, now int64) error {
	if _, err := q.ExecContext(ctx, `INSERT INTO task_events (taskId, type, data, createdAt) VALUES (?, ?, ?, ?)`,
		taskID, typ, string(data), now); err != nil {
		return fmt.Errorf("store: insert %s event of task %s: %w", typ, taskID, err)
	}
	return nil
}

// TaskEvents returns a task's stored non-message events of the given type
// (all types when typ is empty), oldest first.
func TaskEvents(ctx context.Context, q SQLRunner, taskID, typ string) ([]TaskEvent, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, type, data, createdAt FROM task_events
		WHERE taskId = ? AND (? = '' OR type = ?) ORDER BY id`, taskID, typ, typ)
	if err != nil {
		return nil, fmt.Errorf("store: events of task %s: %w", taskID, err)
	}
	defer rows.Close()
	out := []TaskEvent{}
	for rows.Next() {
		e := TaskEvent{TaskID: taskID}
		var data string
		if err := rows.Scan(&e.ID, &e.Type, &data, &e.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: events of task %s: %w", taskID, err)
		}
		e.Data = json.RawMessage(data)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: events of task %s: %w", taskID, err)
	}
	return out, nil
}

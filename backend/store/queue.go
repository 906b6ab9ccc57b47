package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// QueuedMessage is a follow-up waiting for the agent to be idle.
type QueuedMessage struct {
	ID        string `json:"id"`
	TaskID    string `json:"taskId"`
	Text      string `json:"text"`
	Position  int64  `json:"position"`
	CreatedAt int64  `json:"createdAt"`
}

// Enqueue appends a follow-up to task m.TaskID's queue (m.Position is
// assigned) and returns it.
func Enqueue(ctx context.Context, q SQLRunner, m QueuedMessage) (QueuedMessage, error) {
	err := q.QueryRowContext(ctx, `INSERT INTO queued_messages (id, taskId, text, position, createdAt, updatedAt)
		VALUES (?, ?, ?, (SELECT coalesce(max(position), 0) + 1 FROM queued_messages WHERE taskId = ?), ?, ?)
		RETURNING position`, m.ID, m.TaskID, m.Text, m.TaskID, m.CreatedAt, m.CreatedAt).Scan(&m.Position)
	if err != nil {
		return m, fmt.Errorf("store: enqueue for task %s: %w", m.TaskID, err)
	}
	return m, nil
}

// Queue returns task taskID's queued follow-ups in send order.
func Queue(ctx context.Context, q SQLRunner, taskID string) ([]QueuedMessage, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, taskId, text, position, createdAt FROM queued_messages
		WHERE taskId = ? ORDER BY position`, taskID)
	if err != nil {
		return nil, fmt.Errorf("store: queue of task %s: %w", taskID, err)
	}
	defer rows.Close()
	out := []QueuedMessage{}
	for rows.Next() {
		var m QueuedMessage
		if err := rows.Scan(&m.ID, &m.TaskID, &m.Text, &m.Position, &m.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: queue of task %s: %w", taskID, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: queue of task %s: %w", taskID, err)
	}
	return out, nil
}

// QueuedTask returns the task a queued message belongs to.
func QueuedTask(ctx context.Context, q SQLRunner, id string) (string, error) {
	var taskID string
	err := q.QueryRowContext(ctx, `SELECT taskId FROM queued_messages WHERE id = ?`, id).Scan(&taskID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: queued message %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: queued message %s: %w", id, err)
	}
	return taskID, nil
}

// EditQueued replaces the text of a queued message not yet sent.
func EditQueued(ctx context.Context, q SQLRunner, id, text string, now int64) error {
	res, err := q.ExecContext(ctx, `UPDATE queued_messages SET text = ?, updatedAt = ? WHERE id = ?`, text, now, id)
	return checkOne(res, err, "edit queued message", id)
}

// RemoveQueued deletes a queued message not yet sent.
func RemoveQueued(ctx context.Context, q SQLRunner, id string) error {
	res, err := q.ExecContext(ctx, `DELETE FROM queued_messages WHERE id = ?`, id)
	return checkOne(res, err, "remove queued message", id)
}

// PopQueued removes and returns the first queued message of task taskID;
// ok is false when the queue is empty.
func PopQueued(ctx context.Context, q SQLRunner, taskID string) (m QueuedMessage, ok bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT id, taskId, text, position, createdAt FROM queued_messages
		WHERE taskId = ? ORDER BY position LIMIT 1`, taskID).Scan(&m.ID, &m.TaskID, &m.Text, &m.Position, &m.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("store: pop queue of task %s: %w", taskID, err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM queued_messages WHERE id = ?`, m.ID); err != nil {
		return m, false, fmt.Errorf("store: pop queue of task %s: %w", taskID, err)
	}
	return m, true, nil
}

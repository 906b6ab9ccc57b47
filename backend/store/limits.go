package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Task limit states (task_limits.state).
const (
	LimitWaiting   = "waiting"
	LimitRetrying  = "retrying"
	LimitRetried   = "retried"
	LimitLifted    = "lifted"
	LimitCancelled = "cancelled"
)

// SettingAutoRetry: "0" turns off the automatic retry at a limit's reset
// (on when unset).
const SettingAutoRetry = "limits.autoRetry"

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

// PutTaskLimit records l as the task's limit, replacing the previous one.
func PutTaskLimit(ctx context.Context, q SQLRunner, l TaskLimit) error {
	_, err := q.ExecContext(ctx, `INSERT INTO task_limits (taskId, resetAt, message, kind, state, detectedAt, retriedAt, error)
		VALUES (?, ?, ?, ?, ?, ?, NULLIF(?, 0), ?)
		ON CONFLICT (taskId) DO UPDATE SET resetAt = excluded.resetAt, message = excluded.message, kind = excluded.kind,
		state = excluded.state, detectedAt = excluded.detectedAt, retriedAt = excluded.retriedAt, error = excluded.error`,
		l.TaskID, l.ResetAt, l.Message, l.Kind, l.State, l.DetectedAt, l.RetriedAt, l.Error)
	if err != nil {
		return fmt.Errorf("store: put limit of task %s: %w", l.TaskID, err)
	}
	return nil
}

const limitCols = `taskId, resetAt, message, kind, state, detectedAt, COALESCE(retriedAt, 0), error`

func scanLimit(sc interface{ Scan(...any) error }) (TaskLimit, error) {
	var l TaskLimit
	err := sc.Scan(&l.TaskID, &l.ResetAt, &l.Message, &l.Kind, &l.State, &l.DetectedAt, &l.RetriedAt, &l.Error)
	return l, err
}

// GetTaskLimit returns the task's limit (ok false when none).
func GetTaskLimit(ctx context.Context, q SQLRunner, taskID string) (TaskLimit, bool, error) {
	l, err := scanLimit(q.QueryRowContext(ctx, `SELECT `+limitCols+` FROM task_limits WHERE taskId = ?`, taskID))
	if errors.Is(err, sql.ErrNoRows) {
		return TaskLimit{}, false, nil
	}
	if err != nil {
		return TaskLimit{}, false, fmt.Errorf("store: limit of task %s: %w", taskID, err)
	}
	return l, true, nil
}

// TaskLimitsIn returns the limits in one of states.
func TaskLimitsIn(ctx context.Context, q SQLRunner, states ...string) ([]TaskLimit, error) {
	var out []TaskLimit
	for _, st := range states {
		rows, err := q.QueryContext(ctx, `SELECT `+limitCols+` FROM task_limits WHERE state = ? ORDER BY resetAt`, st)
		if err != nil {
			return nil, fmt.Errorf("store: limits: %w", err)
		}
		for rows.Next() {
			l, err := scanLimit(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: limits: %w", err)
			}
			out = append(out, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: limits: %w", err)
		}
	}
	return out, nil
}

// LastUserText returns the text of the task's latest user message (ok
// false when it has none): what an automatic retry sends again.
func LastUserText(ctx context.Context, q SQLRunner, taskID string) (string, bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT normalizedData FROM agent_messages WHERE taskId = ? AND role = 'user'
		ORDER BY messageIndex DESC LIMIT 20`, taskID)
	if err != nil {
		return "", false, fmt.Errorf("store: last user message of task %s: %w", taskID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return "", false, fmt.Errorf("store: last user message of task %s: %w", taskID, err)
		}
		var m agent.Message
		if json.Unmarshal([]byte(data), &m) != nil {
			continue
		}
		text := ""
		for _, p := range m.Parts {
			if p.Type == agent.PartText {
				text += p.Text
			}
		}
		if text != "" {
			return text, true, nil
		}
	}
	return "", false, rows.Err()
}

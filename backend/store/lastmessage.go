package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// LastMessage returns a task's latest message (ok false when it has none).
func LastMessage(ctx context.Context, q SQLRunner, taskID string) (m agent.Message, ok bool, err error) {
	var data string
	err = q.QueryRowContext(ctx, `SELECT normalizedData FROM agent_messages WHERE taskId = ?
		ORDER BY messageIndex DESC LIMIT 1`, taskID).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("store: last message of task %s: %w", taskID, err)
	}
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		return m, false, fmt.Errorf("store: last message of task %s: decode: %w", taskID, err)
	}
	return m, true, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// ImportedTask is a task made from a session an agent CLI saved on disk.
type ImportedTask struct {
	ProjectID string
	Name      string
	Prompt    string
	Backend   agent.BackendType
	Model     string
	SessionID string
	// Format, Path and Size identify the session on disk (imported_sessions).
	Format string
	Path   string
	Size   int64
	// CreatedAt and EndedAt are the session's first and last record (ms).
	CreatedAt, EndedAt int64
}

// ImportedTaskID returns the task that holds the session: imported before
// (imported_sessions), or run by Jean-Claude itself (tasks.sessionId of the
// same backend). ok is false when none does.
func ImportedTaskID(ctx context.Context, q SQLRunner, format string, backend agent.BackendType, sessionID string) (id string, ok bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT taskId FROM imported_sessions WHERE format = ? AND sessionId = ?
		UNION ALL SELECT id FROM tasks WHERE agentBackend = ? AND sessionId = ? LIMIT 1`,
		format, sessionID, string(backend), sessionID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: imported session %s %s: %w", format, sessionID, err)
	}
	return id, true, nil
}

// CreateImportedTask inserts a completed task owning the session (it runs in
// the project folder, never a worktree: the CLI finds its session by folder)
// and records the import, in tx. It returns the task id.
func CreateImportedTask(ctx context.Context, tx *sql.Tx, in ImportedTask, now int64) (string, error) {
	id := uuid.NewString()
	_, err := tx.ExecContext(ctx, `INSERT INTO tasks (id, projectId, name, prompt, status, statusReason, agentBackend,
		model, interactionMode, sessionId, hasUnread, createdAt, updatedAt, startedAt, endedAt, useWorktree)
		VALUES (?, ?, ?, ?, 'completed', 'imported', ?, ?, 'ask', ?, 0, ?, ?, ?, ?, 0)`,
		id, in.ProjectID, in.Name, in.Prompt, string(in.Backend), in.Model, in.SessionID,
		in.CreatedAt, now, in.CreatedAt, in.EndedAt)
	if err != nil {
		return "", fmt.Errorf("store: create imported task: %w", err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO imported_sessions (format, sessionId, path, size, taskId, importedAt)
		VALUES (?, ?, ?, ?, ?, ?)`, in.Format, in.SessionID, in.Path, in.Size, id, now)
	if err != nil {
		return "", fmt.Errorf("store: record imported session %s: %w", in.SessionID, err)
	}
	return id, nil
}

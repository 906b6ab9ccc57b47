package store

import (
	"context"
	"fmt"
)

// Project setting keys (table project_settings). New per-project settings
// add a key here; no migration is needed.
const (
	// ProjectCopyGlobs: newline-separated globs of files copied from the
	// project into each new worktree (e.g. ".env*", "config/**/*.local").
	ProjectCopyGlobs = "worktree.copyGlobs"
	// ProjectSetupCommand: the command run in a new worktree.
	ProjectSetupCommand = "worktree.setupCommand"
	// ProjectSetupRequired: "1" when the agent starts only after the setup
	// succeeded.
	ProjectSetupRequired = "worktree.setupRequired"
	// ProjectCheckCommand: the comparison view's check command (issue 17).
	ProjectCheckCommand = "check.command"
)

// Task setup states (tasks.setupStatus).
const (
	SetupNone    = ""
	SetupRunning = "running"
	SetupOK      = "ok"
	SetupFailed  = "failed"
)

// The per-project key/value settings table.

// GetProjectSettings returns every setting of project projectID (unset keys
// are absent).
func GetProjectSettings(ctx context.Context, q SQLRunner, projectID string) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT key, value FROM project_settings WHERE projectId = ?`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: settings of project %s: %w", projectID, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("store: settings of project %s: %w", projectID, err)
		}
		out[k] = v
	}
	return out, rows.Err()
}

// SetProjectSettings stores values (an empty value deletes the key); run
// it in a transaction so they change together.
func SetProjectSettings(ctx context.Context, q SQLRunner, projectID string, values map[string]string) error {
	for k, v := range values {
		var err error
		if v == "" {
			_, err = q.ExecContext(ctx, `DELETE FROM project_settings WHERE projectId = ? AND key = ?`, projectID, k)
		} else {
			_, err = q.ExecContext(ctx, `INSERT INTO project_settings (projectId, key, value) VALUES (?, ?, ?)
				ON CONFLICT (projectId, key) DO UPDATE SET value = excluded.value`, projectID, k, v)
		}
		if err != nil {
			return fmt.Errorf("store: set %s of project %s: %w", k, projectID, err)
		}
	}
	return nil
}

// TaskSetupStatus returns the worktree setup state of task taskID.
func TaskSetupStatus(ctx context.Context, q SQLRunner, taskID string) (string, error) {
	var s string
	if err := q.QueryRowContext(ctx, `SELECT setupStatus FROM tasks WHERE id = ?`, taskID).Scan(&s); err != nil {
		return "", fmt.Errorf("store: setup status of task %s: %w", taskID, err)
	}
	return s, nil
}

// SetTaskSetupStatus records the worktree setup state of task taskID.
func SetTaskSetupStatus(ctx context.Context, q SQLRunner, taskID, status string) error {
	if _, err := q.ExecContext(ctx, `UPDATE tasks SET setupStatus = ? WHERE id = ?`, status, taskID); err != nil {
		return fmt.Errorf("store: set setup status of task %s: %w", taskID, err)
	}
	return nil
}

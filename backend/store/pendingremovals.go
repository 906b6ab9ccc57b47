package store

import (
	"context"
	"fmt"
)

// PendingRemoval is the removal of a deleted task's worktree (and its
// branch) on a host that was unreachable when the task was deleted
// (docs/remote.md): it is done when the host answers again, after a
// restart too. Force removes uncommitted changes (the user confirmed);
// ForceBranch deletes the branch even when unmerged.
type PendingRemoval struct {
	TaskID       string `json:"taskId"`
	Host         string `json:"host"`
	Repo         string `json:"repo"`
	Worktree     string `json:"worktree"`
	Branch       string `json:"branch"`
	SourceBranch string `json:"sourceBranch"`
	Force        bool   `json:"force"`
	ForceBranch  bool   `json:"forceBranch"`
	RequestedAt  int64  `json:"requestedAt"`
}

// AddPendingRemoval records r in remote_pending_removals (again: replaced).
func AddPendingRemoval(ctx context.Context, q SQLRunner, r PendingRemoval) error {
	if r.RequestedAt == 0 {
		r.RequestedAt = Now()
	}
	_, err := q.ExecContext(ctx, `INSERT OR REPLACE INTO remote_pending_removals
		(taskId, host, repo, worktree, branch, sourceBranch, force, forceBranch, requestedAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.TaskID, r.Host, r.Repo, r.Worktree, r.Branch, r.SourceBranch, r.Force, r.ForceBranch, r.RequestedAt)
	if err != nil {
		return fmt.Errorf("store: pending removal of task %s's worktree: %w", r.TaskID, err)
	}
	return nil
}

// RemovePendingRemoval forgets the pending removal of taskID's worktree
// (none: nothing happens).
func RemovePendingRemoval(ctx context.Context, q SQLRunner, taskID string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM remote_pending_removals WHERE taskId = ?`, taskID); err != nil {
		return fmt.Errorf("store: forget pending removal of task %s's worktree: %w", taskID, err)
	}
	return nil
}

// PendingRemovals returns every pending worktree removal, oldest first.
func PendingRemovals(ctx context.Context, q SQLRunner) ([]PendingRemoval, error) {
	rows, err := q.QueryContext(ctx, `SELECT taskId, host, repo, worktree, branch, sourceBranch, force, forceBranch, requestedAt
		FROM remote_pending_removals ORDER BY requestedAt, taskId`)
	if err != nil {
		return nil, fmt.Errorf("store: pending removals: %w", err)
	}
	defer rows.Close()
	var out []PendingRemoval
	for rows.Next() {
		var r PendingRemoval
		if err := rows.Scan(&r.TaskID, &r.Host, &r.Repo, &r.Worktree, &r.Branch, &r.SourceBranch, &r.Force, &r.ForceBranch, &r.RequestedAt); err != nil {
			return nil, fmt.Errorf("store: pending removals: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ProjectGit is a project's worktree settings (migration 0020).
type ProjectGit struct {
	ProjectID string
	Path      string
	IsGitRepo bool
	// WorktreesEnabled: new tasks get their own worktree unless the task
	// overrides it.
	WorktreesEnabled bool
	// WorktreeRoot holds the task worktrees; "" = the default next to the
	// repository (gitx.DefaultWorktreeRoot).
	WorktreeRoot string
	// DefaultSourceBranch is the branch tasks start from; "" = the branch
	// checked out in the main worktree.
	DefaultSourceBranch string
}

// ProjectGitSettings is what the user edits.
type ProjectGitSettings struct {
	WorktreesEnabled    bool
	WorktreeRoot        string
	DefaultSourceBranch string
}

// TaskGit is a task's git state together with its project's settings.
type TaskGit struct {
	TaskID   string
	TaskName string
	Status   TaskStatus
	Project  ProjectGit
	// UseWorktree is the per-task override; nil follows the project.
	UseWorktree  *bool
	SourceBranch string
	WorktreePath string
	BranchName   string
	BaseCommit   string
	HeadCommit   string
	MergedAt     int64 // 0 = not merged
	MergeCommit  string
}

// WantsWorktree reports whether the task should run in its own worktree:
// the task's override, else the project's setting, and only in a git
// repository.
func (t TaskGit) WantsWorktree() bool {
	if !t.Project.IsGitRepo {
		return false
	}
	if t.UseWorktree != nil {
		return *t.UseWorktree
	}
	return t.Project.WorktreesEnabled
}

// The git columns of projects and tasks.

const projectGitCols = `p.id, p.path, p.isGitRepo, p.worktreesEnabled, p.worktreeRoot, p.defaultSourceBranch`

func scanProjectGit(s interface{ Scan(...any) error }, p *ProjectGit, extra ...any) error {
	return s.Scan(append([]any{&p.ProjectID, &p.Path, &p.IsGitRepo, &p.WorktreesEnabled, &p.WorktreeRoot, &p.DefaultSourceBranch}, extra...)...)
}

// GetProjectGit returns a project's worktree settings.
func GetProjectGit(ctx context.Context, q SQLRunner, projectID string) (ProjectGit, error) {
	var p ProjectGit
	err := scanProjectGit(q.QueryRowContext(ctx, `SELECT `+projectGitCols+` FROM projects p WHERE p.id = ?`, projectID), &p)
	if errors.Is(err, sql.ErrNoRows) {
		return ProjectGit{}, fmt.Errorf("store: project %s: %w", projectID, ErrNotFound)
	}
	if err != nil {
		return ProjectGit{}, fmt.Errorf("store: project %s git settings: %w", projectID, err)
	}
	return p, nil
}

// SetProjectGit stores a project's worktree settings.
func SetProjectGit(ctx context.Context, q SQLRunner, projectID string, s ProjectGitSettings) (ProjectGit, error) {
	if err := execOne(ctx, q, "project", projectID, `UPDATE projects SET worktreesEnabled = ?, worktreeRoot = ?,
		defaultSourceBranch = ?, updatedAt = ? WHERE id = ?`,
		s.WorktreesEnabled, s.WorktreeRoot, s.DefaultSourceBranch, Now(), projectID); err != nil {
		return ProjectGit{}, err
	}
	return GetProjectGit(ctx, q, projectID)
}

// GetTaskGit returns a task's git state and its project's settings.
func GetTaskGit(ctx context.Context, q SQLRunner, taskID string) (TaskGit, error) {
	var t TaskGit
	var use sql.NullBool
	var merged sql.NullInt64
	row := q.QueryRowContext(ctx, `SELECT `+projectGitCols+`, t.id, t.name, t.status, t.useWorktree,
		t.sourceBranch, t.worktreePath, t.branchName, t.baseCommit, t.headCommit, t.mergedAt, t.mergeCommit
		FROM tasks t JOIN projects p ON p.id = t.projectId WHERE t.id = ?`, taskID)
	err := scanProjectGit(row, &t.Project, &t.TaskID, &t.TaskName, &t.Status, &use, &t.SourceBranch,
		&t.WorktreePath, &t.BranchName, &t.BaseCommit, &t.HeadCommit, &merged, &t.MergeCommit)
	if errors.Is(err, sql.ErrNoRows) {
		return TaskGit{}, fmt.Errorf("store: task %s: %w", taskID, ErrNotFound)
	}
	if err != nil {
		return TaskGit{}, fmt.Errorf("store: task %s git state: %w", taskID, err)
	}
	if use.Valid {
		v := use.Bool
		t.UseWorktree = &v
	}
	t.MergedAt = merged.Int64
	return t, nil
}

// SetTaskGitOptions records the choices made at task creation: the worktree
// override (nil = follow the project) and the source branch ("" = the
// project's default).
func SetTaskGitOptions(ctx context.Context, q SQLRunner, taskID string, useWorktree *bool, sourceBranch string) error {
	var use any
	if useWorktree != nil {
		use = *useWorktree
	}
	return execOne(ctx, q, "task", taskID, `UPDATE tasks SET useWorktree = ?, sourceBranch = ?, updatedAt = ? WHERE id = ?`,
		use, sourceBranch, Now(), taskID)
}

// RecordWorktree stores how a task started: its worktree folder and branch
// ("" when it runs in the project folder), source branch and base commit
// (the head starts at the base). It also freezes useWorktree to what
// happened, so later changes of the project setting do not reinterpret a
// started task, and clears a previous merge (new work is not merged yet).
func RecordWorktree(ctx context.Context, q SQLRunner, taskID, path, branch, source, base string) error {
	return execOne(ctx, q, "task", taskID, `UPDATE tasks SET worktreePath = ?, branchName = ?, sourceBranch = ?,
		baseCommit = ?, headCommit = ?, useWorktree = ?, mergedAt = NULL, mergeCommit = '', updatedAt = ? WHERE id = ?`,
		path, branch, source, base, base, path != "", Now(), taskID)
}

// RecordHead stores the task branch's current tip.
func RecordHead(ctx context.Context, q SQLRunner, taskID, head string) error {
	return execOne(ctx, q, "task", taskID, `UPDATE tasks SET headCommit = ?, updatedAt = ? WHERE id = ?`, head, Now(), taskID)
}

// RecordMerge stores a merge of the task branch into its source branch.
func RecordMerge(ctx context.Context, q SQLRunner, taskID, commit string, at int64) error {
	return execOne(ctx, q, "task", taskID, `UPDATE tasks SET mergeCommit = ?, mergedAt = ?, updatedAt = ? WHERE id = ?`,
		commit, at, Now(), taskID)
}

// ClearWorktree forgets the task's worktree folder, and its branch too
// unless keepBranch (the base and head commits stay as history).
func ClearWorktree(ctx context.Context, q SQLRunner, taskID string, keepBranch bool) error {
	stmt := `UPDATE tasks SET worktreePath = '', branchName = '', updatedAt = ? WHERE id = ?`
	if keepBranch {
		stmt = `UPDATE tasks SET worktreePath = '', updatedAt = ? WHERE id = ?`
	}
	return execOne(ctx, q, "task", taskID, stmt, Now(), taskID)
}

// TasksWithWorktree lists the ids of a project's tasks that have a
// worktree folder recorded.
func TasksWithWorktree(ctx context.Context, q SQLRunner, projectID string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT id FROM tasks WHERE projectId = ? AND worktreePath != '' ORDER BY createdAt`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: tasks with worktree: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// execOne runs a write that must change one row.
func execOne(ctx context.Context, q SQLRunner, what, id, stmt string, args ...any) error {
	res, err := q.ExecContext(ctx, stmt, args...)
	if err != nil {
		return fmt.Errorf("store: update %s %s: %w", what, id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: %s %s: %w", what, id, ErrNotFound)
	}
	return nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// ErrDuplicate: a row with that unique key (a project's path) already exists.
var ErrDuplicate = errors.New("already exists")

// Project is a local folder the user works on.
type Project struct {
	ID                  string
	Name                string
	Path                string
	IsGitRepo           bool
	DefaultAgentBackend agent.BackendType
	DefaultModel        string
	SortOrder           int64
	CreatedAt           int64 // ms since the epoch
	UpdatedAt           int64
}

// NewProject is what AddProject needs.
type NewProject struct {
	Name                string
	Path                string
	IsGitRepo           bool
	DefaultAgentBackend agent.BackendType
	DefaultModel        string
}

const projectCols = `id, name, path, isGitRepo, defaultAgentBackend, defaultModel, sortOrder, createdAt, updatedAt`

func scanProject(row interface{ Scan(...any) error }) (Project, error) {
	var p Project
	err := row.Scan(&p.ID, &p.Name, &p.Path, &p.IsGitRepo, &p.DefaultAgentBackend,
		&p.DefaultModel, &p.SortOrder, &p.CreatedAt, &p.UpdatedAt)
	return p, err
}

// AddProject inserts a project with a new id, placed after the existing
// ones (one statement: two adds cannot take the same place). A path
// already added gives an error wrapping ErrDuplicate.
func AddProject(ctx context.Context, q SQLRunner, in NewProject) (Project, error) {
	now := Now()
	p := Project{
		ID:                  uuid.NewString(),
		Name:                in.Name,
		Path:                in.Path,
		IsGitRepo:           in.IsGitRepo,
		DefaultAgentBackend: in.DefaultAgentBackend,
		DefaultModel:        in.DefaultModel,
		CreatedAt:           now,
		UpdatedAt:           now,
	}
	if p.DefaultAgentBackend == "" {
		p.DefaultAgentBackend = agent.BackendClaudeCode
	}
	err := q.QueryRowContext(ctx, `INSERT INTO projects (`+projectCols+`)
		SELECT ?, ?, ?, ?, ?, ?, coalesce(max(sortOrder), -1) + 1, ?, ? FROM projects RETURNING sortOrder`,
		p.ID, p.Name, p.Path, p.IsGitRepo, p.DefaultAgentBackend, p.DefaultModel, p.CreatedAt, p.UpdatedAt).Scan(&p.SortOrder)
	if isUnique(err) {
		return Project{}, fmt.Errorf("store: project %s: %w", in.Path, ErrDuplicate)
	}
	if err != nil {
		return Project{}, fmt.Errorf("store: add project: %w", err)
	}
	return p, nil
}

// GetProject returns the project with that id, or an error wrapping ErrNotFound.
func GetProject(ctx context.Context, q SQLRunner, id string) (Project, error) {
	p, err := scanProject(q.QueryRowContext(ctx, `SELECT `+projectCols+` FROM projects WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Project{}, fmt.Errorf("store: project %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Project{}, fmt.Errorf("store: get project: %w", err)
	}
	return p, nil
}

// ProjectByPath returns the project at that path, or an error wrapping ErrNotFound.
func ProjectByPath(ctx context.Context, q SQLRunner, path string) (Project, error) {
	p, err := scanProject(q.QueryRowContext(ctx, `SELECT `+projectCols+` FROM projects WHERE path = ?`, path))
	if errors.Is(err, sql.ErrNoRows) {
		return Project{}, fmt.Errorf("store: project at %s: %w", path, ErrNotFound)
	}
	if err != nil {
		return Project{}, fmt.Errorf("store: get project: %w", err)
	}
	return p, nil
}

// ListProjects returns every project in display order.
func ListProjects(ctx context.Context, q SQLRunner) ([]Project, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+projectCols+` FROM projects ORDER BY sortOrder, createdAt, id`)
	if err != nil {
		return nil, fmt.Errorf("store: list projects: %w", err)
	}
	defer rows.Close()
	out := []Project{}
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list projects: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list projects: %w", err)
	}
	return out, nil
}

// RenameProject sets a project's display name.
func RenameProject(ctx context.Context, q SQLRunner, id, name string) (Project, error) {
	return updateProject(ctx, q, id, `name = ?`, name)
}

// SetProjectBackend sets the backend new tasks of the project use.
func SetProjectBackend(ctx context.Context, q SQLRunner, id string, b agent.BackendType) (Project, error) {
	return updateProject(ctx, q, id, `defaultAgentBackend = ?`, string(b))
}

// SetProjectModel sets the model new tasks of the project use ("" = the
// backend's default).
func SetProjectModel(ctx context.Context, q SQLRunner, id, model string) (Project, error) {
	return updateProject(ctx, q, id, `defaultModel = ?`, model)
}

func updateProject(ctx context.Context, q SQLRunner, id, set string, arg any) (Project, error) {
	p, err := scanProject(q.QueryRowContext(ctx,
		`UPDATE projects SET `+set+`, updatedAt = ? WHERE id = ? RETURNING `+projectCols, arg, Now(), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Project{}, fmt.Errorf("store: project %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Project{}, fmt.Errorf("store: update project: %w", err)
	}
	return p, nil
}

// RemoveProject deletes a project and (by cascade) its tasks and their
// messages.
func RemoveProject(ctx context.Context, q SQLRunner, id string) error {
	res, err := q.ExecContext(ctx, `DELETE FROM projects WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("store: remove project: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: project %s: %w", id, ErrNotFound)
	}
	return nil
}

func isUnique(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) &&
		(se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

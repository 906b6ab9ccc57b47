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

// NewProject is what Projects.Add needs.
type NewProject struct {
	Name                string
	Path                string
	IsGitRepo           bool
	DefaultAgentBackend agent.BackendType
	DefaultModel        string
}

// Projects is the projects table.
type Projects struct{ db *DB }

// NewProjects returns the projects repository of db.
func NewProjects(db *DB) *Projects { return &Projects{db: db} }

const projectCols = `id, name, path, isGitRepo, defaultAgentBackend, defaultModel, sortOrder, createdAt, updatedAt`

func scanProject(row interface{ Scan(...any) error }) (Project, error) {
	var p Project
	err := row.Scan(&p.ID, &p.Name, &p.Path, &p.IsGitRepo, &p.DefaultAgentBackend,
		&p.DefaultModel, &p.SortOrder, &p.CreatedAt, &p.UpdatedAt)
	return p, err
}

// Add inserts a project with a new id, placed after the existing ones. A
// path already added gives an error wrapping ErrDuplicate.
func (r *Projects) Add(ctx context.Context, in NewProject) (Project, error) {
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
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(sortOrder), -1) + 1 FROM projects`).Scan(&p.SortOrder); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO projects (`+projectCols+`) VALUES (?,?,?,?,?,?,?,?,?)`,
			p.ID, p.Name, p.Path, p.IsGitRepo, p.DefaultAgentBackend, p.DefaultModel, p.SortOrder, p.CreatedAt, p.UpdatedAt)
		return err
	})
	if isUnique(err) {
		return Project{}, fmt.Errorf("store: project %s: %w", in.Path, ErrDuplicate)
	}
	if err != nil {
		return Project{}, fmt.Errorf("store: add project: %w", err)
	}
	return p, nil
}

// Get returns the project with that id, or an error wrapping ErrNotFound.
func (r *Projects) Get(ctx context.Context, id string) (Project, error) {
	p, err := scanProject(r.db.R.QueryRowContext(ctx, `SELECT `+projectCols+` FROM projects WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Project{}, fmt.Errorf("store: project %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Project{}, fmt.Errorf("store: get project: %w", err)
	}
	return p, nil
}

// GetByPath returns the project at that path, or an error wrapping ErrNotFound.
func (r *Projects) GetByPath(ctx context.Context, path string) (Project, error) {
	p, err := scanProject(r.db.R.QueryRowContext(ctx, `SELECT `+projectCols+` FROM projects WHERE path = ?`, path))
	if errors.Is(err, sql.ErrNoRows) {
		return Project{}, fmt.Errorf("store: project at %s: %w", path, ErrNotFound)
	}
	if err != nil {
		return Project{}, fmt.Errorf("store: get project: %w", err)
	}
	return p, nil
}

// List returns every project in display order.
func (r *Projects) List(ctx context.Context) ([]Project, error) {
	rows, err := r.db.R.QueryContext(ctx, `SELECT `+projectCols+` FROM projects ORDER BY sortOrder, createdAt, id`)
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

// Rename sets a project's display name.
func (r *Projects) Rename(ctx context.Context, id, name string) (Project, error) {
	return r.update(ctx, id, `name = ?`, name)
}

// SetDefaultBackend sets the backend new tasks of the project use.
func (r *Projects) SetDefaultBackend(ctx context.Context, id string, b agent.BackendType) (Project, error) {
	return r.update(ctx, id, `defaultAgentBackend = ?`, string(b))
}

// SetDefaultModel sets the model new tasks of the project use ("" = the
// backend's default).
func (r *Projects) SetDefaultModel(ctx context.Context, id, model string) (Project, error) {
	return r.update(ctx, id, `defaultModel = ?`, model)
}

func (r *Projects) update(ctx context.Context, id, set string, arg any) (Project, error) {
	var p Project
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		p, err = scanProject(tx.QueryRowContext(ctx,
			`UPDATE projects SET `+set+`, updatedAt = ? WHERE id = ? RETURNING `+projectCols, arg, Now(), id))
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return Project{}, fmt.Errorf("store: project %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Project{}, fmt.Errorf("store: update project: %w", err)
	}
	return p, nil
}

// Remove deletes a project and (by cascade) its tasks and their messages.
func (r *Projects) Remove(ctx context.Context, id string) error {
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM projects WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("store: remove project: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: project %s: %w", id, ErrNotFound)
		}
		return nil
	})
}

func isUnique(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) &&
		(se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

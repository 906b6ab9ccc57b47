package services

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/projects"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/tasks"
)

// Project is a project as the frontend sees it.
type Project struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Path           string `json:"path"`
	IsGitRepo      bool   `json:"isGitRepo"`
	DefaultBackend string `json:"defaultBackend"`
	DefaultModel   string `json:"defaultModel"`
	CreatedAt      int64  `json:"createdAt"`
	UpdatedAt      int64  `json:"updatedAt"`
}

// NewProjectDTO maps a stored project to its DTO.
func NewProjectDTO(p store.Project) Project {
	return Project{
		ID:             p.ID,
		Name:           p.Name,
		Path:           p.Path,
		IsGitRepo:      p.IsGitRepo,
		DefaultBackend: string(p.DefaultAgentBackend),
		DefaultModel:   p.DefaultModel,
		CreatedAt:      p.CreatedAt,
		UpdatedAt:      p.UpdatedAt,
	}
}

// ProjectService manages projects: local folders the agents work in.
type ProjectService struct {
	ctx     context.Context
	db      *store.DB
	reg     *agent.Registry
	dialogs Dialogs
	emit    Emitter      // EventProjectsUpdated after every change
	end     *tasks.Ender // its tasks' end when it is removed
}

// TerminalCloser ends a task's shells, every process group, returning
// once they are gone (workspace.Manager.CloseTaskTerminals).
type TerminalCloser = tasks.Terminals

// NewProjectService returns the project service. ctx bounds every call
// (the app's lifetime); dialogs may be nil (PickDirectory then fails).
// Removing a project first stops its tasks' agents (stop) and ends their
// shells (terms); either may be nil when there are none. Every change is
// told to every window (EventProjectsUpdated) through emit (nil: none).
func NewProjectService(ctx context.Context, db *store.DB, reg *agent.Registry, dialogs Dialogs, emit Emitter, stop TaskStopper, terms TerminalCloser) *ProjectService {
	if emit == nil {
		emit = nopEmitter{}
	}
	return &ProjectService{ctx: ctx, db: db, reg: reg, dialogs: dialogs, emit: emit,
		end: tasks.NewEnder(db, stop, terms, nil)}
}

// PickDirectory opens the native directory dialog and returns the chosen
// path, or "" when the user cancelled.
func (s *ProjectService) PickDirectory() (string, error) {
	if s.dialogs == nil {
		return "", errors.New("no directory dialog available")
	}
	return s.dialogs.PickDirectory("Add a project folder")
}

// Add adds the directory at path as a project named after its last path
// element. The path must exist and be a directory not added yet; a git
// repository (a .git directory or file) is detected and recorded. The new
// project's default backend is the global default (backend/projects).
func (s *ProjectService) Add(path string) (Project, error) {
	p, err := projects.Add(s.ctx, s.db, s.reg, path)
	if err != nil {
		return Project{}, err
	}
	s.emit.Emit(EventProjectsUpdated, nil)
	return NewProjectDTO(p), nil
}

// List returns every project in display order.
func (s *ProjectService) List() ([]Project, error) {
	ps, err := store.ListProjects(s.ctx, s.db.R)
	if err != nil {
		return nil, err
	}
	out := make([]Project, len(ps))
	for i, p := range ps {
		out[i] = NewProjectDTO(p)
	}
	return out, nil
}

// Get returns one project.
func (s *ProjectService) Get(id string) (Project, error) {
	p, err := store.GetProject(s.ctx, s.db.R, id)
	if err != nil {
		return Project{}, notFound("project", id, err)
	}
	return NewProjectDTO(p), nil
}

// Rename sets a project's display name (trimmed, not empty).
func (s *ProjectService) Rename(id, name string) (Project, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Project{}, invalid("name", nil, "project name is empty")
	}
	p, err := store.RenameProject(s.ctx, s.db.W, id, name)
	if err != nil {
		return Project{}, notFound("project", id, err)
	}
	s.emit.Emit(EventProjectsUpdated, nil)
	return NewProjectDTO(p), nil
}

// Remove forgets a project and its tasks (the folder itself is untouched).
// Each task's agent is stopped and its shells ended first, as when a task
// is deleted; if one cannot be, nothing is removed (tasks.Ender).
func (s *ProjectService) Remove(id string) error {
	if err := s.end.RemoveProject(s.ctx, id); err != nil {
		return notFound("project", id, err)
	}
	s.emit.Emit(EventProjectsUpdated, nil)
	return nil
}

// SetDefaultBackend sets the backend new tasks of the project use. It must
// be a registered backend.
func (s *ProjectService) SetDefaultBackend(id, backend string) (Project, error) {
	b, err := tasks.CheckBackend(s.reg, backend)
	if err != nil {
		return Project{}, err
	}
	p, err := store.SetProjectBackend(s.ctx, s.db.W, id, b)
	if err != nil {
		return Project{}, notFound("project", id, err)
	}
	s.emit.Emit(EventProjectsUpdated, nil)
	return NewProjectDTO(p), nil
}

// SetDefaultModel sets the model new tasks of the project use ("" = the
// backend's own default).
func (s *ProjectService) SetDefaultModel(id, model string) (Project, error) {
	p, err := store.SetProjectModel(s.ctx, s.db.W, id, strings.TrimSpace(model))
	if err != nil {
		return Project{}, notFound("project", id, err)
	}
	s.emit.Emit(EventProjectsUpdated, nil)
	return NewProjectDTO(p), nil
}

// ExpandPath returns what Add would store for a typed path: "~" expanded
// and cleaned, shown to the user before saving; a relative path is an
// error saying so.
func (s *ProjectService) ExpandPath(path string) (string, error) {
	return projects.ExpandPath(path)
}

// notFound rewrites a store.ErrNotFound into a message for the user.
func notFound(what, id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s not found: %s: %w", what, id, store.ErrNotFound)
	}
	return err
}

package services

import (
	"context"
	"fmt"
	"os"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/history"
	"github.com/jean-claude/jean-claude/backend/history/importer"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// HistoryService is the history across every agent (issue 16): full-text
// search over every task's messages, forks and sub-tasks.
type HistoryService struct {
	ctx      context.Context
	db       *store.DB
	backends *agent.Registry // what each agent can do (forks); nil: none known
	emit     Emitter
}

// NewHistoryService returns the service over db; backends says which
// agents fork their sessions (Capabilities.Fork: an ACP agent's, once it
// advertised session/fork).
// The tasks it creates (a fork, a sub-task, an import) are told to every
// window through emit (nil: none), as TaskService's are.
func NewHistoryService(ctx context.Context, db *store.DB, backends *agent.Registry, emit Emitter) *HistoryService {
	if emit == nil {
		emit = nopEmitter{}
	}
	return &HistoryService{ctx: ctx, db: db, backends: backends, emit: emit}
}

// created tells every window of a task it stored and returns its DTO.
func (s *HistoryService) created(t store.Task) Task {
	dto := NewTaskDTO(t)
	s.emit.Emit(orchestrator.EventTaskUpdated, dto)
	return dto
}

// SearchInput is a search from the search box. From and To are message
// creation times in ms (0 = open); Before pages (the last hit's rowId).
type SearchInput struct {
	Text      string `json:"text"`
	ProjectID string `json:"projectId"`
	Agent     string `json:"agent"`
	Role      string `json:"role"`
	From      int64  `json:"from"`
	To        int64  `json:"to"`
	Limit     int    `json:"limit"`
	Before    int64  `json:"before"`
}

// Search returns the messages matching in, newest first; each hit's snippet
// marks matches between "\u0002" and "\u0003".
func (s *HistoryService) Search(in SearchInput) ([]SearchHit, error) {
	if in.Limit <= 0 || in.Limit > 200 {
		in.Limit = 50
	}
	hits, err := store.Search(s.ctx, s.db.R, store.SearchQuery{
		Text: in.Text, ProjectID: in.ProjectID, Agent: in.Agent, Role: in.Role,
		From: in.From, To: in.To, Limit: in.Limit, Before: in.Before,
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return mapAll(hits, searchHitOf), nil
}

// ForkInput is "Fork from here" on a message: Backend "" keeps the task's
// agent; Prompt "" continues.
type ForkInput struct {
	TaskID    string `json:"taskId"`
	MessageID string `json:"messageId"`
	Backend   string `json:"backend"`
	Prompt    string `json:"prompt"`
}

// Fork creates (without starting) a task continuing from the message,
// linked to the task: a native fork of the CLI's session where the CLI can
// fork there (history.Fork), else a new session seeded with the transcript
// up to it.
func (s *HistoryService) Fork(in ForkInput) (Task, error) {
	t, _, err := history.Fork(s.ctx, s.db, history.ForkInput{TaskID: in.TaskID, MessageID: in.MessageID,
		Backend: agent.BackendType(in.Backend), Prompt: in.Prompt, CanFork: s.canFork})
	if err != nil {
		return Task{}, fmt.Errorf("fork: %w", err)
	}
	return s.created(t), nil
}

// canFork: the backend's Info says Capabilities.Fork.
func (s *HistoryService) canFork(name agent.BackendType) bool {
	if s.backends == nil {
		return false
	}
	b, err := s.backends.Get(name)
	return err == nil && b.Info().Capabilities.Fork
}

// Spawn creates (without starting) a sub-task of the task on any agent.
func (s *HistoryService) Spawn(taskID, backend, prompt string) (Task, error) {
	t, err := history.Spawn(s.ctx, s.db, taskID, agent.BackendType(backend), prompt)
	if err != nil {
		return Task{}, fmt.Errorf("spawn: %w", err)
	}
	return s.created(t), nil
}

// TaskLinks is a task's parent (absent when none) and children.
type TaskLinks struct {
	Parent   *TaskLink  `json:"parent,omitempty"`
	Children []TaskLink `json:"children"`
}

// Links returns the tasks forked or spawned from the task, and the one it
// came from.
func (s *HistoryService) Links(taskID string) (TaskLinks, error) {
	p, c, err := store.TaskLinks(s.ctx, s.db.R, taskID)
	if err != nil {
		return TaskLinks{}, err
	}
	return TaskLinks{Parent: ptrOf(p, taskLinkOf), Children: mapAll(c, taskLinkOf)}, nil
}

// ImportableSessions lists the sessions the agent CLIs saved on disk for
// folder (a project's path, or any folder the user picked), newest first;
// a session already held by a task carries its taskId.
func (s *HistoryService) ImportableSessions(folder string) ([]importer.Session, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	ss, err := importer.Find(s.ctx, s.db, home, folder, "")
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if ss == nil {
		ss = []importer.Session{}
	}
	return ss, nil
}

// ImportSession imports one listed session as a completed task of project
// projectID ("" = the project of the session's folder, added when
// missing) and returns the task.
func (s *HistoryService) ImportSession(session importer.Session, projectID string) (Task, error) {
	src, err := importer.SourceNamed(session.Format)
	if err != nil {
		return Task{}, err
	}
	id, err := importer.Import(s.ctx, s.db, src, session, projectID)
	if err != nil {
		return Task{}, fmt.Errorf("import: %w", err)
	}
	t, err := store.GetTask(s.ctx, s.db.R, id)
	if err != nil {
		return Task{}, err
	}
	if projectID == "" {
		s.emit.Emit(EventProjectsUpdated, nil) // its folder's project may be new
	}
	return s.created(t), nil
}

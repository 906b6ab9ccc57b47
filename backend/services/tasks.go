package services

import (
	"context"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/tasks"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// Indicator is the task list's activity dot.
type Indicator string

// Indicators.
const (
	IndicatorNone    Indicator = "none"    // never run
	IndicatorIdle    Indicator = "idle"    // ran, not running now
	IndicatorBusy    Indicator = "busy"    // the agent is working
	IndicatorWaiting Indicator = "waiting" // the agent waits on the user
)

// AllIndicators lists Indicator for EnumBind.
var AllIndicators = []struct {
	Value  Indicator
	TSName string
}{
	{IndicatorNone, "None"},
	{IndicatorIdle, "Idle"},
	{IndicatorBusy, "Busy"},
	{IndicatorWaiting, "Waiting"},
}

// AllTaskStatuses lists store.TaskStatus for EnumBind.
var AllTaskStatuses = []struct {
	Value  store.TaskStatus
	TSName string
}{
	{store.StatusCreated, "Created"},
	{store.StatusRunning, "Running"},
	{store.StatusWaiting, "Waiting"},
	{store.StatusCompleted, "Completed"},
	{store.StatusErrored, "Errored"},
	{store.StatusInterrupted, "Interrupted"},
}

// IndicatorOf maps a task status to the task list's indicator.
func IndicatorOf(s store.TaskStatus) Indicator {
	switch s {
	case store.StatusRunning:
		return IndicatorBusy
	case store.StatusWaiting, orchestrator.StatusStoreError:
		return IndicatorWaiting // the store-error status needs the user too (free some disk space)
	case store.StatusCompleted, store.StatusErrored, store.StatusInterrupted:
		return IndicatorIdle
	default:
		return IndicatorNone
	}
}

// Task is a task as the frontend sees it.
type Task struct {
	ID           string           `json:"id"`
	ProjectID    string           `json:"projectId"`
	Name         string           `json:"name"`
	Prompt       string           `json:"prompt"`
	Status       store.TaskStatus `json:"status"`
	StatusReason string           `json:"statusReason"`
	// Problem explains an errored task in the user's words, with the
	// action that fixes it (absent unless errored).
	Problem         *agentmgr.Problem     `json:"problem,omitempty"`
	Indicator       Indicator             `json:"indicator"`
	Backend         string                `json:"backend"`
	Model           string                `json:"model"`
	InteractionMode agent.InteractionMode `json:"interactionMode"`
	SessionID       string                `json:"sessionId"`
	HasUnread       bool                  `json:"hasUnread"`
	CreatedAt       int64                 `json:"createdAt"`
	UpdatedAt       int64                 `json:"updatedAt"`
	StartedAt       *int64                `json:"startedAt,omitempty"` // absent: never ran
	EndedAt         *int64                `json:"endedAt,omitempty"`   // absent: not ended
	// Summary is the one-line summary written when the task finished, by a
	// one-shot call of the summary agent (Settings); "" = none.
	Summary string `json:"summary"`
}

// TaskUpdated returns what tells the UI about a task changed outside the
// services (backend/summary's titles and summaries): the "task:updated"
// event with the task's DTO.
func TaskUpdated(emit Emitter) func(store.Task) {
	return func(t store.Task) { emit.Emit(orchestrator.EventTaskUpdated, NewTaskDTO(t)) }
}

// NewTaskDTO maps a stored task to its DTO (also the "task:updated"
// payload the orchestrator emits).
func NewTaskDTO(t store.Task) Task {
	d := Task{
		ID:              t.ID,
		ProjectID:       t.ProjectID,
		Name:            t.Name,
		Prompt:          t.Prompt,
		Status:          t.Status,
		StatusReason:    t.StatusReason,
		Problem:         taskProblem(t.Status, string(t.AgentBackend), t.StatusReason),
		Indicator:       IndicatorOf(t.Status),
		Backend:         string(t.AgentBackend),
		Model:           t.Model,
		InteractionMode: t.InteractionMode,
		SessionID:       t.SessionID,
		HasUnread:       t.HasUnread,
		CreatedAt:       t.CreatedAt,
		UpdatedAt:       t.UpdatedAt,
		Summary:         t.Summary,
	}
	if t.StartedAt != 0 {
		d.StartedAt = &t.StartedAt
	}
	if t.EndedAt != 0 {
		d.EndedAt = &t.EndedAt
	}
	return d
}

// CreateTaskInput is what the new-task form sends.
type CreateTaskInput struct {
	ProjectID string `json:"projectId"`
	Prompt    string `json:"prompt"`
	// Name is optional: empty takes the prompt's first line.
	Name string `json:"name"`
	// Backend overrides the project's default backend; empty keeps it.
	Backend string `json:"backend"`
	// Model overrides the project's default model; empty keeps it.
	Model string `json:"model"`
	// InteractionMode is ask | accept-edits | plan | bypass; empty takes the
	// agent's default mode (Agents page), else ask.
	InteractionMode string `json:"interactionMode"`
}

// TaskService manages tasks.
type TaskService struct {
	ctx    context.Context
	db     *store.DB
	reg    *agent.Registry
	emit   Emitter
	end    *tasks.Ender // a deleted task's end, in order
	titler Titler       // nil: names stay the prompt's first line
}

// Titler gives a task created without a name a better one, in the
// background (summary.Summaries does, by a one-shot agent call when one
// is set).
type Titler interface {
	TaskCreated(ctx context.Context, taskID, autoName string)
}

// SetTaskTitler sets who titles s's tasks created without a name (a
// function, not a method: every exported method of a bound service becomes
// a frontend binding).
func SetTaskTitler(s *TaskService, t Titler) { s.titler = t }

// TaskStopper ends a task's live agent session and its processes (the
// orchestrator does), returning once they are gone.
type TaskStopper = tasks.Stopper

// NewTaskService returns the task service; emit may be nil.
// ws removes a deleted task's shells, worktree and branch (nil: none are
// removed); stop ends a deleted task's agent first (nil: none run).
func NewTaskService(ctx context.Context, db *store.DB, reg *agent.Registry, emit Emitter, ws *workspace.Manager, stop TaskStopper) *TaskService {
	if emit == nil {
		emit = nopEmitter{}
	}
	end := tasks.NewEnder(db, stop, nil, nil)
	if ws != nil {
		end = tasks.NewEnder(db, stop, ws, ws)
	}
	return &TaskService{ctx: ctx, db: db, reg: reg, emit: emit, end: end}
}

// Create creates a task in status "created" (it does not start it). Its
// backend is in.Backend when given, else the project's default, decided
// once (backend/tasks) and stored; so are its model and mode.
func (s *TaskService) Create(in CreateTaskInput) (Task, error) {
	t, auto, err := tasks.Create(s.ctx, s.db, s.reg, tasks.New(in))
	if err != nil {
		return Task{}, err
	}
	dto := NewTaskDTO(t)
	s.emit.Emit(orchestrator.EventTaskUpdated, dto)
	if auto && s.titler != nil {
		s.titler.TaskCreated(s.ctx, t.ID, t.Name)
	}
	return dto, nil
}

// List returns a project's tasks, newest first.
func (s *TaskService) List(projectID string) ([]Task, error) {
	ts, err := store.ListTasks(s.ctx, s.db.R, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]Task, len(ts))
	for i, t := range ts {
		out[i] = NewTaskDTO(t)
	}
	return out, nil
}

// Get returns one task.
func (s *TaskService) Get(id string) (Task, error) {
	t, err := store.GetTask(s.ctx, s.db.R, id)
	if err != nil {
		return Task{}, notFound("task", id, err)
	}
	return NewTaskDTO(t), nil
}

// Delete removes a task, its history, and first its agent, shells,
// worktree and branch (an unmerged branch is kept), in that order
// (tasks.Ender). A worktree with uncommitted or untracked changes is
// refused with an error wrapping gitx.ErrDirtyWorktree and the task is
// kept; DeleteDiscardingChanges is the confirmed path. Nothing outside the
// task's own worktree and branch is touched.
func (s *TaskService) Delete(id string) error {
	return s.delete(id, false)
}

// DeleteDiscardingChanges is Delete once the user has confirmed: the
// task's worktree is removed with its uncommitted changes, and its branch
// even when unmerged.
func (s *TaskService) DeleteDiscardingChanges(id string) error {
	return s.delete(id, true)
}

func (s *TaskService) delete(id string, force bool) error {
	t, err := s.end.Delete(s.ctx, id, force)
	if err != nil {
		return notFound("task", id, err)
	}
	s.emit.Emit(EventTaskDeleted, TaskDeleted{ID: t.ID, ProjectID: t.ProjectID})
	return nil
}

// Rename sets a task's display name (trimmed, not empty).
func (s *TaskService) Rename(id, name string) (Task, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Task{}, invalid("name", nil, "task name is empty")
	}
	t, err := store.RenameTask(s.ctx, s.db.W, id, name)
	if err != nil {
		return Task{}, notFound("task", id, err)
	}
	dto := NewTaskDTO(t)
	s.emit.Emit(orchestrator.EventTaskUpdated, dto)
	return dto, nil
}

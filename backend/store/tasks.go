package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/jean-claude/jean-claude/backend/agent"
	"modernc.org/sqlite"
)

// TaskStatus is where a task is in its life.
type TaskStatus string

// Task statuses.
const (
	StatusCreated     TaskStatus = "created"
	StatusRunning     TaskStatus = "running"
	StatusWaiting     TaskStatus = "waiting"
	StatusCompleted   TaskStatus = "completed"
	StatusErrored     TaskStatus = "errored"
	StatusInterrupted TaskStatus = "interrupted"
)

// Task is one conversation with one agent backend inside a project.
type Task struct {
	ID              string
	ProjectID       string
	Name            string
	Prompt          string
	Status          TaskStatus
	StatusReason    string
	AgentBackend    agent.BackendType
	Model           string
	InteractionMode agent.InteractionMode
	SessionID       string
	HasUnread       bool
	CreatedAt       int64 // ms since the epoch
	UpdatedAt       int64
	StartedAt       int64 // first time it ran; 0 = never
	EndedAt         int64 // when the last run ended; 0 = not ended
	// Summary is the one-line summary a one-shot agent call wrote when the
	// task finished ("" = none; migration 0116).
	Summary string
	// ForkSession: SessionID is the session this task forks from on its
	// next start (migration 0117), not its own yet.
	ForkSession bool
	// ForkPoint, with ForkSession: where the copy of that session ends, in
	// the backend's own ids (agent.Config.ForkPoint; "" = the whole
	// session; migration 0126).
	ForkPoint string
}

// TaskRun is a Task with its project's name and path: what the
// orchestrator needs to run it (LoadTaskRun, TasksWithStatus).
type TaskRun struct {
	Task
	ProjectName string
	ProjectPath string
}

// NewTask is what CreateTask needs. The backend is decided by the caller
// once, here, and never changes afterwards.
type NewTask struct {
	ProjectID       string
	Name            string
	Prompt          string
	AgentBackend    agent.BackendType
	Model           string
	InteractionMode agent.InteractionMode
}

// taskCols are a task's columns from "tasks t"; scanTask reads them (and
// extra columns after them into extra).
const taskCols = `t.id, t.projectId, t.name, t.prompt, t.status, t.statusReason, t.agentBackend, t.model,
	t.interactionMode, t.sessionId, t.hasUnread, t.createdAt, t.updatedAt, coalesce(t.startedAt, 0),
	coalesce(t.endedAt, 0), t.summary, t.forkSession, t.forkPoint`

func scanTask(row interface{ Scan(...any) error }, extra ...any) (Task, error) {
	var t Task
	err := row.Scan(append([]any{&t.ID, &t.ProjectID, &t.Name, &t.Prompt, &t.Status, &t.StatusReason, &t.AgentBackend,
		&t.Model, &t.InteractionMode, &t.SessionID, &t.HasUnread, &t.CreatedAt, &t.UpdatedAt, &t.StartedAt, &t.EndedAt,
		&t.Summary, &t.ForkSession, &t.ForkPoint}, extra...)...)
	return t, err
}

// CreateTask inserts a task in status "created". An unknown project gives an
// error wrapping ErrNotFound.
func CreateTask(ctx context.Context, q SQLRunner, in NewTask) (Task, error) {
	now := Now()
	t := Task{
		ID:              uuid.NewString(),
		ProjectID:       in.ProjectID,
		Name:            in.Name,
		Prompt:          in.Prompt,
		Status:          StatusCreated,
		AgentBackend:    in.AgentBackend,
		Model:           in.Model,
		InteractionMode: in.InteractionMode,
		CreatedAt:       now,
		UpdatedAt:       now,
	}
	if t.InteractionMode == "" {
		t.InteractionMode = agent.ModeAsk
	}
	_, err := q.ExecContext(ctx, `INSERT INTO tasks (id, projectId, name, prompt, status, statusReason,
		agentBackend, model, interactionMode, sessionId, hasUnread, createdAt, updatedAt)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		t.ID, t.ProjectID, t.Name, t.Prompt, t.Status, t.StatusReason, t.AgentBackend, t.Model,
		t.InteractionMode, t.SessionID, t.HasUnread, t.CreatedAt, t.UpdatedAt)
	if isForeignKey(err) {
		return Task{}, fmt.Errorf("store: project %s: %w", in.ProjectID, ErrNotFound)
	}
	if err != nil {
		return Task{}, fmt.Errorf("store: create task: %w", err)
	}
	return t, nil
}

// GetTask returns the task with that id, or an error wrapping ErrNotFound.
func GetTask(ctx context.Context, q SQLRunner, id string) (Task, error) {
	t, err := scanTask(q.QueryRowContext(ctx, `SELECT `+taskCols+` FROM tasks t WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, fmt.Errorf("store: task %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Task{}, fmt.Errorf("store: get task: %w", err)
	}
	return t, nil
}

// ListTasks returns a project's tasks, newest first.
func ListTasks(ctx context.Context, q SQLRunner, projectID string) ([]Task, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+taskCols+` FROM tasks t WHERE projectId = ? ORDER BY createdAt DESC, rowid DESC`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", err)
	}
	defer rows.Close()
	out := []Task{}
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list tasks: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", err)
	}
	return out, nil
}

// DeleteTask removes a task and (by cascade) its messages and raw frames.
func DeleteTask(ctx context.Context, q SQLRunner, id string) error {
	res, err := q.ExecContext(ctx, `DELETE FROM tasks WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("store: delete task: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: task %s: %w", id, ErrNotFound)
	}
	return nil
}

// A task's status, session, mode, model and unread flag change through
// SetTaskStatus, SetTaskSessionID, ... (taskstate.go), inside the
// orchestrator's transactions; the functions here are what the services
// do with a whole task.

// RenameTask sets the task's display name and returns the task. Run it in
// a transaction to read back exactly what it wrote.
func RenameTask(ctx context.Context, q SQLRunner, id, name string) (Task, error) {
	res, err := q.ExecContext(ctx, `UPDATE tasks SET name = ?, updatedAt = ? WHERE id = ?`, name, Now(), id)
	if err := checkOne(res, err, "rename task", id); err != nil {
		return Task{}, err
	}
	t, err := scanTask(q.QueryRowContext(ctx, `SELECT `+taskCols+` FROM tasks t WHERE id = ?`, id))
	if err != nil {
		return Task{}, fmt.Errorf("store: task %s: %w", id, err)
	}
	return t, nil
}

func isForeignKey(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}

// SetTaskSummary stores a task's one-line summary (without touching
// updatedAt: the summary describes the task, it is not activity).
func SetTaskSummary(ctx context.Context, q SQLRunner, id, summary string) error {
	res, err := q.ExecContext(ctx, `UPDATE tasks SET summary = ? WHERE id = ?`, summary, id)
	if err != nil {
		return fmt.Errorf("store: summary of task %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: task %s: %w", id, ErrNotFound)
	}
	return nil
}

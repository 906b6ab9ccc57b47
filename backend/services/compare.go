package services

import (
	"context"
	"strings"

	"github.com/jean-claude/jean-claude/backend/compare"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/tasks"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// CompareAgent is one agent (backend, optional model) of a comparison.
type CompareAgent struct {
	Backend string `json:"backend"`
	Model   string `json:"model"`
}

// CreateCompareInput is "Run on several agents" at task creation.
type CreateCompareInput struct {
	ProjectID       string         `json:"projectId"`
	Prompt          string         `json:"prompt"`
	Name            string         `json:"name"`
	InteractionMode string         `json:"interactionMode"`
	Agents          []CompareAgent `json:"agents"`
}

// CompareMember is one compared task as the comparison view shows it.
type CompareMember struct {
	Task         Task      `json:"task"`
	DurationMs   int64     `json:"durationMs"`
	CostUSD      float64   `json:"costUsd"`
	InputTokens  int64     `json:"inputTokens"`
	OutputTokens int64     `json:"outputTokens"`
	Diff         TaskDiff  `json:"diff"`
	Check        *CheckRun `json:"check,omitempty"`
	WorktreePath string    `json:"worktreePath"`
	Branch       string    `json:"branch"`
}

// CompareView is a group side by side.
type CompareView struct {
	Group        CompareGroup    `json:"group"`
	CheckCommand string          `json:"checkCommand"`
	Members      []CompareMember `json:"members"`
}

// KeepOutcome is what "Keep this one" did.
type KeepOutcome struct {
	Kept    string   `json:"kept"`
	Merge   string   `json:"merge"` // the merge commit
	Into    string   `json:"into"`
	Removed []string `json:"removed"` // tasks whose worktree and branch were removed
	Warning string   `json:"warning,omitempty"`
}

// NewComparisons returns the agent comparisons (backend/compare) over db,
// whose tasks ts creates and deletes (as the New task dialog does); run
// may be nil (nothing starts), emit may be nil.
func NewComparisons(db *store.DB, ts *TaskService, ws *workspace.Manager, run compare.Starter, emit Emitter) *compare.Comparisons {
	return compare.New(db, compareTasks{ts}, ws, run, emit)
}

// compareTasks gives compare the tasks of the New task dialog.
type compareTasks struct{ s *TaskService }

func (t compareTasks) CreateTask(_ context.Context, in compare.NewTask) (string, error) {
	task, err := t.s.Create(CreateTaskInput{ProjectID: in.ProjectID, Prompt: in.Prompt, Backend: in.Backend, Model: in.Model,
		InteractionMode: in.InteractionMode, Name: in.Name})
	return task.ID, err
}

func (t compareTasks) DeleteTask(_ context.Context, id string) error {
	return t.s.DeleteDiscardingChanges(id)
}

// CompareTaskState is what the comparisons need of a changed task (the
// WatchTasks hook of Comparisons.TaskChanged).
func CompareTaskState(t Task) compare.TaskState {
	st := compare.TaskState{ID: t.ID, ProjectID: t.ProjectID, Status: t.Status}
	if t.EndedAt != nil {
		st.EndedAt = *t.EndedAt
	}
	return st
}

// WatchTasks wraps emit: every "task:updated" Task payload is also given to
// each of fns (the compare service's check runs).
func WatchTasks(emit Emitter, fns ...func(Task)) Emitter {
	return &taskWatcher{Emitter: emit, fns: fns}
}

type taskWatcher struct {
	Emitter
	fns []func(Task)
}

func (w *taskWatcher) Emit(name string, payload any) {
	w.Emitter.Emit(name, payload)
	if name != orchestrator.EventTaskUpdated {
		return
	}
	if t, ok := payload.(Task); ok {
		for _, f := range w.fns {
			f(t)
		}
	}
}

// CompareService is the bound face of the comparisons.
type CompareService struct {
	ctx context.Context
	c   *compare.Comparisons
}

// NewCompareService binds c.
func NewCompareService(ctx context.Context, c *compare.Comparisons) *CompareService {
	return &CompareService{ctx: ctx, c: c}
}

// Create makes one task per agent, each in its own worktree, and starts them.
func (s *CompareService) Create(in CreateCompareInput) (CompareView, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		name = tasks.NameFromPrompt(in.Prompt)
	}
	agents := make([]compare.Agent, len(in.Agents))
	for i, a := range in.Agents {
		agents[i] = compare.Agent(a)
	}
	id, err := s.c.Create(s.ctx, compare.Request{ProjectID: in.ProjectID, Prompt: in.Prompt, Name: name,
		InteractionMode: in.InteractionMode, Agents: agents})
	if err != nil {
		return CompareView{}, err
	}
	return s.Get(id)
}

// Get returns a comparison side by side.
func (s *CompareService) Get(groupID string) (CompareView, error) {
	v, err := s.c.Get(s.ctx, groupID)
	if err != nil {
		return CompareView{}, err
	}
	return CompareView{Group: CompareGroup(v.Group), CheckCommand: v.CheckCommand, Members: mapAll(v.Members, compareMemberOf)}, nil
}

func compareMemberOf(m compare.Member) CompareMember {
	return CompareMember{Task: NewTaskDTO(m.Task), DurationMs: m.DurationMs, CostUSD: m.CostUSD,
		InputTokens: m.InputTokens, OutputTokens: m.OutputTokens, Diff: TaskDiff(m.Diff),
		Check: ptrOf(m.Check, func(c store.CheckRun) CheckRun { return CheckRun(c) }), WorktreePath: m.WorktreePath, Branch: m.Branch}
}

// Groups lists a project's comparisons, newest first.
func (s *CompareService) Groups(projectID string) ([]CompareGroup, error) {
	gs, err := s.c.Groups(s.ctx, projectID)
	return mapAll(gs, compareGroupOf), err
}

// GroupOfTask returns the comparison a task belongs to ("" when none).
func (s *CompareService) GroupOfTask(taskID string) (string, error) {
	return s.c.GroupOfTask(s.ctx, taskID)
}

// CheckCommand returns a project's check command.
func (s *CompareService) CheckCommand(projectID string) (string, error) {
	return s.c.CheckCommand(s.ctx, projectID)
}

// SetCheckCommand stores a project's check command (an argv: quotes
// allowed, no shell features; empty removes it).
func (s *CompareService) SetCheckCommand(projectID, command string) (string, error) {
	return s.c.SetCheckCommand(s.ctx, projectID, command)
}

// RunCheck runs the check command in the task's worktree now.
func (s *CompareService) RunCheck(taskID string) (CheckRun, error) {
	c, err := s.c.RunCheck(s.ctx, taskID)
	return CheckRun(c), err
}

// Keep merges the chosen task and removes the others' worktrees and branches.
func (s *CompareService) Keep(groupID, taskID string) (KeepOutcome, error) {
	o, err := s.c.Keep(s.ctx, groupID, taskID)
	return KeepOutcome(o), err
}

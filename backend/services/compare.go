package services

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/jean-claude/jean-claude/backend/compare"
	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// Compare events.
const (
	// EventCompareUpdated carries CompareUpdated: a group's member or check changed.
	EventCompareUpdated = "compare:updated"
)

// CompareUpdated says which group to read again.
type CompareUpdated struct {
	GroupID string `json:"groupId"`
	TaskID  string `json:"taskId"`
}

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

// TaskStarter starts and stops a task's agent (the orchestrator).
type TaskStarter interface {
	Start(ctx context.Context, taskID string) error
	Stop(ctx context.Context, taskID string) error
}

// Comparisons runs one prompt on several agents and compares them; the
// bound CompareService is its thin front (TaskChanged and Wait are Go-only).
type Comparisons struct {
	ctx     context.Context
	db      *store.DB
	tasks   *TaskService
	ws      *workspace.Manager
	run     TaskStarter
	emit    Emitter
	timeout time.Duration

	mu      sync.Mutex
	checked map[string]int64 // task → the endedAt its check ran for
	wg      sync.WaitGroup
}

// NewComparisons returns the comparisons; run may be nil (nothing starts).
func NewComparisons(ctx context.Context, db *store.DB, tasks *TaskService, ws *workspace.Manager, run TaskStarter, emit Emitter) *Comparisons {
	if emit == nil {
		emit = nopEmitter{}
	}
	return &Comparisons{ctx: ctx, db: db, tasks: tasks, ws: ws, run: run, emit: emit,
		timeout: compare.DefaultTimeout, checked: map[string]int64{}}
}

// Create makes one task per agent (each in its own worktree), records the
// group and starts them all.
func (s *Comparisons) Create(in CreateCompareInput) (CompareView, error) {
	if n := len(in.Agents); n < 2 || n > 5 {
		return CompareView{}, invalid("agents", nil, "choose 2 to 5 agents to compare (got %d)", n)
	}
	if s.ws == nil || !s.ws.HasGit() {
		return CompareView{}, fmt.Errorf("comparing agents needs git: each agent works in its own worktree")
	}
	g := store.CompareGroup{ID: uuid.NewString(), ProjectID: in.ProjectID, Prompt: strings.TrimSpace(in.Prompt), CreatedAt: store.Now()}
	for i, a := range in.Agents {
		name := strings.TrimSpace(in.Name)
		if name == "" {
			name = nameFromPrompt(in.Prompt)
		}
		label := a.Backend
		if a.Model != "" {
			label += " " + a.Model
		}
		t, err := s.tasks.Create(CreateTaskInput{ProjectID: in.ProjectID, Prompt: in.Prompt, Backend: a.Backend, Model: a.Model,
			InteractionMode: in.InteractionMode, Name: fmt.Sprintf("%s [%d: %s]", name, i+1, label)})
		if err != nil {
			s.deleteTasks(g.TaskIDs)
			return CompareView{}, err
		}
		g.TaskIDs = append(g.TaskIDs, t.ID)
		if _, err := s.ws.SetTaskOptions(s.ctx, t.ID, workspace.TaskOptions{UseWorktree: ptr(true)}); err != nil {
			s.deleteTasks(g.TaskIDs)
			return CompareView{}, err
		}
	}
	if err := s.db.Tx(s.ctx, func(tx *sql.Tx) error { return store.CreateCompareGroup(s.ctx, tx, g) }); err != nil {
		s.deleteTasks(g.TaskIDs)
		return CompareView{}, err
	}
	if s.run != nil {
		for _, id := range g.TaskIDs {
			if err := s.run.Start(s.ctx, id); err != nil {
				return CompareView{}, fmt.Errorf("start task %s: %w", id, err)
			}
		}
	}
	return s.Get(g.ID)
}

func ptr[T any](v T) *T { return &v }

func (s *Comparisons) deleteTasks(ids []string) {
	for _, id := range ids {
		_ = s.tasks.DeleteDiscardingChanges(id)
	}
}

// Get returns a group side by side.
func (s *Comparisons) Get(groupID string) (CompareView, error) {
	g, err := store.GetCompareGroup(s.ctx, s.db.R, groupID)
	if err != nil {
		return CompareView{}, err
	}
	cmd, err := store.ProjectCheck(s.ctx, s.db.R, g.ProjectID)
	if err != nil {
		return CompareView{}, err
	}
	v := CompareView{Group: CompareGroup(g), CheckCommand: cmd, Members: []CompareMember{}}
	for _, id := range g.TaskIDs {
		m, err := s.member(id)
		if err != nil {
			return CompareView{}, err
		}
		v.Members = append(v.Members, m)
	}
	return v, nil
}

func (s *Comparisons) member(taskID string) (CompareMember, error) {
	t, err := s.tasks.Get(taskID)
	if err != nil {
		return CompareMember{}, err
	}
	m := CompareMember{Task: t}
	if t.StartedAt != nil {
		end := time.Now().UnixMilli()
		if t.EndedAt != nil {
			end = *t.EndedAt
		}
		m.DurationMs = end - *t.StartedAt
	}
	u, err := store.TaskUsage(s.ctx, s.db.R, taskID)
	if err != nil {
		return CompareMember{}, err
	}
	m.CostUSD, m.InputTokens, m.OutputTokens = u.CostUSD, u.InputTokens, u.OutputTokens
	if s.ws != nil {
		if d, err := s.ws.Diff(s.ctx, taskID); err == nil {
			m.Diff = TaskDiff(d)
		} else {
			m.Diff = TaskDiff{TaskID: taskID, Reason: err.Error()}
		}
		if info, err := s.ws.Info(s.ctx, taskID); err == nil {
			m.WorktreePath, m.Branch = info.WorktreePath, info.BranchName
		}
	}
	if c, ok, err := store.GetCheckRun(s.ctx, s.db.R, taskID); err != nil {
		return CompareMember{}, err
	} else if ok {
		m.Check = ptrOf(&c, func(c store.CheckRun) CheckRun { return CheckRun(c) })
	}
	return m, nil
}

// Groups lists a project's comparisons, newest first.
func (s *Comparisons) Groups(projectID string) ([]store.CompareGroup, error) {
	return store.CompareGroups(s.ctx, s.db.R, projectID)
}

// GroupOfTask returns the comparison a task belongs to ("" when none).
func (s *Comparisons) GroupOfTask(taskID string) (string, error) {
	return store.CompareGroupOf(s.ctx, s.db.R, taskID)
}

// CheckCommand returns a project's check command ("" when none).
func (s *Comparisons) CheckCommand(projectID string) (string, error) {
	return store.ProjectCheck(s.ctx, s.db.R, projectID)
}

// SetCheckCommand stores a project's check command (empty removes it); it
// must parse as an argv (quotes allowed, no shell features).
func (s *Comparisons) SetCheckCommand(projectID, command string) (string, error) {
	command = strings.TrimSpace(command)
	if command != "" {
		if _, err := compare.SplitArgs(command); err != nil {
			return "", invalid("checkCommand", err, "%v", err)
		}
	}
	err := s.db.Tx(s.ctx, func(tx *sql.Tx) error { return store.SetProjectCheck(s.ctx, tx, projectID, command) })
	return command, err
}

// RunCheck runs the project's check command in the task's worktree now and
// returns its result (also stored).
func (s *Comparisons) RunCheck(taskID string) (store.CheckRun, error) {
	return s.runCheck(s.ctx, taskID)
}

func (s *Comparisons) runCheck(ctx context.Context, taskID string) (store.CheckRun, error) {
	t, err := s.ws.Task(ctx, taskID)
	if err != nil {
		return store.CheckRun{}, err
	}
	cmd, err := store.ProjectCheck(ctx, s.db.R, t.Project.ProjectID)
	if err != nil || cmd == "" {
		return store.CheckRun{}, errors.Join(err, errors.New("the project has no check command (project settings)"))
	}
	dir := t.WorktreePath
	if dir == "" {
		dir = t.Project.Path
	}
	group, _ := store.CompareGroupOf(ctx, s.db.R, taskID)
	running := store.CheckRun{TaskID: taskID, Command: cmd, Status: store.CheckRunning, StartedAt: store.Now()}
	if err := store.PutCheckRun(ctx, s.db.W, running); err != nil {
		return store.CheckRun{}, err
	}
	s.emit.Emit(EventCompareUpdated, CompareUpdated{GroupID: group, TaskID: taskID})
	res := compare.RunCheck(ctx, dir, cmd, s.timeout)
	res.TaskID = taskID
	if err := store.PutCheckRun(context.WithoutCancel(ctx), s.db.W, res); err != nil {
		return res, err
	}
	s.emit.Emit(EventCompareUpdated, CompareUpdated{GroupID: group, TaskID: taskID})
	return res, nil
}

// TaskChanged is called with every "task:updated" payload: when a compared
// task's agent finished (completed or errored), the check command runs in
// its worktree, once per finish.
func (s *Comparisons) TaskChanged(t Task) {
	if t.EndedAt == nil || (t.Status != store.StatusCompleted && t.Status != store.StatusErrored) {
		return
	}
	group, err := store.CompareGroupOf(s.ctx, s.db.R, t.ID)
	if err != nil || group == "" {
		return
	}
	s.emit.Emit(EventCompareUpdated, CompareUpdated{GroupID: group, TaskID: t.ID})
	if cmd, err := store.ProjectCheck(s.ctx, s.db.R, t.ProjectID); err != nil || cmd == "" {
		return
	}
	s.mu.Lock()
	if s.checked[t.ID] == *t.EndedAt {
		s.mu.Unlock()
		return
	}
	s.checked[t.ID] = *t.EndedAt
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		_, _ = s.runCheck(s.ctx, t.ID)
	}()
}

// Wait waits for the check runs under way (tests, shutdown).
func (s *Comparisons) Wait() { s.wg.Wait() }

// Keep merges the chosen task's work into its source branch (its changes
// committed first) and removes the other tasks' worktrees and branches
// from disk, their agents stopped first. The UI asks for confirmation.
func (s *Comparisons) Keep(groupID, taskID string) (KeepOutcome, error) {
	g, err := store.GetCompareGroup(s.ctx, s.db.R, groupID)
	if err != nil {
		return KeepOutcome{}, err
	}
	if !containsString(g.TaskIDs, taskID) {
		return KeepOutcome{}, invalid("taskId", nil, "task %s is not part of this comparison", taskID)
	}
	kept, err := s.tasks.Get(taskID)
	if err != nil {
		return KeepOutcome{}, err
	}
	if kept.Status == store.StatusRunning || kept.Status == store.StatusWaiting {
		return KeepOutcome{}, fmt.Errorf("%s is still working: wait for it to finish or stop it first", kept.Name)
	}
	out := KeepOutcome{Kept: taskID}
	st, err := s.ws.Status(s.ctx, taskID)
	if err != nil {
		return out, err
	}
	if !st.Clean {
		if _, err := s.ws.Commit(s.ctx, taskID, "Jean-Claude: "+kept.Name+"\n\nKept from a comparison of agents."); err != nil &&
			!errors.Is(err, gitx.ErrNothingToCommit) {
			return out, fmt.Errorf("commit the kept task's changes: %w", err)
		}
	}
	res, err := s.ws.Merge(s.ctx, taskID, workspace.MergeInput{RemoveWorktree: true,
		Message: "Merge " + kept.Name + " (kept from a comparison of agents)"})
	if err != nil {
		return out, fmt.Errorf("merge the kept task: %w", err)
	}
	out.Merge, out.Into, out.Warning = res.Commit, res.Into, res.Warning
	for _, id := range g.TaskIDs {
		if id == taskID {
			continue
		}
		if s.run != nil {
			_ = s.run.Stop(s.ctx, id)
		}
		if _, err := s.ws.Discard(s.ctx, id); err != nil && !errors.Is(err, workspace.ErrNoWorktree) {
			out.Warning = strings.TrimSpace(out.Warning + fmt.Sprintf("\nremoving %s's worktree failed: %v", id, err))
			continue
		}
		out.Removed = append(out.Removed, id)
	}
	if err := s.db.Tx(s.ctx, func(tx *sql.Tx) error { return store.SetCompareKept(s.ctx, tx, groupID, taskID, store.Now()) }); err != nil {
		return out, err
	}
	s.emit.Emit(EventCompareUpdated, CompareUpdated{GroupID: groupID, TaskID: taskID})
	return out, nil
}

func containsString(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
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

// CompareService is the bound front of Comparisons.
type CompareService struct{ c *Comparisons }

// NewCompareService binds c.
func NewCompareService(c *Comparisons) *CompareService { return &CompareService{c: c} }

// Create makes one task per agent, each in its own worktree, and starts them.
func (s *CompareService) Create(in CreateCompareInput) (CompareView, error) { return s.c.Create(in) }

// Get returns a comparison side by side.
func (s *CompareService) Get(groupID string) (CompareView, error) { return s.c.Get(groupID) }

// Groups lists a project's comparisons, newest first.
func (s *CompareService) Groups(projectID string) ([]CompareGroup, error) {
	gs, err := s.c.Groups(projectID)
	return mapAll(gs, compareGroupOf), err
}

// GroupOfTask returns the comparison a task belongs to ("" when none).
func (s *CompareService) GroupOfTask(taskID string) (string, error) { return s.c.GroupOfTask(taskID) }

// CheckCommand returns a project's check command.
func (s *CompareService) CheckCommand(projectID string) (string, error) {
	return s.c.CheckCommand(projectID)
}

// SetCheckCommand stores a project's check command.
func (s *CompareService) SetCheckCommand(projectID, command string) (string, error) {
	return s.c.SetCheckCommand(projectID, command)
}

// RunCheck runs the check command in the task's worktree now.
func (s *CompareService) RunCheck(taskID string) (CheckRun, error) {
	c, err := s.c.RunCheck(taskID)
	return CheckRun(c), err
}

// Keep merges the chosen task and removes the others' worktrees and branches.
func (s *CompareService) Keep(groupID, taskID string) (KeepOutcome, error) {
	return s.c.Keep(groupID, taskID)
}

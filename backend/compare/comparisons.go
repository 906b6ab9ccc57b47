package compare

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/inputerr"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// EventUpdated carries Updated: a group's member or check changed.
const EventUpdated = "compare:updated"

// Updated says which group to read again.
type Updated struct {
	GroupID string `json:"groupId"`
	TaskID  string `json:"taskId"`
}

// Emitter sends an event to the UI (App.Emit).
type Emitter interface {
	Emit(name string, payload any)
}

// Tasks makes and removes the compared tasks the way the New task dialog
// does (services.TaskService: defaults, validation, events).
type Tasks interface {
	CreateTask(ctx context.Context, in NewTask) (taskID string, err error)
	// DeleteTask removes a task with its worktree, discarding its changes.
	DeleteTask(ctx context.Context, taskID string) error
}

// NewTask is one compared task: the prompt on one agent.
type NewTask struct {
	ProjectID, Prompt, Name, Backend, Model, InteractionMode string
}

// Starter starts and stops a task's agent (the orchestrator).
type Starter interface {
	Start(ctx context.Context, taskID string) error
	Stop(ctx context.Context, taskID string) error
}

// Agent is one agent (backend, optional model) of a comparison.
type Agent struct{ Backend, Model string }

// Member is one compared task: its state, cost, diff and check.
type Member struct {
	Task                      store.Task
	DurationMs                int64
	CostUSD                   float64
	InputTokens, OutputTokens int64
	Diff                      workspace.Diff
	Check                     *store.CheckRun
	WorktreePath, Branch      string
}

// View is a group side by side.
type View struct {
	Group        store.CompareGroup
	CheckCommand string
	Members      []Member
}

// KeepOutcome is what Keep did.
type KeepOutcome struct {
	Kept    string
	Merge   string // the merge commit
	Into    string
	Removed []string // tasks whose worktree and branch were removed
	Warning string
}

// TaskState is what TaskChanged needs of a changed task.
type TaskState struct {
	ID, ProjectID string
	Status        store.TaskStatus
	EndedAt       int64 // 0 = not ended
}

// Comparisons runs one prompt on several agents, each in its own worktree,
// runs the project's check command in each when it finishes and keeps the
// one the user chooses (issue 17). services.CompareService is its face.
type Comparisons struct {
	db      *store.DB
	tasks   Tasks
	ws      *workspace.Manager
	run     Starter
	emit    Emitter
	timeout time.Duration

	mu      sync.Mutex
	checked map[string]int64 // task → the endedAt its check ran for
	wg      sync.WaitGroup
}

// New returns the comparisons; ws may be nil (no git: Create fails), run
// may be nil (nothing starts), emit may be nil (no UI).
func New(db *store.DB, tasks Tasks, ws *workspace.Manager, run Starter, emit Emitter) *Comparisons {
	return &Comparisons{db: db, tasks: tasks, ws: ws, run: run, emit: emit,
		timeout: DefaultTimeout, checked: map[string]int64{}}
}

func (c *Comparisons) updated(groupID, taskID string) {
	if c.emit != nil {
		c.emit.Emit(EventUpdated, Updated{GroupID: groupID, TaskID: taskID})
	}
}

// Request is one prompt to run on several agents.
type Request struct {
	ProjectID, Prompt, InteractionMode string
	// Name is the tasks' base name (each adds its agent); the caller
	// defaults it, as services does from the prompt's first line.
	Name   string
	Agents []Agent
}

// Create makes one task per agent (2 to 5), each in its own worktree,
// records the group and starts them all; it returns the group's id.
func (c *Comparisons) Create(ctx context.Context, in Request) (string, error) {
	if n := len(in.Agents); n < 2 || n > 5 {
		return "", inputerr.New("agents", nil, "choose 2 to 5 agents to compare (got %d)", n)
	}
	if c.ws == nil || !c.ws.HasGit() {
		return "", fmt.Errorf("comparing agents needs git: each agent works in its own worktree")
	}
	g := store.CompareGroup{ID: uuid.NewString(), ProjectID: in.ProjectID, Prompt: strings.TrimSpace(in.Prompt), CreatedAt: store.Now()}
	for i, a := range in.Agents {
		label := a.Backend
		if a.Model != "" {
			label += " " + a.Model
		}
		id, err := c.tasks.CreateTask(ctx, NewTask{ProjectID: in.ProjectID, Prompt: in.Prompt, Backend: a.Backend, Model: a.Model,
			InteractionMode: in.InteractionMode, Name: fmt.Sprintf("%s [%d: %s]", in.Name, i+1, label)})
		if err != nil {
			c.deleteTasks(ctx, g.TaskIDs)
			return "", err
		}
		g.TaskIDs = append(g.TaskIDs, id)
		yes := true
		if _, err := c.ws.SetTaskOptions(ctx, id, workspace.TaskOptions{UseWorktree: &yes}); err != nil {
			c.deleteTasks(ctx, g.TaskIDs)
			return "", err
		}
	}
	if err := c.db.Tx(ctx, func(tx *sql.Tx) error { return store.CreateCompareGroup(ctx, tx, g) }); err != nil {
		c.deleteTasks(ctx, g.TaskIDs)
		return "", err
	}
	if c.run != nil {
		for _, id := range g.TaskIDs {
			if err := c.run.Start(ctx, id); err != nil {
				return "", fmt.Errorf("start task %s: %w", id, err)
			}
		}
	}
	return g.ID, nil
}

func (c *Comparisons) deleteTasks(ctx context.Context, ids []string) {
	for _, id := range ids {
		_ = c.tasks.DeleteTask(ctx, id)
	}
}

// Get returns a group side by side.
func (c *Comparisons) Get(ctx context.Context, groupID string) (View, error) {
	g, err := store.GetCompareGroup(ctx, c.db.R, groupID)
	if err != nil {
		return View{}, err
	}
	cmd, err := store.ProjectCheck(ctx, c.db.R, g.ProjectID)
	if err != nil {
		return View{}, err
	}
	v := View{Group: g, CheckCommand: cmd, Members: []Member{}}
	for _, id := range g.TaskIDs {
		m, err := c.member(ctx, id)
		if err != nil {
			return View{}, err
		}
		v.Members = append(v.Members, m)
	}
	return v, nil
}

func (c *Comparisons) member(ctx context.Context, taskID string) (Member, error) {
	t, err := store.GetTask(ctx, c.db.R, taskID)
	if err != nil {
		return Member{}, err
	}
	m := Member{Task: t}
	if t.StartedAt != 0 {
		end := time.Now().UnixMilli()
		if t.EndedAt != 0 {
			end = t.EndedAt
		}
		m.DurationMs = end - t.StartedAt
	}
	u, err := store.TaskUsage(ctx, c.db.R, taskID)
	if err != nil {
		return Member{}, err
	}
	m.CostUSD, m.InputTokens, m.OutputTokens = u.CostUSD, u.InputTokens, u.OutputTokens
	if c.ws != nil {
		if d, err := c.ws.Diff(ctx, taskID); err == nil {
			m.Diff = d
		} else {
			m.Diff = workspace.Diff{TaskID: taskID, Reason: err.Error()}
		}
		if info, err := c.ws.Info(ctx, taskID); err == nil {
			m.WorktreePath, m.Branch = info.WorktreePath, info.BranchName
		}
	}
	if run, ok, err := store.GetCheckRun(ctx, c.db.R, taskID); err != nil {
		return Member{}, err
	} else if ok {
		m.Check = &run
	}
	return m, nil
}

// Groups lists a project's comparisons, newest first.
func (c *Comparisons) Groups(ctx context.Context, projectID string) ([]store.CompareGroup, error) {
	return store.CompareGroups(ctx, c.db.R, projectID)
}

// GroupOfTask returns the comparison a task belongs to ("" when none).
func (c *Comparisons) GroupOfTask(ctx context.Context, taskID string) (string, error) {
	return store.CompareGroupOf(ctx, c.db.R, taskID)
}

// CheckCommand returns a project's check command ("" when none).
func (c *Comparisons) CheckCommand(ctx context.Context, projectID string) (string, error) {
	return store.ProjectCheck(ctx, c.db.R, projectID)
}

// SetCheckCommand stores a project's check command, trimmed (empty
// removes it); it must parse as an argv (quotes allowed, no shell
// features), else the error wraps inputerr.ErrInvalid and ErrBadCommand.
func (c *Comparisons) SetCheckCommand(ctx context.Context, projectID, command string) (string, error) {
	command = strings.TrimSpace(command)
	if command != "" {
		if _, err := SplitArgs(command); err != nil {
			return "", inputerr.New("checkCommand", err, "%v", err)
		}
	}
	err := c.db.Tx(ctx, func(tx *sql.Tx) error { return store.SetProjectCheck(ctx, tx, projectID, command) })
	return command, err
}

// RunCheck runs the project's check command in the task's worktree now and
// returns its result (also stored).
func (c *Comparisons) RunCheck(ctx context.Context, taskID string) (store.CheckRun, error) {
	t, err := c.ws.Task(ctx, taskID)
	if err != nil {
		return store.CheckRun{}, err
	}
	cmd, err := store.ProjectCheck(ctx, c.db.R, t.Project.ProjectID)
	if err != nil || cmd == "" {
		return store.CheckRun{}, errors.Join(err, errors.New("the project has no check command (project settings)"))
	}
	dir := t.WorktreePath
	if dir == "" {
		dir = t.Project.Path
	}
	group, _ := store.CompareGroupOf(ctx, c.db.R, taskID)
	running := store.CheckRun{TaskID: taskID, Command: cmd, Status: store.CheckRunning, StartedAt: store.Now()}
	if err := store.PutCheckRun(ctx, c.db.W, running); err != nil {
		return store.CheckRun{}, err
	}
	c.updated(group, taskID)
	res := RunCheck(ctx, dir, cmd, c.timeout)
	res.TaskID = taskID
	if err := store.PutCheckRun(context.WithoutCancel(ctx), c.db.W, res); err != nil {
		return res, err
	}
	c.updated(group, taskID)
	return res, nil
}

// TaskChanged is called with every changed task (services.WatchTasks):
// when a compared task's agent finished (completed or errored), the check
// command runs in its worktree in the background, once per finish, under
// ctx.
func (c *Comparisons) TaskChanged(ctx context.Context, t TaskState) {
	if t.EndedAt == 0 || (t.Status != store.StatusCompleted && t.Status != store.StatusErrored) {
		return
	}
	group, err := store.CompareGroupOf(ctx, c.db.R, t.ID)
	if err != nil || group == "" {
		return
	}
	c.updated(group, t.ID)
	if cmd, err := store.ProjectCheck(ctx, c.db.R, t.ProjectID); err != nil || cmd == "" {
		return
	}
	c.mu.Lock()
	if c.checked[t.ID] == t.EndedAt {
		c.mu.Unlock()
		return
	}
	c.checked[t.ID] = t.EndedAt
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		_, _ = c.RunCheck(ctx, t.ID)
	}()
}

// Wait waits for the check runs under way (tests, shutdown).
func (c *Comparisons) Wait() { c.wg.Wait() }

// Keep merges the chosen task's work into its source branch (its changes
// committed first) and removes the other tasks' worktrees and branches
// from disk, their agents stopped first. The UI asks for confirmation.
func (c *Comparisons) Keep(ctx context.Context, groupID, taskID string) (KeepOutcome, error) {
	g, err := store.GetCompareGroup(ctx, c.db.R, groupID)
	if err != nil {
		return KeepOutcome{}, err
	}
	if !slices.Contains(g.TaskIDs, taskID) {
		return KeepOutcome{}, inputerr.New("taskId", nil, "task %s is not part of this comparison", taskID)
	}
	kept, err := store.GetTask(ctx, c.db.R, taskID)
	if err != nil {
		return KeepOutcome{}, err
	}
	if kept.Status == store.StatusRunning || kept.Status == store.StatusWaiting {
		return KeepOutcome{}, fmt.Errorf("%s is still working: wait for it to finish or stop it first", kept.Name)
	}
	out := KeepOutcome{Kept: taskID}
	if err := c.merge(ctx, kept, &out); err != nil {
		return out, err
	}
	for _, id := range g.TaskIDs {
		if id == taskID {
			continue
		}
		if c.run != nil {
			_ = c.run.Stop(ctx, id)
		}
		if _, err := c.ws.Discard(ctx, id); err != nil && !errors.Is(err, workspace.ErrNoWorktree) {
			out.Warning = strings.TrimSpace(out.Warning + fmt.Sprintf("\nremoving %s's worktree failed: %v", id, err))
			continue
		}
		out.Removed = append(out.Removed, id)
	}
	if err := c.db.Tx(ctx, func(tx *sql.Tx) error { return store.SetCompareKept(ctx, tx, groupID, taskID, store.Now()) }); err != nil {
		return out, err
	}
	c.updated(groupID, taskID)
	return out, nil
}

// merge commits the kept task's changes and merges its branch.
func (c *Comparisons) merge(ctx context.Context, kept store.Task, out *KeepOutcome) error {
	st, err := c.ws.Status(ctx, kept.ID)
	if err != nil {
		return err
	}
	if !st.Clean {
		if _, err := c.ws.Commit(ctx, kept.ID, "Jean-Claude: "+kept.Name+"\n\nKept from a comparison of agents."); err != nil &&
			!errors.Is(err, gitx.ErrNothingToCommit) {
			return fmt.Errorf("commit the kept task's changes: %w", err)
		}
	}
	res, err := c.ws.Merge(ctx, kept.ID, workspace.MergeInput{RemoveWorktree: true,
		Message: "Merge " + kept.Name + " (kept from a comparison of agents)"})
	if err != nil {
		return fmt.Errorf("merge the kept task: %w", err)
	}
	out.Merge, out.Into, out.Warning = res.Commit, res.Into, res.Warning
	return nil
}

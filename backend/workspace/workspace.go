// Package workspace is where a task's agent works: its own git worktree
// (created from the source branch on the first run, made ready by the
// project's setup), or the project folder; and what is done with that
// work afterwards (status, diff, commit, merge, discard, removal with the
// task). A project on a remote host runs the same git calls there
// (SetRemote). Per-task operations are serialized.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/store"
)

// ErrNoWorktree: the operation needs the task's own worktree and it has
// none (worktrees off, not started yet, or already removed).
var ErrNoWorktree = errors.New("the task has no worktree")

// Info is a task's git state.
type Info struct {
	TaskID    string
	ProjectID string
	IsGitRepo bool
	// UseWorktree is the effective choice; UseWorktreeOverride the task's
	// own (absent: follows the project).
	UseWorktree         bool
	UseWorktreeOverride *bool
	SourceBranch        string
	WorktreePath        string
	BranchName          string
	BaseCommit          string
	HeadCommit          string
	MergeCommit         string
	MergedAt            *int64
	// Cwd is where the agent runs: the worktree, else the project folder.
	Cwd string
	// Notice explains, for the user, why a task that wants a worktree
	// runs in the project folder (e.g. a repository without commits).
	Notice string
}

func newInfo(t store.TaskGit) Info {
	info := Info{
		TaskID: t.TaskID, ProjectID: t.Project.ProjectID, IsGitRepo: t.Project.IsGitRepo,
		UseWorktree: t.WantsWorktree(), UseWorktreeOverride: t.UseWorktree,
		SourceBranch: t.SourceBranch, WorktreePath: t.WorktreePath, BranchName: t.BranchName,
		BaseCommit: t.BaseCommit, HeadCommit: t.HeadCommit, MergeCommit: t.MergeCommit,
		Cwd: t.Project.Path,
	}
	if t.MergedAt != 0 {
		m := t.MergedAt
		info.MergedAt = &m
	}
	if t.WorktreePath != "" {
		info.Cwd = t.WorktreePath
	}
	return info
}

// State is Info plus the live state of the worktree.
type State struct {
	Info
	HasWorktree bool
	Status      gitx.Status
	Clean       bool
	// CommitsAhead counts the task branch's commits since its base.
	CommitsAhead int
	// CanCommit / CanMerge say whether the actions make sense now;
	// MergeBlocked says why not, for the user.
	CanCommit    bool
	CanMerge     bool
	MergeBlocked string
}

// Diff is the diff of a task's work against its base commit.
type Diff struct {
	TaskID string
	// Available is false when there is nothing to diff yet (not a git
	// repository, task never started); Reason says why.
	Available bool
	Reason    string
	Base      string
	Head      string
	Files     []gitx.FileChange
	Added     int
	Removed   int
	// At is when the diff was taken (ms).
	At int64
}

// MergeInput is what Merge needs.
type MergeInput struct {
	Squash        bool
	NoFastForward bool
	Message       string
	// RemoveWorktree removes the worktree and the branch after a
	// successful merge.
	RemoveWorktree bool
}

// MergeOutcome is what Merge did.
type MergeOutcome struct {
	gitx.MergeResult
	Into            string
	WorktreeRemoved bool
	Task            Info
	// Warning is set when the merge succeeded but cleaning up failed.
	Warning string
}

// Removal is what DeleteTaskWorkspace removed.
type Removal struct {
	WorktreeRemoved bool
	BranchDeleted   bool
	KeptBranch      string
	Reason          string
	// Deferred: the worktree is on a host that is unreachable now; its
	// removal is stored and done when the host answers (RemoteRemovals).
	Deferred bool
}

// ProjectSettings is a project's worktree settings.
type ProjectSettings struct {
	ProjectID        string
	IsGitRepo        bool
	WorktreesEnabled bool
	// WorktreeRoot: "" = DefaultWorktreeRoot.
	WorktreeRoot        string
	DefaultWorktreeRoot string
	// DefaultSourceBranch: "" = the branch checked out in the project.
	DefaultSourceBranch string
}

// TaskOptions are the per-task choices made at creation.
type TaskOptions struct {
	UseWorktree  *bool
	SourceBranch string
}

// Manager owns the tasks' workspaces: one git worktree per task (or the
// project folder), its setup, diff, commit, merge and removal. The
// orchestrator uses it as its Workspace (Cwd before an agent starts,
// RunEnded after); services.GitService is its Wails-bound face. Every
// method takes a context.
type Manager struct {
	db  *store.DB
	git *gitx.Git // nil when git is not installed
	log *slog.Logger

	// remote resolves the git of a project that lives on another host
	// (issue 21); nil = every project is local.
	remote RemoteGit

	mu    sync.Mutex
	locks map[string]*sync.Mutex // per task

	setup worktreeSetup // copy globs and setup command (setup.go)
}

// RemoteGit gives the git of a project on another host: ok false for a
// local project. The returned Git runs every call on the host (package
// remote), or fails each call with why the host cannot be used.
type RemoteGit interface {
	GitFor(ctx context.Context, projectID string) (g *gitx.Git, ok bool)
}

// RemoteRemovals is the optional ability of a RemoteGit resolver to
// remove a deleted task's worktree on its host later: the host is
// unreachable now, the removal r (Host left to the resolver) is stored and
// done when the host answers again.
type RemoteRemovals interface {
	DeferRemoval(ctx context.Context, projectID string, r store.PendingRemoval) error
}

// SetRemote makes projects that live on a host use that host's git.
func (w *Manager) SetRemote(r RemoteGit) { w.remote = r }

// HasGit reports whether git is installed here (remote projects use
// their host's).
func (w *Manager) HasGit() bool { return w.git != nil }

// isDir reports whether path is a folder where the project's git runs:
// on its host for a remote project (the worktree is there, not here).
func (w *Manager) isDir(ctx context.Context, projectID, path string) bool {
	if g := w.gitFor(ctx, projectID); g != nil {
		return g.IsDir(ctx, path)
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// gitFor is the git of a project: the host's for a remote project, else
// the local one.
func (w *Manager) gitFor(ctx context.Context, projectID string) *gitx.Git {
	if w.remote != nil {
		if g, ok := w.remote.GitFor(ctx, projectID); ok {
			return g
		}
	}
	return w.git
}

// New returns the workspaces over db; g may be nil (git not installed:
// tasks run in the project folder, git actions fail clearly); log may be
// nil (slog.Default).
func New(db *store.DB, g *gitx.Git, log *slog.Logger) *Manager {
	if log == nil {
		log = slog.Default()
	}
	return &Manager{db: db, git: g, log: log, locks: map[string]*sync.Mutex{}}
}

func (w *Manager) lock(taskID string) func() {
	w.mu.Lock()
	m, ok := w.locks[taskID]
	if !ok {
		m = &sync.Mutex{}
		w.locks[taskID] = m
	}
	w.mu.Unlock()
	m.Lock()
	return m.Unlock
}

func (w *Manager) needGit(ctx context.Context, projectID string) error {
	if w.gitFor(ctx, projectID) == nil {
		return fmt.Errorf("git is not available: %w", gitx.ErrGitNotFound)
	}
	return nil
}

// Task returns task taskID's git row with its project.
func (w *Manager) Task(ctx context.Context, taskID string) (store.TaskGit, error) {
	t, err := store.GetTaskGit(ctx, w.db.R, taskID)
	if err != nil {
		return store.TaskGit{}, notFound("task", taskID, err)
	}
	return t, nil
}

// worktreeTask loads a task that must have a worktree.
func (w *Manager) worktreeTask(ctx context.Context, taskID string) (store.TaskGit, error) {
	t, err := w.Task(ctx, taskID)
	if err != nil {
		return store.TaskGit{}, err
	}
	if err := w.needGit(ctx, t.Project.ProjectID); err != nil {
		return store.TaskGit{}, err
	}
	if t.WorktreePath == "" || t.BranchName == "" {
		return store.TaskGit{}, fmt.Errorf("%w (task %s)", ErrNoWorktree, taskID)
	}
	return t, nil
}

// Info returns a task's git state.
func (w *Manager) Info(ctx context.Context, taskID string) (Info, error) {
	t, err := w.Task(ctx, taskID)
	if err != nil {
		return Info{}, err
	}
	return w.withCwd(ctx, t), nil
}

// withCwd is newInfo with Cwd inside the worktree at the same place
// the project folder has in its repository (a project may be a
// subfolder of a repository).
func (w *Manager) withCwd(ctx context.Context, t store.TaskGit) Info {
	info := newInfo(t)
	if t.WorktreePath == "" || w.gitFor(ctx, t.Project.ProjectID) == nil {
		return info
	}
	if prefix, err := w.gitFor(ctx, t.Project.ProjectID).Prefix(ctx, t.Project.Path); err == nil && prefix != "" {
		if rel := filepath.FromSlash(strings.TrimSuffix(prefix, "/")); filepath.IsLocal(rel) {
			info.Cwd = filepath.Join(t.WorktreePath, rel)
		}
	}
	return info
}

// SetTaskOptions records the per-task choices (worktree override, source
// branch). Refused once the worktree exists.
func (w *Manager) SetTaskOptions(ctx context.Context, taskID string, opt TaskOptions) (Info, error) {
	defer w.lock(taskID)()
	t, err := w.Task(ctx, taskID)
	if err != nil {
		return Info{}, err
	}
	if t.WorktreePath != "" || t.BaseCommit != "" {
		return Info{}, invalid("useWorktree", nil, "the task has already started; its worktree settings can no longer change")
	}
	src := strings.TrimSpace(opt.SourceBranch)
	if src != "" {
		if err := w.needGit(ctx, t.Project.ProjectID); err != nil {
			return Info{}, err
		}
		if _, err := w.gitFor(ctx, t.Project.ProjectID).ResolveBranch(ctx, t.Project.Path, src); err != nil {
			return Info{}, invalid("sourceBranch", err, "source branch %q: %v", src, err)
		}
	}
	if err := store.SetTaskGitOptions(ctx, w.db.W, taskID, opt.UseWorktree, src); err != nil {
		return Info{}, err
	}
	return w.Info(ctx, taskID)
}

// Prepare makes sure the task has where to run and returns its git state;
// Cwd is the agent's working directory. It is idempotent: an existing
// worktree is reused. When the task wants a worktree (task override, else
// project setting, and the project is a git repository) it creates one
// from the source branch (task's, else project's default, else the branch
// checked out in the project) and records path, branch, source and base.
// Without a worktree in a git repository it records the project's HEAD as
// the base, so the diff still works (it then includes the user's own
// uncommitted changes in that folder).
func (w *Manager) Prepare(ctx context.Context, taskID string) (Info, error) {
	defer w.lock(taskID)()
	t, err := w.Task(ctx, taskID)
	if err != nil {
		return Info{}, err
	}
	if t.WorktreePath != "" {
		if !w.isDir(ctx, t.Project.ProjectID, t.WorktreePath) {
			return Info{}, fmt.Errorf("the task's worktree %s is missing (it was removed outside Jean-Claude); discard it to start over: %w",
				t.WorktreePath, ErrNoWorktree)
		}
		return w.withCwd(ctx, t), nil
	}
	if !t.Project.IsGitRepo || w.gitFor(ctx, t.Project.ProjectID) == nil {
		return newInfo(t), nil
	}
	if !t.WantsWorktree() {
		if t.BaseCommit == "" {
			// Base and head both start at the project's HEAD (none in
			// a repository without commits).
			if head, err := w.gitFor(ctx, t.Project.ProjectID).Head(ctx, t.Project.Path); err == nil {
				if err := w.recordBaseOnly(ctx, t, head); err != nil {
					return Info{}, err
				}
			}
		}
		return w.Info(ctx, taskID)
	}
	if t.BranchName != "" {
		// The folder was removed but the branch kept: check it out again,
		// keeping the task's base.
		path, err := w.gitFor(ctx, t.Project.ProjectID).ReopenWorktree(ctx, t.Project.Path, t.Project.WorktreeRoot, t.BranchName)
		if err != nil {
			return Info{}, fmt.Errorf("reopen the task's branch %s: %w", t.BranchName, err)
		}
		head, err := w.gitFor(ctx, t.Project.ProjectID).Head(ctx, path)
		if err == nil {
			err = store.RecordWorktree(ctx, w.db.W, taskID, path, t.BranchName, t.SourceBranch, t.BaseCommit)
		}
		if err == nil {
			err = store.RecordHead(ctx, w.db.W, taskID, head)
		}
		if err != nil {
			return Info{}, err
		}
		return w.Info(ctx, taskID)
	}
	if _, err := w.gitFor(ctx, t.Project.ProjectID).Head(ctx, t.Project.Path); err != nil {
		// No commit yet: nothing to branch from; run in the project.
		info := newInfo(t)
		info.Notice = "the repository has no commit yet, so the task runs in the project folder without a worktree"
		return info, nil
	}
	source := t.SourceBranch
	if source == "" {
		source = t.Project.DefaultSourceBranch
	}
	wt, err := w.gitFor(ctx, t.Project.ProjectID).CreateWorktree(ctx, gitx.CreateOptions{
		Repo: t.Project.Path, Root: t.Project.WorktreeRoot,
		TaskName: t.TaskName, TaskID: t.TaskID, Source: source,
	})
	if err != nil {
		return Info{}, fmt.Errorf("create the task's worktree: %w", err)
	}
	if err := store.RecordWorktree(ctx, w.db.W, taskID, wt.Path, wt.Branch, wt.Source, wt.Base); err != nil {
		// Do not leave an unrecorded worktree behind.
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = w.gitFor(cctx, t.Project.ProjectID).RemoveWorktree(cctx, gitx.RemoveOptions{Repo: t.Project.Path, Path: wt.Path, Force: true})
		_ = w.gitFor(cctx, t.Project.ProjectID).DeleteBranch(cctx, gitx.DeleteBranchOptions{Repo: t.Project.Path, Branch: wt.Branch, Force: true})
		return Info{}, err
	}
	return w.Info(ctx, taskID)
}

func (w *Manager) recordBaseOnly(ctx context.Context, t store.TaskGit, head string) error {
	// RecordWorktree with no path and no branch records base and head.
	return store.RecordWorktree(ctx, w.db.W, t.TaskID, "", "", t.SourceBranch, head)
}

// RecordHead stores the current HEAD of the task's worktree (or project
// folder) as the task's head commit. Call it when a run ends.
func (w *Manager) RecordHead(ctx context.Context, taskID string) error {
	t, err := w.Task(ctx, taskID)
	if err != nil {
		return err
	}
	if err := w.needGit(ctx, t.Project.ProjectID); err != nil {
		return err
	}
	if !t.Project.IsGitRepo || t.BaseCommit == "" {
		return nil
	}
	head, err := w.gitFor(ctx, t.Project.ProjectID).Head(ctx, newInfo(t).Cwd)
	if err != nil {
		return fmt.Errorf("read the task's head: %w", err)
	}
	return store.RecordHead(ctx, w.db.W, taskID, head)
}

// Cwd prepares task t's place to run and returns it (orchestrator.Workspace):
// its worktree, created on the first run and made ready by the project's
// setup before its first agent (a failed setup runs again next time), else
// the project folder.
func (w *Manager) Cwd(ctx context.Context, t store.TaskRun) (string, error) {
	info, err := w.Prepare(ctx, t.ID)
	if err != nil {
		return "", err
	}
	if info.Cwd == "" {
		return t.ProjectPath, nil
	}
	if info.WorktreePath != "" {
		if err := w.SetUp(ctx, t, info.Cwd); err != nil {
			return "", err
		}
	}
	return info.Cwd, nil
}

// RunEnded records the task's head commit at the end of a run
// (orchestrator.Workspace). A failure is logged, not returned: the head is
// also recorded on every commit and merge.
func (w *Manager) RunEnded(ctx context.Context, taskID string) {
	if err := w.RecordHead(ctx, taskID); err != nil && !errors.Is(err, gitx.ErrGitNotFound) {
		w.log.Warn("record the task's git head", "task", taskID, "err", err)
	}
}

// Status returns the task's git state and its worktree's live status.
func (w *Manager) Status(ctx context.Context, taskID string) (State, error) {
	t, err := w.Task(ctx, taskID)
	if err != nil {
		return State{}, err
	}
	out := State{Info: newInfo(t)}
	if t.WorktreePath == "" || w.gitFor(ctx, t.Project.ProjectID) == nil {
		out.MergeBlocked = "the task has no worktree"
		return out, nil
	}
	st, err := w.gitFor(ctx, t.Project.ProjectID).Status(ctx, t.WorktreePath)
	if err != nil {
		return State{}, fmt.Errorf("read the worktree's status: %w", err)
	}
	out.HasWorktree, out.Status, out.Clean = true, st, st.Clean()
	out.CanCommit = !st.Clean() && st.Conflicted == 0
	if n, err := w.gitFor(ctx, t.Project.ProjectID).CommitsBetween(ctx, t.WorktreePath, t.BaseCommit, st.Head); err == nil {
		out.CommitsAhead = n
	}
	switch {
	case !st.Clean():
		out.MergeBlocked = "commit or discard the uncommitted changes first"
	case t.SourceBranch == "":
		out.MergeBlocked = "the task has no source branch"
	default:
		if tip, err := w.gitFor(ctx, t.Project.ProjectID).ResolveBranch(ctx, t.Project.Path, t.SourceBranch); err != nil {
			out.MergeBlocked = fmt.Sprintf("source branch %s not found", t.SourceBranch)
		} else if n, err := w.gitFor(ctx, t.Project.ProjectID).CommitsBetween(ctx, t.WorktreePath, tip, st.Head); err == nil && n == 0 {
			out.MergeBlocked = "nothing to merge: no commit beyond " + t.SourceBranch
		} else {
			out.CanMerge = true
		}
	}
	return out, nil
}

// Diff returns the task's work against its base commit: commits on the
// task branch plus staged, unstaged and untracked changes.
func (w *Manager) Diff(ctx context.Context, taskID string) (Diff, error) {
	t, err := w.Task(ctx, taskID)
	if err != nil {
		return Diff{}, err
	}
	out := Diff{TaskID: taskID, Files: []gitx.FileChange{}, At: store.Now()}
	switch {
	case w.gitFor(ctx, t.Project.ProjectID) == nil:
		out.Reason = "git is not installed"
		return out, nil
	case !t.Project.IsGitRepo:
		out.Reason = "the project is not a git repository"
		return out, nil
	case t.BaseCommit == "":
		out.Reason = "the task has not started yet"
		return out, nil
	case discarded(t):
		out.Reason = "the task's work was discarded"
		return out, nil
	}
	dir, to := diffTarget(t)
	d, err := w.gitFor(ctx, t.Project.ProjectID).Diff(ctx, dir, t.BaseCommit, gitx.DiffOptions{To: to})
	if err != nil {
		return Diff{}, fmt.Errorf("diff the task's work: %w", err)
	}
	out.Available, out.Base, out.Head, out.Added, out.Removed = true, d.Base, d.Head, d.Added, d.Removed
	if d.Files != nil {
		out.Files = d.Files
	}
	return out, nil
}

// diffTarget says what a task's diff compares its base with: the live
// files of its worktree (or of the project folder for a task run in
// place), or, once its worktree is gone (merged, removed), its recorded
// head commit.
func diffTarget(t store.TaskGit) (dir, to string) {
	if t.WorktreePath == "" && t.UseWorktree != nil && *t.UseWorktree {
		return t.Project.Path, t.HeadCommit
	}
	return newInfo(t).Cwd, ""
}

// discarded reports a task whose worktree and branch were thrown away
// without a merge.
func discarded(t store.TaskGit) bool {
	return t.WorktreePath == "" && t.BranchName == "" && t.MergedAt == 0 && t.UseWorktree != nil && *t.UseWorktree
}

// FileDiff returns one file's full change (no size budget but 8 MiB).
func (w *Manager) FileDiff(ctx context.Context, taskID, path string) (gitx.FileChange, error) {
	if path == "" || !filepath.IsLocal(filepath.FromSlash(path)) {
		return gitx.FileChange{}, invalid("path", gitx.ErrInvalidPath, "invalid file path %q", path)
	}
	t, err := w.Task(ctx, taskID)
	if err != nil {
		return gitx.FileChange{}, err
	}
	if err := w.needGit(ctx, t.Project.ProjectID); err != nil {
		return gitx.FileChange{}, err
	}
	if t.BaseCommit == "" || discarded(t) {
		return gitx.FileChange{}, fmt.Errorf("the task has no work to show: %w", ErrNoWorktree)
	}
	dir, to := diffTarget(t)
	// Find a rename's old path so the file diff stays a rename.
	all, err := w.gitFor(ctx, t.Project.ProjectID).Diff(ctx, dir, t.BaseCommit, gitx.DiffOptions{NoPatch: true, To: to})
	if err != nil {
		return gitx.FileChange{}, err
	}
	old := ""
	for _, f := range all.Files {
		if f.Path == path {
			old = f.OldPath
		}
	}
	return w.gitFor(ctx, t.Project.ProjectID).FileDiffTo(ctx, dir, t.BaseCommit, to, path, old)
}

// Commit stages everything in the task's worktree and commits it with the
// user's message; the new head is recorded.
func (w *Manager) Commit(ctx context.Context, taskID, message string) (Info, error) {
	defer w.lock(taskID)()
	t, err := w.worktreeTask(ctx, taskID)
	if err != nil {
		return Info{}, err
	}
	if strings.TrimSpace(message) == "" {
		return Info{}, invalid("message", gitx.ErrEmptyMessage, "the commit message is empty")
	}
	head, err := w.gitFor(ctx, t.Project.ProjectID).Commit(ctx, t.WorktreePath, message)
	if err != nil {
		return Info{}, err
	}
	if err := store.RecordHead(ctx, w.db.W, taskID, head); err != nil {
		return Info{}, err
	}
	return w.Info(ctx, taskID)
}

// Merge merges the task's branch into its source branch (see gitx.Merge
// for the safety rules: computed in memory first, conflicts change
// nothing, the main worktree is only updated when it is on the source
// branch and has no tracked changes). The task's worktree must be clean.
func (w *Manager) Merge(ctx context.Context, taskID string, in MergeInput) (MergeOutcome, error) {
	defer w.lock(taskID)()
	t, err := w.worktreeTask(ctx, taskID)
	if err != nil {
		return MergeOutcome{}, err
	}
	if t.SourceBranch == "" {
		return MergeOutcome{}, fmt.Errorf("the task has no source branch to merge into")
	}
	st, err := w.gitFor(ctx, t.Project.ProjectID).Status(ctx, t.WorktreePath)
	if err != nil {
		return MergeOutcome{}, err
	}
	if !st.Clean() {
		return MergeOutcome{}, fmt.Errorf("%w: commit or discard the task's changes before merging", gitx.ErrDirtyWorktree)
	}
	res, err := w.gitFor(ctx, t.Project.ProjectID).Merge(ctx, gitx.MergeOptions{
		Repo: t.Project.Path, Branch: t.BranchName, Into: t.SourceBranch,
		Squash: in.Squash, NoFastForward: in.NoFastForward, Message: in.Message,
	})
	if err != nil {
		return MergeOutcome{}, err
	}
	out := MergeOutcome{MergeResult: res, Into: t.SourceBranch}
	if err := store.RecordHead(ctx, w.db.W, taskID, st.Head); err != nil {
		return MergeOutcome{}, err
	}
	if err := store.RecordMerge(ctx, w.db.W, taskID, res.Commit, store.Now()); err != nil {
		return MergeOutcome{}, err
	}
	if in.RemoveWorktree {
		// The branch's work is in the source branch now (a squash too).
		if err := w.removeLocked(ctx, t, true, true); err != nil {
			out.Warning = fmt.Sprintf("merged, but removing the worktree failed: %v", err)
		} else {
			out.WorktreeRemoved = true
		}
	}
	out.Task, err = w.Info(ctx, taskID)
	return out, err
}

// Discard throws the task's work away: its worktree (uncommitted changes
// included) and its branch. The task itself stays.
func (w *Manager) Discard(ctx context.Context, taskID string) (Info, error) {
	defer w.lock(taskID)()
	t, err := w.worktreeTask(ctx, taskID)
	if err != nil {
		return Info{}, err
	}
	if err := w.removeLocked(ctx, t, true, true); err != nil {
		return Info{}, err
	}
	return w.Info(ctx, taskID)
}

// DeleteTaskWorkspace removes what the task owns before the task is
// deleted: its worktree (refused with gitx.ErrDirtyWorktree when it has
// uncommitted or untracked changes, unless force) and its branch when that
// is merged into the source branch (or the task was merged, or force);
// an unmerged branch is kept and named in the result. Nothing outside
// the task's own worktree and branch is touched. A task without a
// worktree has nothing to remove.
func (w *Manager) DeleteTaskWorkspace(ctx context.Context, taskID string, force bool) (Removal, error) {
	defer w.lock(taskID)()
	t, err := w.Task(ctx, taskID)
	if err != nil {
		return Removal{}, err
	}
	if t.WorktreePath == "" {
		return Removal{}, nil
	}
	if err := w.needGit(ctx, t.Project.ProjectID); err != nil {
		return Removal{}, err
	}
	var out Removal
	if err := w.gitFor(ctx, t.Project.ProjectID).RemoveWorktree(ctx, gitx.RemoveOptions{Repo: t.Project.Path, Path: t.WorktreePath, Force: force}); err != nil {
		if errors.Is(err, gitx.ErrDirtyWorktree) {
			return Removal{}, fmt.Errorf("%w; confirm to delete them with the task", err)
		}
		if d, ok := w.deferRemoval(ctx, t, force, err); ok {
			return d, nil
		}
		return Removal{}, err
	}
	out.WorktreeRemoved = true
	keep := false
	if t.BranchName != "" {
		err := w.gitFor(ctx, t.Project.ProjectID).DeleteBranch(ctx, gitx.DeleteBranchOptions{Repo: t.Project.Path, Branch: t.BranchName,
			Source: t.SourceBranch, Force: force || t.MergedAt != 0})
		switch {
		case err == nil:
			out.BranchDeleted = true
		case errors.Is(err, gitx.ErrBranchNotFound):
		case errors.Is(err, gitx.ErrUnmergedBranch):
			keep = true
			out.KeptBranch, out.Reason = t.BranchName, err.Error()
		default:
			keep = true
			out.KeptBranch, out.Reason = t.BranchName, err.Error()
		}
	}
	if err := store.ClearWorktree(ctx, w.db.W, taskID, keep); err != nil {
		return out, err
	}
	return out, nil
}

// deferRemoval stores the removal of t's worktree when err says its host
// is unreachable and the resolver can do it later (RemoteRemovals).
func (w *Manager) deferRemoval(ctx context.Context, t store.TaskGit, force bool, err error) (Removal, bool) {
	d, ok := w.remote.(RemoteRemovals)
	if !ok || !errors.Is(err, gitx.ErrHostUnreachable) {
		return Removal{}, false
	}
	r := store.PendingRemoval{TaskID: t.TaskID, Repo: t.Project.Path, Worktree: t.WorktreePath, Branch: t.BranchName,
		SourceBranch: t.SourceBranch, Force: force, ForceBranch: force || t.MergedAt != 0}
	if d.DeferRemoval(ctx, t.Project.ProjectID, r) != nil {
		return Removal{}, false
	}
	return Removal{Deferred: true, Reason: "its host is unreachable: its worktree will be removed there when it answers"}, true
}

// removeLocked removes the task's worktree and branch (the task lock is
// held).
func (w *Manager) removeLocked(ctx context.Context, t store.TaskGit, force, forceBranch bool) error {
	if err := w.gitFor(ctx, t.Project.ProjectID).RemoveWorktree(ctx, gitx.RemoveOptions{Repo: t.Project.Path, Path: t.WorktreePath, Force: force}); err != nil {
		return err
	}
	err := w.gitFor(ctx, t.Project.ProjectID).DeleteBranch(ctx, gitx.DeleteBranchOptions{Repo: t.Project.Path, Branch: t.BranchName, Source: t.SourceBranch, Force: forceBranch})
	if err != nil && !errors.Is(err, gitx.ErrBranchNotFound) {
		_ = store.ClearWorktree(ctx, w.db.W, t.TaskID, true)
		return err
	}
	return store.ClearWorktree(ctx, w.db.W, t.TaskID, false)
}

// Branches lists a project's local branches.
func (w *Manager) Branches(ctx context.Context, projectID string) ([]gitx.Branch, error) {
	if err := w.needGit(ctx, projectID); err != nil {
		return nil, err
	}
	p, err := store.GetProjectGit(ctx, w.db.R, projectID)
	if err != nil {
		return nil, notFound("project", projectID, err)
	}
	if !p.IsGitRepo {
		return []gitx.Branch{}, nil
	}
	bs, err := w.gitFor(ctx, projectID).Branches(ctx, p.Path)
	if bs == nil && err == nil {
		bs = []gitx.Branch{}
	}
	return bs, err
}

// ProjectSettings returns a project's worktree settings.
func (w *Manager) ProjectSettings(ctx context.Context, projectID string) (ProjectSettings, error) {
	p, err := store.GetProjectGit(ctx, w.db.R, projectID)
	if err != nil {
		return ProjectSettings{}, notFound("project", projectID, err)
	}
	return ProjectSettings{
		ProjectID: p.ProjectID, IsGitRepo: p.IsGitRepo, WorktreesEnabled: p.WorktreesEnabled,
		WorktreeRoot: p.WorktreeRoot, DefaultWorktreeRoot: gitx.DefaultWorktreeRoot(p.Path),
		DefaultSourceBranch: p.DefaultSourceBranch,
	}, nil
}

// SetProjectSettings validates and stores a project's worktree settings:
// the folder must be absolute and not the project itself; the branch must
// exist.
func (w *Manager) SetProjectSettings(ctx context.Context, projectID string, in ProjectSettings) (ProjectSettings, error) {
	p, err := store.GetProjectGit(ctx, w.db.R, projectID)
	if err != nil {
		return ProjectSettings{}, notFound("project", projectID, err)
	}
	root := strings.TrimSpace(in.WorktreeRoot)
	if root != "" {
		if !filepath.IsAbs(root) {
			return ProjectSettings{}, invalid("worktreeRoot", gitx.ErrInvalidPath, "the worktree folder must be an absolute path")
		}
		root = filepath.Clean(root)
		if root == filepath.Clean(p.Path) {
			return ProjectSettings{}, invalid("worktreeRoot", gitx.ErrInvalidPath, "the worktree folder cannot be the project folder itself")
		}
	}
	branch := strings.TrimSpace(in.DefaultSourceBranch)
	if branch != "" {
		if err := w.needGit(ctx, projectID); err != nil {
			return ProjectSettings{}, err
		}
		if _, err := w.gitFor(ctx, projectID).ResolveBranch(ctx, p.Path, branch); err != nil {
			return ProjectSettings{}, invalid("defaultSourceBranch", err, "branch %q: %v", branch, err)
		}
	}
	if _, err := store.SetProjectGit(ctx, w.db.W, projectID, store.ProjectGitSettings{
		WorktreesEnabled: in.WorktreesEnabled, WorktreeRoot: root, DefaultSourceBranch: branch,
	}); err != nil {
		return ProjectSettings{}, err
	}
	return w.ProjectSettings(ctx, projectID)
}

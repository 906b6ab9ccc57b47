package services

import (
	"context"
	"time"

	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// EventGitUpdated is emitted with GitUpdated after a task's git state
// changed through the GitService (worktree created, commit, merge, discard,
// removal). The diff itself is polled by the frontend.
const EventGitUpdated = "git:updated"

// GitUpdated is the payload of EventGitUpdated.
type GitUpdated struct {
	TaskID string `json:"taskId"`
}

// GitService is the Wails-bound face of workspace.Manager: the task's
// worktree, status, diff, commit, merge, discard and removal, and the
// project's worktree settings and branches. It bounds each call, maps the
// results to its DTOs (gitdto.go) and emits EventGitUpdated after changes.
type GitService struct {
	ctx  context.Context
	ws   *workspace.Manager
	emit Emitter
}

// NewGitService returns the git service; ctx bounds every call (the app's
// lifetime), emit may be nil.
func NewGitService(ctx context.Context, ws *workspace.Manager, emit Emitter) *GitService {
	if emit == nil {
		emit = nopEmitter{}
	}
	return &GitService{ctx: ctx, ws: ws, emit: emit}
}

// call bounds one operation.
func (s *GitService) call(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, d)
}

// changed emits EventGitUpdated for a call that succeeded.
func (s *GitService) changed(taskID string, err error) {
	if err == nil {
		s.emit.Emit(EventGitUpdated, GitUpdated{TaskID: taskID})
	}
}

// SetupSettings returns a project's worktree setup settings (files to
// copy, setup command).
func (s *GitService) SetupSettings(projectID string) (ProjectSetupSettings, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	set, err := s.ws.SetupSettings(ctx, projectID)
	return ProjectSetupSettings(set), err
}

// SetSetupSettings validates and stores a project's setup settings.
func (s *GitService) SetSetupSettings(projectID string, in ProjectSetupSettings) (ProjectSetupSettings, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	set, err := s.ws.SetSetupSettings(ctx, projectID, workspace.SetupSettings(in))
	return ProjectSetupSettings(set), err
}

// PrepareTaskWorktree creates the task's worktree if it should have one
// (idempotent) and returns its git state.
func (s *GitService) PrepareTaskWorktree(taskID string) (TaskGitInfo, error) {
	ctx, cancel := s.call(2 * time.Minute)
	defer cancel()
	info, err := s.ws.Prepare(ctx, taskID)
	s.changed(taskID, err)
	return TaskGitInfo(info), err
}

// Info returns the task's git state.
func (s *GitService) Info(taskID string) (TaskGitInfo, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	info, err := s.ws.Info(ctx, taskID)
	return TaskGitInfo(info), err
}

// SetTaskOptions sets the task's worktree override and source branch
// (before it starts).
func (s *GitService) SetTaskOptions(taskID string, opt TaskGitOptions) (TaskGitInfo, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	info, err := s.ws.SetTaskOptions(ctx, taskID, workspace.TaskOptions(opt))
	return TaskGitInfo(info), err
}

// Status returns the task's git state and worktree status.
func (s *GitService) Status(taskID string) (TaskGitStatus, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	st, err := s.ws.Status(ctx, taskID)
	return taskGitStatusOf(st), err
}

// Diff returns the task's changes against its base (poll it).
func (s *GitService) Diff(taskID string) (TaskDiff, error) {
	ctx, cancel := s.call(60 * time.Second)
	defer cancel()
	d, err := s.ws.Diff(ctx, taskID)
	return TaskDiff(d), err
}

// FileDiff returns one file's full change.
func (s *GitService) FileDiff(taskID, path string) (gitx.FileChange, error) {
	ctx, cancel := s.call(60 * time.Second)
	defer cancel()
	fc, err := s.ws.FileDiff(ctx, taskID, path)
	return fc, err
}

// Commit commits everything in the task's worktree.
func (s *GitService) Commit(taskID, message string) (TaskGitInfo, error) {
	ctx, cancel := s.call(10 * time.Minute) // hooks may be slow
	defer cancel()
	info, err := s.ws.Commit(ctx, taskID, message)
	s.changed(taskID, err)
	return TaskGitInfo(info), err
}

// Merge merges the task's branch into its source branch.
func (s *GitService) Merge(taskID string, in MergeInput) (MergeOutcome, error) {
	ctx, cancel := s.call(5 * time.Minute)
	defer cancel()
	out, err := s.ws.Merge(ctx, taskID, workspace.MergeInput(in))
	s.changed(taskID, err)
	return mergeOutcomeOf(out), err
}

// Discard removes the task's worktree and branch, losing its work.
func (s *GitService) Discard(taskID string) (TaskGitInfo, error) {
	ctx, cancel := s.call(2 * time.Minute)
	defer cancel()
	info, err := s.ws.Discard(ctx, taskID)
	s.changed(taskID, err)
	return TaskGitInfo(info), err
}

// DeleteTaskWorkspace removes the task's worktree (and merged branch)
// before the task is deleted; force also drops uncommitted changes and an
// unmerged branch.
func (s *GitService) DeleteTaskWorkspace(taskID string, force bool) (WorkspaceRemoval, error) {
	ctx, cancel := s.call(2 * time.Minute)
	defer cancel()
	out, err := s.ws.DeleteTaskWorkspace(ctx, taskID, force)
	s.changed(taskID, err)
	return WorkspaceRemoval{WorktreeRemoved: out.WorktreeRemoved, BranchDeleted: out.BranchDeleted, KeptBranch: out.KeptBranch,
		Reason: out.Reason}, err // (a deferred removal says so in Reason)
}

// Branches lists a project's local branches.
func (s *GitService) Branches(projectID string) ([]gitx.Branch, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	bs, err := s.ws.Branches(ctx, projectID)
	return bs, err
}

// ProjectSettings returns a project's worktree settings.
func (s *GitService) ProjectSettings(projectID string) (ProjectGitSettings, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	set, err := s.ws.ProjectSettings(ctx, projectID)
	return ProjectGitSettings(set), err
}

// SetProjectSettings stores a project's worktree settings.
func (s *GitService) SetProjectSettings(projectID string, in ProjectGitSettings) (ProjectGitSettings, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	set, err := s.ws.SetProjectSettings(ctx, projectID, workspace.ProjectSettings(in))
	return ProjectGitSettings(set), err
}

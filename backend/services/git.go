package services

import (
	"errors"

	"context"
	"github.com/jean-claude/jean-claude/backend/workspace"
	"time"

	"github.com/jean-claude/jean-claude/backend/gitx"
)

// EventGitUpdated is emitted with GitUpdated after a task's git state
// changed through the GitService (worktree created, commit, merge, discard,
// removal). The diff itself is polled by the frontend.
const EventGitUpdated = "git:updated"

// GitUpdated is the payload of EventGitUpdated.
type GitUpdated struct {
	TaskID string `json:"taskId"`
}

// GitService is the Wails-bound face of Workspaces: the task's worktree,
// status, diff, commit, merge, discard and removal, and the project's
// worktree settings and branches.
type GitService struct {
	ctx  context.Context
	ws   *Workspaces
	emit Emitter
}

// NewGitService returns the git service; ctx bounds every call (the app's
// lifetime), emit may be nil.
func NewGitService(ctx context.Context, ws *Workspaces, emit Emitter) *GitService {
	if emit == nil {
		emit = nopEmitter{}
	}
	return &GitService{ctx: ctx, ws: ws, emit: emit}
}

// call bounds one operation.
func (s *GitService) call(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, d)
}

func (s *GitService) changed(taskID string) { s.emit.Emit(EventGitUpdated, GitUpdated{TaskID: taskID}) }

// SetupSettings returns a project's worktree setup settings (files to
// copy, setup command) and the other per-project tool settings.
func (s *GitService) SetupSettings(projectID string) (ProjectSetupSettings, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	return wsResult(s.ws.SetupSettings(ctx, projectID))
}

// SetSetupSettings validates and stores a project's setup settings.
func (s *GitService) SetSetupSettings(projectID string, in ProjectSetupSettings) (ProjectSetupSettings, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	return wsResult(s.ws.SetSetupSettings(ctx, projectID, in))
}

// PrepareTaskWorktree creates the task's worktree if it should have one
// (idempotent) and returns its git state.
func (s *GitService) PrepareTaskWorktree(taskID string) (TaskGitInfo, error) {
	ctx, cancel := s.call(2 * time.Minute)
	defer cancel()
	info, err := s.ws.Prepare(ctx, taskID)
	err = wsErr(err)
	if err == nil {
		s.changed(taskID)
	}
	return info, err
}

// Info returns the task's git state.
func (s *GitService) Info(taskID string) (TaskGitInfo, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	return wsResult(s.ws.Info(ctx, taskID))
}

// SetTaskOptions sets the task's worktree override and source branch
// (before it starts).
func (s *GitService) SetTaskOptions(taskID string, opt TaskGitOptions) (TaskGitInfo, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	return wsResult(s.ws.SetTaskOptions(ctx, taskID, opt))
}

// Status returns the task's git state and worktree status.
func (s *GitService) Status(taskID string) (TaskGitStatus, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	return wsResult(s.ws.Status(ctx, taskID))
}

// Diff returns the task's changes against its base (poll it).
func (s *GitService) Diff(taskID string) (TaskDiff, error) {
	ctx, cancel := s.call(60 * time.Second)
	defer cancel()
	return wsResult(s.ws.Diff(ctx, taskID))
}

// FileDiff returns one file's full change.
func (s *GitService) FileDiff(taskID, path string) (gitx.FileChange, error) {
	ctx, cancel := s.call(60 * time.Second)
	defer cancel()
	return wsResult(s.ws.FileDiff(ctx, taskID, path))
}

// Commit commits everything in the task's worktree.
func (s *GitService) Commit(taskID, message string) (TaskGitInfo, error) {
	ctx, cancel := s.call(10 * time.Minute) // hooks may be slow
	defer cancel()
	info, err := s.ws.Commit(ctx, taskID, message)
	err = wsErr(err)
	if err == nil {
		s.changed(taskID)
	}
	return info, err
}

// Merge merges the task's branch into its source branch.
func (s *GitService) Merge(taskID string, in MergeInput) (MergeOutcome, error) {
	ctx, cancel := s.call(5 * time.Minute)
	defer cancel()
	out, err := s.ws.Merge(ctx, taskID, in)
	err = wsErr(err)
	if err == nil {
		s.changed(taskID)
	}
	return out, err
}

// Discard removes the task's worktree and branch, losing its work.
func (s *GitService) Discard(taskID string) (TaskGitInfo, error) {
	ctx, cancel := s.call(2 * time.Minute)
	defer cancel()
	info, err := s.ws.Discard(ctx, taskID)
	err = wsErr(err)
	if err == nil {
		s.changed(taskID)
	}
	return info, err
}

// DeleteTaskWorkspace removes the task's worktree (and merged branch)
// before the task is deleted; force also drops uncommitted changes and an
// unmerged branch.
func (s *GitService) DeleteTaskWorkspace(taskID string, force bool) (WorkspaceRemoval, error) {
	ctx, cancel := s.call(2 * time.Minute)
	defer cancel()
	out, err := s.ws.DeleteTaskWorkspace(ctx, taskID, force)
	err = wsErr(err)
	if err == nil {
		s.changed(taskID)
	}
	return out, err
}

// Branches lists a project's local branches.
func (s *GitService) Branches(projectID string) ([]gitx.Branch, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	return wsResult(s.ws.Branches(ctx, projectID))
}

// ProjectSettings returns a project's worktree settings.
func (s *GitService) ProjectSettings(projectID string) (ProjectGitSettings, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	return wsResult(s.ws.ProjectSettings(ctx, projectID))
}

// SetProjectSettings stores a project's worktree settings.
func (s *GitService) SetProjectSettings(projectID string, in ProjectGitSettings) (ProjectGitSettings, error) {
	ctx, cancel := s.call(30 * time.Second)
	defer cancel()
	return wsResult(s.ws.SetProjectSettings(ctx, projectID, in))
}

// wsErr turns a workspace validation error into the services' InputError
// (errors.Is(err, ErrInvalidInput)); other errors pass unchanged.
func wsErr(err error) error {
	var ie *workspace.InputError
	if errors.As(err, &ie) {
		return &InputError{Field: ie.Field, Msg: ie.Msg, Err: ie.Err}
	}
	return err
}

func wsResult[T any](v T, err error) (T, error) { return v, wsErr(err) }

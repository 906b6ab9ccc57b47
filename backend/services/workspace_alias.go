package services

import "github.com/jean-claude/jean-claude/backend/workspace"

// Temporary aliases while task worktrees move to backend/workspace.
type (
	Workspaces           = workspace.Workspaces
	TaskGitInfo          = workspace.TaskGitInfo
	TaskGitStatus        = workspace.TaskGitStatus
	TaskDiff             = workspace.TaskDiff
	MergeInput           = workspace.MergeInput
	MergeOutcome         = workspace.MergeOutcome
	WorkspaceRemoval     = workspace.WorkspaceRemoval
	ProjectGitSettings   = workspace.ProjectGitSettings
	TaskGitOptions       = workspace.TaskGitOptions
	ProjectSetupSettings = workspace.ProjectSetupSettings
	FrameWriter          = workspace.FrameWriter
)

var (
	NewWorkspaces  = workspace.NewWorkspaces
	ErrNoWorktree  = workspace.ErrNoWorktree
	ErrSetupFailed = workspace.ErrSetupFailed
)

package services

import (
	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// The GitService's own DTOs: workspace's types with JSON names. Most are
// converted with a Go conversion (TaskGitInfo(info)), which stops
// compiling as soon as the two types' fields differ; the others are mapped
// field by field below.

// TaskGitInfo is a task's git state (workspace.Info).
type TaskGitInfo struct {
	TaskID    string `json:"taskId"`
	ProjectID string `json:"projectId"`
	IsGitRepo bool   `json:"isGitRepo"`
	// UseWorktree is the effective choice; UseWorktreeOverride the task's
	// own (absent: follows the project).
	UseWorktree         bool   `json:"useWorktree"`
	UseWorktreeOverride *bool  `json:"useWorktreeOverride,omitempty"`
	SourceBranch        string `json:"sourceBranch"`
	WorktreePath        string `json:"worktreePath"`
	BranchName          string `json:"branchName"`
	BaseCommit          string `json:"baseCommit"`
	HeadCommit          string `json:"headCommit"`
	MergeCommit         string `json:"mergeCommit"`
	MergedAt            *int64 `json:"mergedAt,omitempty"`
	// Cwd is where the agent runs: the worktree, else the project folder.
	Cwd string `json:"cwd"`
	// Notice explains, for the user, why a task that wants a worktree
	// runs in the project folder (e.g. a repository without commits).
	Notice string `json:"notice,omitempty"`
}

// TaskGitStatus is TaskGitInfo plus the live state of the worktree.
type TaskGitStatus struct {
	TaskGitInfo
	HasWorktree bool        `json:"hasWorktree"`
	Status      gitx.Status `json:"status"`
	Clean       bool        `json:"clean"`
	// CommitsAhead counts the task branch's commits since its base.
	CommitsAhead int `json:"commitsAhead"`
	// CanCommit / CanMerge say whether the actions make sense now;
	// MergeBlocked says why not, for the user.
	CanCommit    bool   `json:"canCommit"`
	CanMerge     bool   `json:"canMerge"`
	MergeBlocked string `json:"mergeBlocked,omitempty"`
}

// TaskDiff is the diff of a task's work against its base commit.
type TaskDiff struct {
	TaskID string `json:"taskId"`
	// Available is false when there is nothing to diff yet (not a git
	// repository, task never started); Reason says why.
	Available bool              `json:"available"`
	Reason    string            `json:"reason,omitempty"`
	Base      string            `json:"base"`
	Head      string            `json:"head"`
	Files     []gitx.FileChange `json:"files"`
	Added     int               `json:"added"`
	Removed   int               `json:"removed"`
	// At is when the diff was taken (ms).
	At int64 `json:"at"`
}

// MergeInput is what Merge needs.
type MergeInput struct {
	Squash        bool   `json:"squash"`
	NoFastForward bool   `json:"noFastForward"`
	Message       string `json:"message"`
	// RemoveWorktree removes the worktree and the branch after a
	// successful merge.
	RemoveWorktree bool `json:"removeWorktree"`
}

// MergeOutcome is what Merge did.
type MergeOutcome struct {
	gitx.MergeResult
	Into            string      `json:"into"`
	WorktreeRemoved bool        `json:"worktreeRemoved"`
	Task            TaskGitInfo `json:"task"`
	// Warning is set when the merge succeeded but cleaning up failed.
	Warning string `json:"warning,omitempty"`
}

// WorkspaceRemoval is what DeleteTaskWorkspace removed.
type WorkspaceRemoval struct {
	WorktreeRemoved bool   `json:"worktreeRemoved"`
	BranchDeleted   bool   `json:"branchDeleted"`
	KeptBranch      string `json:"keptBranch,omitempty"`
	Reason          string `json:"reason,omitempty"`
}

// ProjectGitSettings is a project's worktree settings.
type ProjectGitSettings struct {
	ProjectID        string `json:"projectId"`
	IsGitRepo        bool   `json:"isGitRepo"`
	WorktreesEnabled bool   `json:"worktreesEnabled"`
	// WorktreeRoot: "" = DefaultWorktreeRoot.
	WorktreeRoot        string `json:"worktreeRoot"`
	DefaultWorktreeRoot string `json:"defaultWorktreeRoot"`
	// DefaultSourceBranch: "" = the branch checked out in the project.
	DefaultSourceBranch string `json:"defaultSourceBranch"`
}

// TaskGitOptions are the per-task choices made at creation.
type TaskGitOptions struct {
	UseWorktree  *bool  `json:"useWorktree"`
	SourceBranch string `json:"sourceBranch"`
}

// ProjectSetupSettings are a project's worktree setup settings
// (workspace.SetupSettings).
type ProjectSetupSettings struct {
	ProjectID string `json:"projectId"`
	// CopyGlobs: newline-separated globs of files copied from the project
	// folder into each new worktree (".env*", "config/**/*.local"; "**"
	// spans folders; "#" starts a comment).
	CopyGlobs string `json:"copyGlobs"`
	// SetupCommand runs in each new worktree after the copy ("" = none).
	SetupCommand string `json:"setupCommand"`
	// SetupRequired: the agent starts only after the setup succeeded.
	SetupRequired bool `json:"setupRequired"`
	// SetupUsesShell says (read-only) whether SetupCommand runs under
	// /bin/sh (it uses shell syntax) or directly.
	SetupUsesShell bool `json:"setupUsesShell"`
}

func taskGitStatusOf(s workspace.State) TaskGitStatus {
	return TaskGitStatus{
		TaskGitInfo: TaskGitInfo(s.Info), HasWorktree: s.HasWorktree, Status: s.Status, Clean: s.Clean,
		CommitsAhead: s.CommitsAhead, CanCommit: s.CanCommit, CanMerge: s.CanMerge, MergeBlocked: s.MergeBlocked,
	}
}

func mergeOutcomeOf(m workspace.MergeOutcome) MergeOutcome {
	return MergeOutcome{MergeResult: m.MergeResult, Into: m.Into, WorktreeRemoved: m.WorktreeRemoved,
		Task: TaskGitInfo(m.Task), Warning: m.Warning}
}

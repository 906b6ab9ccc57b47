package mcpserver

import (
	"context"

	"github.com/jean-claude/jean-claude/backend/workspace"
)

// PatchLimit caps each file's patch an agent gets through get_task_result
// (the whole diff is on the task's Changes view).
const PatchLimit = 16 << 10

// WorkspaceDiff is Options.Diff over the tasks' workspaces (get_task_result,
// create_subtask); nil when there are none.
func WorkspaceDiff(ws *workspace.Manager) func(ctx context.Context, taskID string) (TaskDiff, error) {
	if ws == nil {
		return nil
	}
	return func(ctx context.Context, taskID string) (TaskDiff, error) {
		d, err := ws.Diff(ctx, taskID)
		if err != nil {
			return TaskDiff{}, err
		}
		return taskDiff(d), nil
	}
}

// taskDiff maps a workspace diff to the tool's, each patch cut at
// PatchLimit.
func taskDiff(d workspace.Diff) TaskDiff {
	out := TaskDiff{Available: d.Available, Reason: d.Reason, Added: d.Added, Removed: d.Removed}
	for _, f := range d.Files {
		patch := f.Patch
		if len(patch) > PatchLimit {
			patch = patch[:PatchLimit] + "\n… (cut; the whole diff is in the task's changes)"
		}
		out.Files = append(out.Files, FileDiff{Path: f.Path, Status: f.Status, Added: f.Added, Removed: f.Removed, Patch: patch})
	}
	return out
}

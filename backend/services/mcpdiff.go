package services

import (
	"context"

	"github.com/jean-claude/jean-claude/backend/mcpserver"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// mcpPatchLimit caps each file's patch an agent gets through the MCP
// server's get_task_result (the whole diff is on the task's Changes view).
const mcpPatchLimit = 16 << 10

// MCPDiff is the MCP server's view of a task's diff (get_task_result,
// create_subtask); nil when there are no workspaces.
func MCPDiff(ws *workspace.Manager) func(ctx context.Context, taskID string) (mcpserver.TaskDiff, error) {
	if ws == nil {
		return nil
	}
	return func(ctx context.Context, taskID string) (mcpserver.TaskDiff, error) {
		d, err := ws.Diff(ctx, taskID)
		if err != nil {
			return mcpserver.TaskDiff{}, err
		}
		out := mcpserver.TaskDiff{Available: d.Available, Reason: d.Reason, Added: d.Added, Removed: d.Removed}
		for _, f := range d.Files {
			patch := f.Patch
			if len(patch) > mcpPatchLimit {
				patch = patch[:mcpPatchLimit] + "\n… (cut; the whole diff is in the task's changes)"
			}
			out.Files = append(out.Files, mcpserver.FileDiff{Path: f.Path, Status: f.Status, Added: f.Added, Removed: f.Removed, Patch: patch})
		}
		return out, nil
	}
}

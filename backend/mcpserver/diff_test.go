package mcpserver

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

func TestTaskDiffCutsLongPatches(t *testing.T) {
	long := strings.Repeat("+x\n", PatchLimit)
	got := taskDiff(workspace.Diff{Available: true, Added: 3, Removed: 1, Files: []gitx.FileChange{
		{Path: "a.go", Status: "modified", Added: 1, Removed: 1, Patch: "-a\n+b\n"},
		{Path: "big.txt", Status: "added", Added: 2, Patch: long},
	}})
	want := TaskDiff{Available: true, Added: 3, Removed: 1, Files: []FileDiff{
		{Path: "a.go", Status: "modified", Added: 1, Removed: 1, Patch: "-a\n+b\n"},
		{Path: "big.txt", Status: "added", Added: 2, Patch: long[:PatchLimit] + "\n… (cut; the whole diff is in the task's changes)"},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("taskDiff (-want +got):\n%s", d)
	}
	if got := taskDiff(workspace.Diff{Reason: "not started"}); got.Available || got.Reason != "not started" || got.Files != nil {
		t.Errorf("no diff yet: %+v", got)
	}
	if WorkspaceDiff(nil) != nil {
		t.Error("WorkspaceDiff(nil) is not nil: results would ask a missing workspace")
	}
}

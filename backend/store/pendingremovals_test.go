package store_test

import (
	"context"
	"testing"

	"github.com/jean-claude/jean-claude/backend/store"
)

// Pending worktree removals outlive their task and are recorded once per
// task.
func TestPendingRemovals(t *testing.T) {
	db, _ := openTemp(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.AddPendingRemoval(ctx, db.W, store.PendingRemoval{TaskID: "t1", Host: "build", Repo: "/r", Worktree: "/w1", Branch: "b1", RequestedAt: 2}))
	must(store.AddPendingRemoval(ctx, db.W, store.PendingRemoval{TaskID: "t2", Host: "build", Repo: "/r", Worktree: "/w2", Force: true, RequestedAt: 1}))
	must(store.AddPendingRemoval(ctx, db.W, store.PendingRemoval{TaskID: "t1", Host: "build", Repo: "/r", Worktree: "/w1", Branch: "b1", ForceBranch: true, RequestedAt: 3}))
	list, err := store.PendingRemovals(ctx, db.R)
	if err != nil || len(list) != 2 || list[0].TaskID != "t2" || !list[0].Force || list[1].TaskID != "t1" || !list[1].ForceBranch || list[1].Branch != "b1" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	must(store.RemovePendingRemoval(ctx, db.W, "t1"))
	must(store.RemovePendingRemoval(ctx, db.W, "t1"))
	if list, err := store.PendingRemovals(ctx, db.R); err != nil || len(list) != 1 || list[0].TaskID != "t2" {
		t.Fatalf("after remove: %+v, %v", list, err)
	}
}

package store_test

import (
	"context"
	"testing"

	"github.com/jean-claude/jean-claude/backend/store"
)

// Pending stops outlive their task (no reference to tasks) and are
// recorded once per relay.
func TestPendingStops(t *testing.T) {
	db, _ := openTemp(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.AddPendingStop(ctx, db.W, store.PendingStop{RelayID: "r1", Host: "build", TaskID: "gone", Reason: "a", RequestedAt: 1}))
	must(store.AddPendingStop(ctx, db.W, store.PendingStop{RelayID: "r2", Host: "build", Reason: "server", RequestedAt: 2}))
	must(store.AddPendingStop(ctx, db.W, store.PendingStop{RelayID: "r1", Host: "build", TaskID: "gone", Reason: "b", RequestedAt: 3}))
	list, err := store.PendingStops(ctx, db.R)
	if err != nil || len(list) != 2 || list[0].RelayID != "r2" || list[1].Reason != "b" || list[1].TaskID != "gone" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	must(store.RemovePendingStop(ctx, db.W, "r1"))
	must(store.RemovePendingStop(ctx, db.W, "r1"))
	if list, err := store.PendingStops(ctx, db.R); err != nil || len(list) != 1 || list[0].RelayID != "r2" {
		t.Fatalf("after remove: %+v, %v", list, err)
	}
}

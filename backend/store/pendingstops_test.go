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
	ps := store.NewPendingStops(db)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ps.Add(ctx, store.PendingStop{RelayID: "r1", Host: "build", TaskID: "gone", Reason: "a", RequestedAt: 1}))
	must(ps.Add(ctx, store.PendingStop{RelayID: "r2", Host: "build", Reason: "server", RequestedAt: 2}))
	must(ps.Add(ctx, store.PendingStop{RelayID: "r1", Host: "build", TaskID: "gone", Reason: "b", RequestedAt: 3}))
	list, err := ps.List(ctx)
	if err != nil || len(list) != 2 || list[0].RelayID != "r2" || list[1].Reason != "b" || list[1].TaskID != "gone" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	must(ps.Remove(ctx, "r1"))
	must(ps.Remove(ctx, "r1"))
	if list, err := ps.List(ctx); err != nil || len(list) != 1 || list[0].RelayID != "r2" {
		t.Fatalf("after remove: %+v, %v", list, err)
	}
}

package store_test

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// TestIndexPendingSomeIndexesOneSliceAtATime: a busy writer indexes the
// queue SearchSlice messages per call, oldest first, and says when it is
// empty; every message is found once the queue is.
func TestIndexPendingSomeIndexesOneSliceAtATime(t *testing.T) {
	f := newSearchFixture(t)
	db, ctx := f.db, t.Context()
	n := store.SearchSlice + 44
	err := db.TxDeferIndex(ctx, func(tx *sql.Tx) error {
		for i := range n {
			m := textMsg(fmt.Sprintf("s%d", i), agent.RoleAssistant, fmt.Sprintf("slicedword%d", i))
			if _, err := store.UpsertMessage(ctx, tx, store.MessageWrite{TaskID: f.t1.ID, Message: m, Format: "claude-code", Version: 1, Now: 9000}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	found := func(i int) bool {
		return len(search(t, db, store.SearchQuery{Text: fmt.Sprintf("slicedword%d", i)})) > 0
	}
	slice := func() bool {
		var done bool
		if err := db.TxDeferIndex(ctx, func(tx *sql.Tx) error {
			var err error
			done, err = store.IndexPendingSome(ctx, tx, store.SearchSlice)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return done
	}
	if slice() {
		t.Fatalf("the first slice of %d queued messages said the queue is empty", n)
	}
	if !found(0) || !found(store.SearchSlice-1) || found(n-1) {
		t.Fatalf("after one slice: oldest found %v, last of the slice %v, newest %v (want true, true, false)",
			found(0), found(store.SearchSlice-1), found(n-1))
	}
	if !slice() {
		t.Fatal("the second slice did not empty the queue")
	}
	for _, i := range []int{0, store.SearchSlice, n - 1} {
		if !found(i) {
			t.Errorf("slicedword%d not found once the queue is empty", i)
		}
	}
}

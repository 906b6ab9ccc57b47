package store_test

import (
	"context"
	"testing"
	"time"
)

// ReleaseMemory closes the idle readers (their page caches go) without
// touching a read under way, and the store keeps working.
func TestReleaseMemoryClosesIdleReaders(t *testing.T) {
	db, _ := openTemp(t)
	ctx := t.Context()
	// Two reads at once leave two idle reader connections.
	a, err := db.R.QueryContext(ctx, `SELECT name FROM sqlite_master`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.R.QueryContext(ctx, `SELECT name FROM sqlite_master`)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	b.Close()
	if idle := db.R.Stats().Idle; idle != 2 {
		t.Fatalf("idle readers before = %d, want 2", idle)
	}
	// A read under way keeps its connection through the release.
	busy, err := db.R.QueryContext(ctx, `WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 3) SELECT v FROM n`)
	if err != nil {
		t.Fatal(err)
	}
	if !busy.Next() {
		t.Fatal(busy.Err())
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.ReleaseMemory(rctx); err != nil {
		t.Fatal(err)
	}
	if st := db.R.Stats(); st.Idle != 0 || st.InUse != 1 {
		t.Fatalf("after release: %d idle, %d in use readers, want 0 and 1", st.Idle, st.InUse)
	}
	n := 1
	for busy.Next() {
		n++
	}
	if err := busy.Close(); err != nil || n != 3 {
		t.Fatalf("the read under way got %d rows (err %v), want 3", n, err)
	}
	if idle := db.R.Stats().Idle; idle != 1 {
		t.Fatalf("idle readers after the read = %d, want 1 (the pool keeps connections again)", idle)
	}
	if _, err := db.W.ExecContext(ctx, `CREATE TABLE after_release (x)`); err != nil {
		t.Fatal(err)
	}
	var c int
	if err := db.R.QueryRowContext(ctx, `SELECT count(*) FROM after_release`).Scan(&c); err != nil {
		t.Fatal(err)
	}
}

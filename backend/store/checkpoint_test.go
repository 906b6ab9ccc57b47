package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckpointerKeepsTheWALSmall: the writer's commits never checkpoint
// (wal_autocheckpoint(0)); the background checkpointer copies the WAL into
// the database file after them, so the WAL is reused instead of growing
// with every commit, and every committed row is in the file once closed.
func TestCheckpointerKeepsTheWALSmall(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ck.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var auto int
	if err := db.W.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("writer's wal_autocheckpoint = %d %v, want 0", auto, err)
	}
	if _, err := db.W.Exec(`CREATE TABLE blobs (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	blob := make([]byte, 64<<10)
	var maxWAL int64
	for i := range 400 { // 25 MB through the WAL in small commits
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO blobs VALUES (?)`, blob)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if i%20 == 0 {
			time.Sleep(2 * checkpointDelay) // pauses between bursts
		}
		if st, err := os.Stat(path + "-wal"); err == nil {
			maxWAL = max(maxWAL, st.Size())
		}
	}
	if maxWAL > 12<<20 {
		t.Errorf("the WAL grew to %d bytes for 25 MB written in bursts: the checkpointer does not keep up", maxWAL)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.R.QueryRow(`SELECT count(*) FROM blobs`).Scan(&n); err != nil || n != 400 {
		t.Fatalf("rows after reopening: %d %v", n, err)
	}
	t.Logf("largest WAL: %d bytes", maxWAL)
}

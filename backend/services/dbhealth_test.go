package services

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jean-claude/jean-claude/backend/store"
)

type emits struct{ names []string }

func (e *emits) Emit(name string, _ any) { e.names = append(e.names, name) }

// TestCheckDatabaseReportsCorruptPages: a file whose pages were damaged
// opens, and the background check reports it (event + DatabaseHealth).
func TestCheckDatabaseReportsCorruptPages(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "jc.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := NewAppService("test", path)
	if h := CheckDatabase(ctx, svc, db, nil); !h.OK || !h.Checked {
		t.Fatalf("fresh database: %+v", h)
	}
	// Fill some pages, then damage the middle of the file.
	for i := range 300 {
		if _, err := db.W.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)`, fmt.Sprintf("k%d", i), fmt.Sprintf("%0500d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.W.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	junk := make([]byte, 4096)
	for i := range junk {
		junk[i] = 0x5a
	}
	if _, err := f.WriteAt(junk, st.Size()/2/4096*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	db, err = store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Skipf("the damaged file does not even open (%v): the startup error already says so", err)
	}
	defer db.Close()
	em := &emits{}
	h := CheckDatabase(ctx, svc, db, em)
	if h.OK || len(h.Problems) == 0 || len(em.names) != 1 || em.names[0] != EventDBHealth {
		t.Fatalf("damaged database: %+v, emitted %v", h, em.names)
	}
	if got, _ := svc.DatabaseHealth(); got.OK || !got.Checked {
		t.Fatalf("DatabaseHealth = %+v", got)
	}
	t.Logf("problems: %q", h.Problems)
}

//go:build linux && (amd64 || arm64) && !libc.membrk && !libc.memgrind

package store

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"
)

// The libc that go.mod asks for is one whose allocator variables were
// verified (sqliteheap_linux.go): after an upgrade, read libc_musl.go's
// allocator and allocatorMu, then add the version to verifiedLibc.
func TestLibcVersionVerified(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*modernc\.org/libc (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod does not name modernc.org/libc")
	}
	if !slices.Contains(verifiedLibc, string(m[1])) {
		t.Fatalf("go.mod asks for modernc.org/libc %s, not verified for the C heap's trim (verified: %v): check that its allocator and allocatorMu are still a memory.Allocator and a sync.Mutex, then add it to verifiedLibc", m[1], verifiedLibc)
	}
}

// heapRegions reads libc's allocator through the linked names: the
// regions it has mapped and the bytes of empty ones it keeps for reuse.
func heapRegions() (regions int, retained int64) {
	sqliteHeapMu.Lock()
	defer sqliteHeapMu.Unlock()
	v := reflect.ValueOf(&sqliteHeap).Elem()
	return v.FieldByName("regs").Len(), v.FieldByName("freedSize").Int()
}

// After a burst of SQLite work, ReleaseMemory gives the C heap's empty
// regions back: none is retained after it. The linked names must be
// libc's own allocator (SQLite's regions are in it): were libc to rename
// them, the names here would be variables of their own, with no region,
// and this fails.
func TestReleaseMemoryTrimsSQLiteHeap(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "jc.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	if _, err := db.W.ExecContext(ctx, `CREATE TABLE burst (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	for range 2000 {
		if _, err := db.W.ExecContext(ctx, `INSERT INTO burst VALUES (randomblob(4000))`); err != nil {
			t.Fatal(err)
		}
	}
	var n int64
	if err := db.R.QueryRowContext(ctx, `SELECT sum(length(b)) FROM burst`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if _, err := db.W.ExecContext(ctx, `DROP TABLE burst`); err != nil {
		t.Fatal(err)
	}
	regions, retained := heapRegions()
	if regions == 0 {
		t.Fatal("libc's allocator has no region: the linked names are not libc's allocator (renamed?)")
	}
	if retained == 0 {
		t.Fatal("no empty region retained after the burst: nothing for the trim to show")
	}
	if err := db.ReleaseMemory(ctx); err != nil {
		t.Fatal(err)
	}
	after, left := heapRegions()
	t.Logf("C heap: %d regions, %d KiB of empty ones kept before ReleaseMemory; %d regions, %d KiB after",
		regions, retained>>10, after, left>>10)
	if left != 0 {
		t.Fatalf("%d KiB of empty regions still kept after ReleaseMemory, want 0", left>>10)
	}
	var c int
	if err := db.R.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&c); err != nil {
		t.Fatalf("a read after the trim: %v", err)
	}
}

//go:build linux && (amd64 || arm64) && !libc.membrk && !libc.memgrind

package store

import (
	"sync"
	_ "unsafe" // go:linkname

	"modernc.org/memory"
)

// SQLite's C heap is modernc.org/libc's allocator (a modernc.org/memory
// Allocator behind a mutex). When SQLite frees its page caches, the
// allocator keeps the empty regions for reuse, the newest 4 MiB of each
// size class still resident; after a busy hour that is ~3 MB the process
// keeps for good (README, soak run 10). The allocator has Trim, which
// returns every empty region to the OS, but libc does not export its
// allocator, so the two variables are linked here by name. If libc renamed
// them, these would become variables of their own and the trim a no-op:
// TestReleaseMemoryTrimsSQLiteHeap fails then (it reads the allocator's
// regions through these names and requires SQLite's to be there).
//
//go:linkname sqliteHeap modernc.org/libc.allocator
var sqliteHeap memory.Allocator

//go:linkname sqliteHeapMu modernc.org/libc.allocatorMu
var sqliteHeapMu sync.Mutex

// trimSQLiteHeap returns the C heap's empty regions to the OS (live
// allocations are not touched; the allocator maps new regions as needed).
func trimSQLiteHeap() error {
	sqliteHeapMu.Lock()
	defer sqliteHeapMu.Unlock()
	return sqliteHeap.Trim()
}

//go:build linux && (amd64 || arm64) && !libc.membrk && !libc.memgrind

package store

import (
	"runtime/debug"
	"slices"
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
// regions through these names and requires SQLite's to be there). A
// variable that kept its name but changed its type would be worse: the
// trim would then run on memory of another layout. So it runs only with a
// libc whose two variables were read to be a memory.Allocator and a
// sync.Mutex (verifiedLibc); TestLibcVersionVerified fails when go.mod asks
// for another one.
//
//go:linkname sqliteHeap modernc.org/libc.allocator
var sqliteHeap memory.Allocator

//go:linkname sqliteHeapMu modernc.org/libc.allocatorMu
var sqliteHeapMu sync.Mutex

// verifiedLibc are the modernc.org/libc versions whose allocator and
// allocatorMu (libc_musl.go) were read to be what is declared here.
var verifiedLibc = []string{"v1.77.1"}

// libcVerified tells whether this binary was built with a verified libc.
// A test binary lists no modules: TestLibcVersionVerified checks go.mod
// for it.
var libcVerified = sync.OnceValue(func() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, m := range bi.Deps {
		if m.Path == "modernc.org/libc" {
			if m.Replace != nil {
				m = m.Replace
			}
			return slices.Contains(verifiedLibc, m.Version)
		}
	}
	return len(bi.Deps) == 0
})

// trimSQLiteHeap returns the C heap's empty regions to the OS (live
// allocations are not touched; the allocator maps new regions as needed).
// With a libc not verified it does nothing.
func trimSQLiteHeap() error {
	if !libcVerified() {
		return nil
	}
	sqliteHeapMu.Lock()
	defer sqliteHeapMu.Unlock()
	return sqliteHeap.Trim()
}

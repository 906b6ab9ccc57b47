package main

import (
	"context"
	"log/slog"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// idleTrim is the orchestrator's IdleTrim (issue 20, make soak): once no
// task has had a turn under way for a while, it gives back the memory the
// runs left behind: SQLite's caches (idle reader connections and the
// writer's page cache), the Go heap's free pages (debug.FreeOSMemory: one
// full collection, then every free page back to the OS, where the runtime
// would otherwise hand them back slowly or keep them for the next burst),
// and the C heap's free pages (GTK and WebKit's UI side: glibc keeps what
// they freed in its arenas).
func idleTrim(db *store.DB, log *slog.Logger) func(context.Context) {
	return func(ctx context.Context) {
		start := time.Now()
		if err := db.ReleaseMemory(ctx); err != nil && ctx.Err() == nil {
			log.Warn("idle trim", "err", err)
		}
		if ctx.Err() != nil {
			return // a turn started: its memory is about to be used again
		}
		// Two collections: the first moves what sync.Pools hold (encoders'
		// buffers, io.Copy's) to their victim caches, the second (in
		// FreeOSMemory) drops it, so whole spans come free.
		runtime.GC()
		debug.FreeOSMemory()
		releaseCHeap()
		log.Debug("idle trim", "took", time.Since(start))
	}
}

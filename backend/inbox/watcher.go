package inbox

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// Emitter sends an event to the window (App.Emit).
type Emitter interface {
	Emit(name string, payload any)
}

// Withdrawer takes back the desktop notification of an item that left the
// inbox (answered, read or deleted in the app). notify.Async is one.
type Withdrawer interface {
	Withdraw(ctx context.Context, key string) error
}

// triggers are the events after which the inbox may have changed; each is
// emitted only once its change is stored (the orchestrator's rule), so the
// inbox read after it sees the change.
var triggers = map[string]bool{
	"task:updated": true, "requests:updated": true, "task:deleted": true,
	"project:removed": true, "projects:updated": true,
}

// Watcher recomputes the inbox after every trigger event, at most once per
// Delay, emits "inbox:updated" when it changed, withdraws the notification
// of every item that left it and reports the count (the window title).
type Watcher struct {
	DB       *store.DB
	Out      Emitter
	Withdraw Withdrawer      // may be nil
	OnCount  func(count int) // may be nil: the window title
	Delay    time.Duration   // coalescing delay; 0 means 30 ms
	Log      *slog.Logger    // may be nil

	run     sync.Mutex // one refresh at a time: updates are emitted in order
	mu      sync.Mutex
	pending bool
	last    map[string]bool
	lastSig string
	started bool
}

// Touch tells the watcher that event name was emitted; it is cheap and
// never blocks.
func (w *Watcher) Touch(name string) {
	if w == nil || !triggers[name] {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending {
		return
	}
	w.pending = true
	d := w.Delay
	if d <= 0 {
		d = 30 * time.Millisecond
	}
	time.AfterFunc(d, w.refresh)
}

// Refresh recomputes the inbox now (startup, tests).
func (w *Watcher) Refresh() { w.refresh() }

func (w *Watcher) refresh() {
	w.run.Lock()
	defer w.run.Unlock()
	w.mu.Lock()
	w.pending = false
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	items, err := Load(ctx, w.DB.R)
	if err != nil {
		w.log().Warn("inbox: load", "err", err)
		return
	}
	keys := make(map[string]bool, len(items))
	sig := ""
	for _, it := range items {
		keys[it.Key] = true
		sig += it.Key + "|" + it.Summary + "\n"
	}
	w.mu.Lock()
	gone := []string{}
	for k := range w.last {
		if !keys[k] {
			gone = append(gone, k)
		}
	}
	changed := !w.started || sig != w.lastSig
	w.last, w.lastSig, w.started = keys, sig, true
	w.mu.Unlock()
	if w.Withdraw != nil {
		for _, k := range gone {
			if err := w.Withdraw.Withdraw(ctx, k); err != nil {
				w.log().Warn("inbox: withdraw notification", "item", k, "err", err)
			}
		}
	}
	if !changed {
		return
	}
	if w.OnCount != nil {
		w.OnCount(len(items))
	}
	if w.Out != nil {
		w.Out.Emit(EventUpdated, Payload{Items: items, Count: len(items)})
	}
}

func (w *Watcher) log() *slog.Logger {
	if w.Log != nil {
		return w.Log
	}
	return slog.Default()
}

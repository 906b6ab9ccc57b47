package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/inbox"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/term"
)

// App owns what lives as long as the window: the Wails context (set at
// startup), the database and the backend registry (released at shutdown).
type App struct {
	db  *store.DB
	reg *agent.Registry
	// cancel ends the context the services run their calls under.
	cancel context.CancelFunc
	// sessions is the orchestrator wiring (orchestrator_wiring.go), set by
	// main before Wails starts.
	sessions *sessions
	// appSvc is the bound AppService; startup runs the database check
	// into it in the background.
	appSvc *services.AppService
	// terms are the embedded terminals (set by main); closed at shutdown.
	terms *term.Manager
	// inbox recomputes the attention inbox after each emitted change (set
	// by main; nil in the bindings build).
	inbox *inbox.Watcher
	// events joins what is emitted within one window into one batch of
	// the feed, which the page fetches (eventbatch.go).
	events *eventBatcher
	feed   *eventFeed
	// webProcessStarted unsets what only the window's web process was to
	// start with (set by main; startup.go, setForWebProcess).
	webProcessStarted func()

	mu  sync.RWMutex
	ctx context.Context // the Wails runtime context; nil before startup
}

// NewApp returns the app around an open database and a registry; cancel
// is called at shutdown.
func NewApp(db *store.DB, reg *agent.Registry, cancel context.CancelFunc) *App {
	a := &App{db: db, reg: reg, cancel: cancel, feed: newEventFeed(feedKeep)}
	a.events = newEventBatcher(batchWindow, a.emitBatch)
	return a
}

// startup is Wails' OnStartup: it keeps the runtime context.
func (a *App) startup(ctx context.Context) {
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()
	if a.sessions != nil {
		a.sessions.start(ctx)
	}
	if a.inbox != nil {
		go a.inbox.Refresh() // the title's count before anything changes
	}
	if a.appSvc != nil && a.db != nil {
		// Corrupt pages are reported in the window, not only on stderr;
		// the check reads the whole file, so the window does not wait.
		go func() {
			if h := services.CheckDatabase(ctx, a.appSvc, a.db, a); !h.OK {
				fmt.Fprintf(os.Stderr, "jean-claude: the database has problems: %v\n", h.Problems)
			}
		}()
	}
}

// settleDelay is how long after the window's page is loaded the start's
// memory is given back (issue 20): its first data has been fetched by then.
const settleDelay = 3 * time.Second

// domReady is Wails' OnDomReady: once the page has loaded, the idle trim
// runs after settleDelay if no turn is under way (what the start
// allocated is garbage by then; orchestrator.TrimWhenSettled).
func (a *App) domReady(context.Context) {
	if a.webProcessStarted != nil {
		a.webProcessStarted() // the page has loaded: its process runs (startup.go)
	}
	if a.sessions != nil && a.sessions.o != nil {
		a.sessions.o.TrimWhenSettled(settleDelay)
	}
}

// shutdown is Wails' OnShutdown: it stops every agent backend, then closes
// the database.
func (a *App) shutdown(context.Context) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if a.terms != nil {
		a.terms.CloseAll(ctx) // no PTY program outlives the window
	}
	if a.sessions != nil {
		a.sessions.stop(ctx) // every agent session first: no orphan processes
	}
	if a.reg != nil {
		if err := a.reg.Dispose(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "jean-claude: stopping agent backends: %v\n", err)
		}
	}
	if a.cancel != nil {
		a.cancel()
	}
	if a.db != nil {
		if err := a.db.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "jean-claude: closing the database: %v\n", err)
		}
	}
}

// runtimeCtx is the Wails context, or nil before startup.
func (a *App) runtimeCtx() context.Context {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.ctx
}

// Emit implements services.Emitter: events are joined per batch window
// into one batch of the feed, in order, which the page's waiting fetch
// takes (eventbatch.go). Events before startup (no window yet) are dropped.
func (a *App) Emit(name string, payload any) {
	if a.runtimeCtx() != nil {
		a.events.add(name, payload)
	}
	a.inbox.Touch(name) // a stored change may have changed the inbox
}

// emitBatch puts one batch of events in the feed, which answers the
// page's waiting fetch (eventbatch.go): no script runs in the window.
func (a *App) emitBatch(batch []batchedEvent) { a.feed.push(batch) }

// setInboxCount shows the inbox count in the window title.
func (a *App) setInboxCount(n int) {
	if ctx := a.runtimeCtx(); ctx != nil {
		runtime.WindowSetTitle(ctx, inboxTitle(n))
	}
}

// inboxTitle is the window title for n items waiting on the user.
func inboxTitle(n int) string {
	if n <= 0 {
		return "Jean-Claude"
	}
	return fmt.Sprintf("(%d) Jean-Claude", n)
}

// openInboxItem brings the window up on one inbox item: a desktop
// notification for it was clicked.
func (a *App) openInboxItem(key string) {
	ctx := a.runtimeCtx()
	if ctx == nil {
		return
	}
	runtime.WindowUnminimise(ctx)
	runtime.WindowShow(ctx)
	runtime.EventsEmit(ctx, inbox.EventOpen, inbox.OpenRequest{Key: key, TaskID: inbox.TaskOfKey(key)})
}

// OpenURL implements services.Browser with the Wails runtime: the default
// browser opens the (already checked) link; the webview never navigates.
func (a *App) OpenURL(url string) {
	if ctx := a.runtimeCtx(); ctx != nil {
		runtime.BrowserOpenURL(ctx, url)
	}
}

// PickDirectory implements services.Dialogs with the native dialog.
func (a *App) PickDirectory(title string) (string, error) {
	ctx := a.runtimeCtx()
	if ctx == nil {
		return "", fmt.Errorf("the window is not ready yet")
	}
	return runtime.OpenDirectoryDialog(ctx, runtime.OpenDialogOptions{Title: title, CanCreateDirectories: true})
}

// bringForward shows the window in front: another launch of the same
// profile asked for it (see backend/instance).
func (a *App) bringForward() {
	ctx := a.runtimeCtx()
	if ctx == nil {
		return
	}
	runtime.WindowUnminimise(ctx)
	runtime.WindowShow(ctx)
	runtime.EventsEmit(ctx, "app:brought-forward", nil)
}

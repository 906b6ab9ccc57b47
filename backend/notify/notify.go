// Package notify sends desktop notifications: a small Notifier interface, a
// beeep implementation (D-Bus org.freedesktop.Notifications on Linux, the
// native APIs elsewhere) and Async, which delivers in the background through
// a bounded queue so a slow or missing notification daemon never blocks the
// caller.
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/gen2brain/beeep"
)

// Kind says why a notification is sent; each kind can be turned off.
type Kind string

// Notification kinds.
const (
	KindComplete   Kind = "complete"
	KindError      Kind = "error"
	KindPermission Kind = "permission"
	KindQuestion   Kind = "question"
)

// Kinds lists every kind, in display order.
var Kinds = []Kind{KindComplete, KindError, KindPermission, KindQuestion}

// SettingKey is the settings key that turns kind k on or off
// ("notify.complete" = "false" turns completion notifications off).
func (k Kind) SettingKey() string { return "notify." + string(k) }

// Notification is one desktop notification.
type Notification struct {
	Kind   Kind
	TaskID string
	Title  string
	Body   string
}

// Notifier shows notifications.
type Notifier interface {
	Notify(ctx context.Context, n Notification) error
}

// NotifierFunc adapts a function to Notifier.
type NotifierFunc func(ctx context.Context, n Notification) error

// Notify implements Notifier.
func (f NotifierFunc) Notify(ctx context.Context, n Notification) error { return f(ctx, n) }

// Beeep shows notifications with github.com/gen2brain/beeep.
type Beeep struct {
	// Icon is a path to a PNG or a stock icon name; may be empty.
	Icon string
}

// NewBeeep returns a beeep notifier for an app called appName. beeep keeps
// the app name in a package variable, so this sets it once.
func NewBeeep(appName, icon string) *Beeep {
	if appName != "" {
		beeep.AppName = appName
	}
	return &Beeep{Icon: icon}
}

// Notify implements Notifier. It blocks until the notification daemon (or
// the fallback command) answered; wrap it in Async.
func (b *Beeep) Notify(ctx context.Context, n Notification) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := beeep.Notify(n.Title, n.Body, b.Icon); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	return nil
}

// ErrQueueFull: Async dropped a notification because its queue was full.
var ErrQueueFull = errors.New("notification queue full")

// ErrClosed: Async was closed.
var ErrClosed = errors.New("notifier closed")

// Async delivers notifications through inner on one background goroutine,
// from a bounded queue. Notify never blocks: when the queue is full the
// notification is dropped, logged and ErrQueueFull returned.
type Async struct {
	inner  Notifier
	log    *slog.Logger
	ch     chan Notification
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	closed bool
}

// NewAsync starts the delivery goroutine; size bounds the queue.
func NewAsync(inner Notifier, size int, log *slog.Logger) *Async {
	if size <= 0 {
		size = 32
	}
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &Async{inner: inner, log: log, ch: make(chan Notification, size), ctx: ctx, cancel: cancel, done: make(chan struct{})}
	go a.loop()
	return a
}

func (a *Async) loop() {
	defer close(a.done)
	for n := range a.ch {
		if err := a.inner.Notify(a.ctx, n); err != nil {
			a.log.Warn("desktop notification failed", "kind", n.Kind, "task", n.TaskID, "err", err)
		}
	}
}

// Notify queues n and returns at once.
func (a *Async) Notify(_ context.Context, n Notification) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return ErrClosed
	}
	select {
	case a.ch <- n:
		return nil
	default:
		a.log.Warn("desktop notification dropped: queue full", "kind", n.Kind, "task", n.TaskID, "title", n.Title)
		return ErrQueueFull
	}
}

// Close stops accepting notifications, delivers what is queued and waits
// for the goroutine, or gives up when ctx ends (cancelling the delivery in
// flight and leaving the goroutine to finish on its own).
func (a *Async) Close(ctx context.Context) error {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.ch)
	}
	a.mu.Unlock()
	select {
	case <-a.done:
		a.cancel()
		return nil
	case <-ctx.Done():
		// A notifier stuck in a call that ignores ctx (a hung
		// notify-send) must not hold up the app's exit.
		a.cancel()
		return ctx.Err()
	}
}

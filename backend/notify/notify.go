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

// Enabled tells whether a kind whose setting holds v (set: whether it is
// stored at all) is on: every kind is on unless turned off ("false", "0"
// or "off").
func Enabled(v string, set bool) bool {
	return !set || (v != "false" && v != "0" && v != "off")
}

// Notification is one desktop notification.
type Notification struct {
	Kind   Kind
	TaskID string
	// Key names the inbox item it is about (RequestKey, ResultKey): a
	// second notification with the same key replaces the first, a click
	// opens that item, and Withdraw(key) takes it back.
	Key   string
	Title string
	Body  string
}

// RequestKey is the inbox key of a pending permission request, question
// or plan approval.
func RequestKey(taskID, requestID string) string { return "request:" + taskID + ":" + requestID }

// ResultKey is the inbox key of a task's unread result ("error:" when it
// failed).
func ResultKey(taskID string, failed bool) string {
	if failed {
		return "error:" + taskID
	}
	return "result:" + taskID
}

// Notifier shows notifications.
type Notifier interface {
	Notify(ctx context.Context, n Notification) error
}

// Withdrawer is a Notifier that can take a notification back by its key
// (DBus; beeep cannot).
type Withdrawer interface {
	Withdraw(ctx context.Context, key string) error
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
	ch     chan op
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
	a := &Async{inner: inner, log: log, ch: make(chan op, size), ctx: ctx, cancel: cancel, done: make(chan struct{})}
	go a.loop()
	return a
}

// op is a queued notification, or (withdraw set) the key of one to take back.
type op struct {
	n        Notification
	withdraw string
}

func (a *Async) loop() {
	defer close(a.done)
	for o := range a.ch {
		if o.withdraw != "" {
			if w, ok := a.inner.(Withdrawer); ok {
				if err := w.Withdraw(a.ctx, o.withdraw); err != nil {
					a.log.Warn("withdrawing a desktop notification failed", "item", o.withdraw, "err", err)
				}
			}
			continue
		}
		if err := a.inner.Notify(a.ctx, o.n); err != nil {
			a.log.Warn("desktop notification failed", "kind", o.n.Kind, "task", o.n.TaskID, "err", err)
		}
	}
}

// Notify queues n and returns at once.
func (a *Async) Notify(_ context.Context, n Notification) error {
	if err := a.push(op{n: n}); err != nil {
		a.log.Warn("desktop notification dropped", "kind", n.Kind, "task", n.TaskID, "title", n.Title, "err", err)
		return err
	}
	return nil
}

// Withdraw queues taking back the notification of key (a no-op when the
// inner notifier cannot) and returns at once.
func (a *Async) Withdraw(_ context.Context, key string) error {
	if _, ok := a.inner.(Withdrawer); !ok || key == "" {
		return nil
	}
	return a.push(op{withdraw: key})
}

func (a *Async) push(o op) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return ErrClosed
	}
	select {
	case a.ch <- o:
		return nil
	default:
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

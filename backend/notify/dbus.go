package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The freedesktop notification service (Desktop Notifications
// Specification 1.2).
const (
	dbusName  = "org.freedesktop.Notifications"
	dbusPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	dbusIface = "org.freedesktop.Notifications"
)

// ErrNoActions: the notification server cannot show actions (its
// GetCapabilities lacks "actions"), so a click could not open the item.
var ErrNoActions = errors.New("the notification server has no actions capability")

// DBus shows notifications through org.freedesktop.Notifications on the
// session bus, each with a default action ("Open"): clicking it calls
// OnAction with the notification's key. One notification per key: a second
// Notify with the same key replaces the first (replaces_id), Withdraw
// closes it (CloseNotification).
type DBus struct {
	conn     *dbus.Conn
	obj      dbus.BusObject
	appName  string
	icon     string
	onAction func(key string)
	log      *slog.Logger

	mu    sync.Mutex
	ids   map[string]uint32      // key → server id
	keys  map[uint32]string      // server id → key
	early map[uint32]earlySignal // signals for ids no Notify reply has named yet
}

// earlySignal is what the server said about an id before the reply to its
// Notify was read: a click in those few milliseconds still opens the item.
type earlySignal struct {
	at      time.Time
	clicked bool
	closed  bool
}

// Early signals are kept this long, at most this many (the server also
// signals other applications' notifications: most are never claimed).
const (
	earlyFor = 5 * time.Second
	earlyMax = 64
)

// NewDBus connects to the session bus and checks the server offers
// actions (ErrNoActions otherwise: use Beeep). onAction is called, on a
// goroutine of its own, with the key of a clicked notification.
func NewDBus(appName, icon string, onAction func(key string), log *slog.Logger) (*DBus, error) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, fmt.Errorf("notify: session bus: %w", err)
	}
	obj := conn.Object(dbusName, dbusPath)
	var caps []string
	if err := obj.Call(dbusIface+".GetCapabilities", 0).Store(&caps); err != nil {
		conn.Close()
		return nil, fmt.Errorf("notify: capabilities: %w", err)
	}
	if !slices.Contains(caps, "actions") {
		conn.Close()
		return nil, ErrNoActions
	}
	if err := conn.AddMatchSignal(dbus.WithMatchInterface(dbusIface), dbus.WithMatchObjectPath(dbusPath)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("notify: watch signals: %w", err)
	}
	if log == nil {
		log = slog.Default()
	}
	d := &DBus{conn: conn, obj: obj, appName: appName, icon: icon, onAction: onAction, log: log,
		ids: map[string]uint32{}, keys: map[uint32]string{}, early: map[uint32]earlySignal{}}
	ch := make(chan *dbus.Signal, 32)
	conn.Signal(ch)
	go d.listen(ch)
	return d, nil
}

// Notify implements Notifier.
func (d *DBus) Notify(ctx context.Context, n Notification) error {
	d.mu.Lock()
	replaces := d.ids[n.Key]
	d.mu.Unlock()
	actions := []string{"default", "Open"}
	hints := map[string]dbus.Variant{"desktop-entry": dbus.MakeVariant("jean-claude")}
	var id uint32
	err := d.obj.CallWithContext(ctx, dbusIface+".Notify", 0, d.appName, replaces, d.icon, n.Title, n.Body,
		actions, hints, int32(-1)).Store(&id)
	if err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	if n.Key == "" {
		return nil
	}
	if d.record(n.Key, id).clicked && d.onAction != nil {
		go d.onAction(n.Key)
	}
	return nil
}

// record ties the server's id to key and returns what the server signalled
// for that id before its Notify reply was read (a click, a close).
func (d *DBus) record(key string, id uint32) earlySignal {
	d.mu.Lock()
	defer d.mu.Unlock()
	if old, ok := d.ids[key]; ok && old != id {
		delete(d.keys, old)
	}
	sig, ok := d.early[id]
	delete(d.early, id)
	if ok && time.Since(sig.at) > earlyFor {
		sig = earlySignal{}
	}
	if sig.closed {
		delete(d.ids, key)
		delete(d.keys, id)
	} else {
		d.ids[key], d.keys[id] = id, key
	}
	return sig
}

// Withdraw closes the notification shown for key, if any: its item was
// answered in the app.
func (d *DBus) Withdraw(ctx context.Context, key string) error {
	d.mu.Lock()
	id, ok := d.ids[key]
	if ok {
		delete(d.ids, key)
		delete(d.keys, id)
	}
	d.mu.Unlock()
	if !ok {
		return nil
	}
	if err := d.obj.CallWithContext(ctx, dbusIface+".CloseNotification", 0, id).Err; err != nil {
		return fmt.Errorf("notify: close %d: %w", id, err)
	}
	return nil
}

// Close disconnects from the bus.
func (d *DBus) Close() error { return d.conn.Close() }

func (d *DBus) listen(ch <-chan *dbus.Signal) {
	for sig := range ch {
		if sig.Path != dbusPath || len(sig.Body) < 1 {
			continue
		}
		id, _ := sig.Body[0].(uint32)
		switch sig.Name {
		case dbusIface + ".ActionInvoked":
			if key := d.clicked(id); key != "" && d.onAction != nil {
				d.onAction(key)
			}
		case dbusIface + ".NotificationClosed":
			d.forget(id)
		}
	}
}

// clicked returns the key of the clicked id; an id no reply has named yet
// is remembered (record matches it when the reply comes).
func (d *DBus) clicked(id uint32) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	key, ok := d.keys[id]
	if !ok {
		d.remember(id, func(s *earlySignal) { s.clicked = true })
	}
	return key
}

func (d *DBus) forget(id uint32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	key, ok := d.keys[id]
	if !ok {
		d.remember(id, func(s *earlySignal) { s.closed = true })
		return
	}
	delete(d.keys, id)
	if d.ids[key] == id {
		delete(d.ids, key)
	}
}

// remember notes a signal for an id not known yet, dropping stale ones and,
// when full, the oldest. Called with d.mu held.
func (d *DBus) remember(id uint32, note func(*earlySignal)) {
	now := time.Now()
	var oldest uint32
	var oldestAt time.Time
	for k, s := range d.early {
		if now.Sub(s.at) > earlyFor {
			delete(d.early, k)
		} else if oldestAt.IsZero() || s.at.Before(oldestAt) {
			oldest, oldestAt = k, s.at
		}
	}
	if _, ok := d.early[id]; !ok && len(d.early) >= earlyMax {
		delete(d.early, oldest)
	}
	s := d.early[id]
	if s.at.IsZero() {
		s.at = now
	}
	note(&s)
	d.early[id] = s
}

// Desktop is the app's notifier: the actionable DBus notifier when the
// session's notification server offers actions, beeep otherwise. It looks
// for the server at the first notification and again at most every
// RetryEvery while it has none (a desktop's daemon may start after the
// app, or be activated on demand), and falls back to beeep when a D-Bus
// call fails.
type Desktop struct {
	appName, icon string
	onAction      func(key string)
	log           *slog.Logger
	beeep         *Beeep
	// RetryEvery bounds how often a missing server is looked for again.
	RetryEvery time.Duration

	mu      sync.Mutex
	d       *DBus
	tried   time.Time
	lastErr error
}

// NewDesktop returns the app's notifier; onAction gets the key of a
// clicked notification.
func NewDesktop(appName, icon string, onAction func(key string), log *slog.Logger) *Desktop {
	if log == nil {
		log = slog.Default()
	}
	return &Desktop{appName: appName, icon: icon, onAction: onAction, log: log,
		beeep: NewBeeep(appName, icon), RetryEvery: 5 * time.Second}
}

// Actionable reports whether notifications go out with a default action
// (it looks for the server when it may).
func (x *Desktop) Actionable() bool { return x.dbus() != nil }

func (x *Desktop) dbus() *DBus {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.d != nil || (!x.tried.IsZero() && time.Since(x.tried) < x.RetryEvery) {
		return x.d
	}
	x.tried = time.Now()
	d, err := NewDBus(x.appName, x.icon, x.onAction, x.log)
	if err != nil {
		if x.lastErr == nil || x.lastErr.Error() != err.Error() {
			x.log.Info("desktop notifications without actions (beeep)", "why", err)
		}
		x.lastErr = err
		return nil
	}
	x.d = d
	return d
}

// Notify implements Notifier.
func (x *Desktop) Notify(ctx context.Context, n Notification) error {
	if d := x.dbus(); d != nil {
		err := d.Notify(ctx, n)
		if err == nil {
			return nil
		}
		x.log.Warn("actionable notification failed; using beeep", "err", err)
		x.mu.Lock()
		if x.d == d {
			x.d = nil
			_ = d.Close()
		}
		x.mu.Unlock()
	}
	return x.beeep.Notify(ctx, n)
}

// Withdraw implements Withdrawer (a no-op without the D-Bus server).
func (x *Desktop) Withdraw(ctx context.Context, key string) error {
	x.mu.Lock()
	d := x.d
	x.mu.Unlock()
	if d == nil {
		return nil
	}
	return d.Withdraw(ctx, key)
}

// Package notifytest is a fake org.freedesktop.Notifications server for
// tests: it owns the name on the session bus (run the test under
// dbus-run-session), records every Notify and CloseNotification, and
// "clicks" a notification by emitting ActionInvoked.
package notifytest

import (
	"fmt"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	name  = "org.freedesktop.Notifications"
	path  = dbus.ObjectPath("/org/freedesktop/Notifications")
	iface = "org.freedesktop.Notifications"
)

// Shown is one Notify call as the server received it.
type Shown struct {
	ID         uint32
	ReplacesID uint32
	AppName    string
	Summary    string
	Body       string
	Actions    []string
}

// Server is the fake notification daemon.
type Server struct {
	conn *dbus.Conn
	caps []string

	mu     sync.Mutex
	next   uint32
	open   map[uint32]bool
	shown  []Shown
	closed []uint32
	// early: the next Notify is clicked before its reply, which is held this long.
	early *time.Duration
	// Events receives one value per Notify or CloseNotification.
	Events chan string
}

// Start owns org.freedesktop.Notifications on the session bus; caps are
// the capabilities it announces ("actions" for clickable ones).
func Start(caps ...string) (*Server, error) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, fmt.Errorf("notifytest: session bus: %w", err)
	}
	s := &Server{conn: conn, caps: caps, open: map[uint32]bool{}, Events: make(chan string, 64)}
	if err := conn.Export(s, path, iface); err != nil {
		conn.Close()
		return nil, fmt.Errorf("notifytest: export: %w", err)
	}
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		conn.Close()
		return nil, fmt.Errorf("notifytest: own %s: %v %v", name, reply, err)
	}
	return s, nil
}

// Done is closed when the server's bus connection ends (the bus went away).
func (s *Server) Done() <-chan struct{} { return s.conn.Context().Done() }

// Close releases the name and the connection.
func (s *Server) Close() error { return s.conn.Close() }

// Notify implements the D-Bus method.
func (s *Server) Notify(appName string, replacesID uint32, appIcon, summary, body string,
	actions []string, hints map[string]dbus.Variant, expireTimeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	id := replacesID
	if id == 0 || !s.open[id] {
		s.next++
		id = s.next
	}
	s.open[id] = true
	s.shown = append(s.shown, Shown{ID: id, ReplacesID: replacesID, AppName: appName, Summary: summary, Body: body, Actions: actions})
	early := s.early
	s.early = nil
	s.mu.Unlock()
	s.event(fmt.Sprintf("notify %d", id))
	if early != nil {
		if err := s.Click(id); err != nil {
			return 0, dbus.MakeFailedError(err)
		}
		time.Sleep(*early)
	}
	return id, nil
}

// ClickBeforeReply makes the next Notify click its notification (ActionInvoked,
// then NotificationClosed) before replying, and hold the reply for hold: the
// app reads the click before it knows the notification's id.
func (s *Server) ClickBeforeReply(hold time.Duration) {
	s.mu.Lock()
	s.early = &hold
	s.mu.Unlock()
}

// GetCapabilities implements the D-Bus method.
func (s *Server) GetCapabilities() ([]string, *dbus.Error) { return s.caps, nil }

// GetServerInformation implements the D-Bus method.
func (s *Server) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "notifytest", "jean-claude", "1", "1.2", nil
}

// CloseNotification implements the D-Bus method: it records the call and
// emits NotificationClosed (reason 3, closed by a call).
func (s *Server) CloseNotification(id uint32) *dbus.Error {
	s.mu.Lock()
	s.closed = append(s.closed, id)
	delete(s.open, id)
	s.mu.Unlock()
	_ = s.conn.Emit(path, iface+".NotificationClosed", id, uint32(3))
	s.event(fmt.Sprintf("close %d", id))
	return nil
}

// Click emits ActionInvoked for the notification's default action, then
// closes it (reason 2, dismissed by the user), as a desktop does.
func (s *Server) Click(id uint32) error {
	if err := s.conn.Emit(path, iface+".ActionInvoked", id, "default"); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.open, id)
	s.mu.Unlock()
	return s.conn.Emit(path, iface+".NotificationClosed", id, uint32(2))
}

// Shown returns every Notify received, in order.
func (s *Server) Shown() []Shown {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Shown(nil), s.shown...)
}

// Closed returns the ids CloseNotification was called with.
func (s *Server) Closed() []uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]uint32(nil), s.closed...)
}

func (s *Server) event(e string) {
	select {
	case s.Events <- e:
	default: // nobody reads: drop
	}
}

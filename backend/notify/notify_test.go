package notify

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// fakeNotifications is an org.freedesktop.Notifications server.
type fakeNotifications struct {
	got chan [2]string
}

func (f *fakeNotifications) Notify(appName string, replacesID uint32, appIcon, summary, body string,
	actions []string, hints map[string]dbus.Variant, expireTimeout int32) (uint32, *dbus.Error) {
	f.got <- [2]string{summary, body}
	return 7, nil
}

func (f *fakeNotifications) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (f *fakeNotifications) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "fake", "jean-claude", "1", "1.2", nil
}

func (f *fakeNotifications) CloseNotification(id uint32) *dbus.Error { return nil }

const dbusChildEnv = "JEAN_CLAUDE_NOTIFY_DBUS_CHILD"

// TestBeeepOverDBus sends a notification through the real beeep D-Bus path to
// a fake notification daemon on a private session bus. The test re-runs
// itself under dbus-run-session so it never talks to the user's own bus.
func TestBeeepOverDBus(t *testing.T) {
	if os.Getenv(dbusChildEnv) == "" {
		runner, err := exec.LookPath("dbus-run-session")
		if err != nil {
			t.Skip("dbus-run-session not installed (install dbus: make deps); cannot run a private session bus")
		}
		cmd := exec.Command(runner, "--", os.Args[0], "-test.run=^TestBeeepOverDBus$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), dbusChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("child under dbus-run-session:\n%s", out)
		if err != nil {
			t.Fatalf("child failed: %v", err)
		}
		if !strings.Contains(string(out), "--- PASS: TestBeeepOverDBus") {
			t.Fatalf("child did not pass the D-Bus test")
		}
		return
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Fatal("child started without a session bus")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connect private session bus: %v", err)
	}
	defer conn.Close()
	srv := &fakeNotifications{got: make(chan [2]string, 4)}
	if err := conn.Export(srv, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: reply %v, %v", reply, err)
	}

	a := NewAsync(NewBeeep("Jean-Claude", ""), 4, nil)
	defer a.Close(context.Background())
	want := [2]string{"my-project · Fix the bug", "Bash wants to run: npm test"}
	if err := a.Notify(context.Background(), Notification{Kind: KindPermission, Title: want[0], Body: want[1]}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-srv.got:
		if got != want {
			t.Fatalf("received %q, want %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notification received over D-Bus")
	}
}

// blockingNotifier blocks until released.
type blockingNotifier struct {
	release chan struct{}
	mu      sync.Mutex
	got     []Notification
}

func (b *blockingNotifier) Notify(ctx context.Context, n Notification) error {
	select {
	case <-b.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	b.mu.Lock()
	b.got = append(b.got, n)
	b.mu.Unlock()
	return nil
}

func TestAsyncNeverBlocksAndDropsWhenFull(t *testing.T) {
	inner := &blockingNotifier{release: make(chan struct{})}
	a := NewAsync(inner, 2, nil)
	var dropped int
	for i := range 10 {
		done := make(chan error, 1)
		go func() {
			done <- a.Notify(context.Background(), Notification{Kind: KindComplete, Title: string(rune('a' + i))})
		}()
		select {
		case err := <-done:
			if errors.Is(err, ErrQueueFull) {
				dropped++
			} else if err != nil {
				t.Fatal(err)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("Notify blocked")
		}
	}
	// One in flight (blocked in inner) + 2 queued; the rest dropped.
	if dropped < 7 || dropped > 8 {
		t.Fatalf("dropped %d of 10, want 7 or 8", dropped)
	}
	close(inner.release)
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(inner.got); got != 10-dropped {
		t.Fatalf("delivered %d, want %d", got, 10-dropped)
	}
	if err := a.Notify(context.Background(), Notification{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Notify after Close = %v, want ErrClosed", err)
	}
}

func TestAsyncCloseGivesUpOnAStuckNotifier(t *testing.T) {
	stuck := NotifierFunc(func(context.Context, Notification) error { select {} })
	a := NewAsync(stuck, 2, nil)
	_ = a.Notify(context.Background(), Notification{Kind: KindError})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Close(ctx) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Close = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited on a stuck notifier")
	}
}

func TestEnabledUnlessTurnedOff(t *testing.T) {
	for _, c := range []struct {
		v    string
		set  bool
		want bool
	}{{"", false, true}, {"true", true, true}, {"1", true, true}, {"false", true, false}, {"0", true, false}, {"off", true, false}} {
		if got := Enabled(c.v, c.set); got != c.want {
			t.Errorf("Enabled(%q, %v) = %v, want %v", c.v, c.set, got, c.want)
		}
	}
}

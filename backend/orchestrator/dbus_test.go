package orchestrator

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/store"
)

// notificationServer is a fake org.freedesktop.Notifications daemon.
type notificationServer struct{ got chan [2]string }

func (s *notificationServer) Notify(appName string, replacesID uint32, appIcon, summary, body string,
	actions []string, hints map[string]dbus.Variant, expireTimeout int32) (uint32, *dbus.Error) {
	s.got <- [2]string{summary, body}
	return 1, nil
}

func (s *notificationServer) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (s *notificationServer) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "fake", "jean-claude", "1", "1.2", nil
}

func (s *notificationServer) CloseNotification(uint32) *dbus.Error { return nil }

const dbusChildEnv = "JEAN_CLAUDE_ORCH_DBUS_CHILD"

// TestNotificationOverDBus runs a task whose agent asks for a permission and
// then finishes, with the app window unfocused, and checks the desktop
// notifications arrive over D-Bus (the real beeep path) at a fake
// notification daemon on a private session bus. It re-runs itself under
// dbus-run-session.
func TestNotificationOverDBus(t *testing.T) {
	if os.Getenv(dbusChildEnv) == "" {
		runner, err := exec.LookPath("dbus-run-session")
		if err != nil {
			t.Skip("dbus-run-session not installed (install dbus: make deps); cannot run a private session bus")
		}
		cmd := exec.Command(runner, "--", os.Args[0], "-test.run=^TestNotificationOverDBus$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), dbusChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("under dbus-run-session:\n%s", out)
		if err != nil || !strings.Contains(string(out), "--- PASS: TestNotificationOverDBus") {
			t.Fatalf("child failed: %v", err)
		}
		return
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	srv := &notificationServer{got: make(chan [2]string, 8)}
	if err := conn.Export(srv, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own the name: %v %v", reply, err)
	}
	n := notify.NewAsync(notify.NewBeeep("Jean-Claude", ""), 8, nil)
	defer n.Close(context.Background())
	h := newHarness(t, Options{Notifier: n})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "run the tests")
	h.o.SetWindowFocused(false)
	if err := h.o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s := h.be.next(t)
	s.send(permEv("r1", "Bash", "npm test"))
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	if err := h.o.RespondToPermission(ctx, "t1", "r1", PermissionAnswer{Behavior: agent.Allow}); err != nil {
		t.Fatal(err)
	}
	s.send(completeEv("All 12 tests pass.\nDetails follow."))
	want := [][2]string{
		{"my-project · Task t1", "Waiting for you: Bash wants to run: npm test"},
		{"my-project · Task t1", "Done: All 12 tests pass."},
	}
	for _, w := range want {
		select {
		case got := <-srv.got:
			if got != w {
				t.Fatalf("notification %q, want %q", got, w)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no notification %q over D-Bus", w)
		}
	}
}

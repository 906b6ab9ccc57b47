package notify_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/notify/notifytest"
)

func waitEvent(t *testing.T, s *notifytest.Server, want string) {
	t.Helper()
	select {
	case got := <-s.Events:
		if got != want {
			t.Fatalf("server saw %q, want %q", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("server never saw %q", want)
	}
}

// TestDBusActions: one notification per key with a default action; the
// same key replaces it, a click reports the key, Withdraw closes it.
func TestDBusActions(t *testing.T) {
	if !notifytest.InSession(t, "TestDBusActions") {
		return
	}
	srv, err := notifytest.Start("actions", "body")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	clicked := make(chan string, 4)
	d, err := notify.NewDBus("Jean-Claude", "", func(key string) { clicked <- key }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	k1, k2 := notify.RequestKey("t1", "r1"), notify.ResultKey("t2", true)
	must(t, d.Notify(ctx, notify.Notification{Key: k1, Title: "p · t1", Body: "Waiting for you: Bash wants to run: ls"}))
	waitEvent(t, srv, "notify 1")
	must(t, d.Notify(ctx, notify.Notification{Key: k2, Title: "p · t2", Body: "Failed: boom"}))
	waitEvent(t, srv, "notify 2")
	must(t, d.Notify(ctx, notify.Notification{Key: k1, Title: "p · t1", Body: "Waiting for you: again"}))
	waitEvent(t, srv, "notify 1")
	shown := srv.Shown()
	if len(shown) != 3 || shown[2].ReplacesID != 1 || shown[1].ReplacesID != 0 {
		t.Fatalf("replaces_id not used per key: %+v", shown)
	}
	if !slices.Equal(shown[0].Actions, []string{"default", "Open"}) || shown[0].AppName != "Jean-Claude" {
		t.Fatalf("notification without a default action: %+v", shown[0])
	}
	must(t, srv.Click(2))
	select {
	case got := <-clicked:
		if got != k2 {
			t.Fatalf("click opened %q, want %q", got, k2)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ActionInvoked never reached the app")
	}
	must(t, d.Withdraw(ctx, k1))
	waitEvent(t, srv, "close 1")
	// Clicked (closed by the server) and withdrawn: nothing left to close.
	time.Sleep(100 * time.Millisecond)
	must(t, d.Withdraw(ctx, k2))
	if c := srv.Closed(); !slices.Equal(c, []uint32{1}) {
		t.Fatalf("closed %v, want [1]", c)
	}
}

// TestDBusClickBeforeReply: the server signals the click (and the close)
// before the reply to Notify is read; the click still opens the item, and
// the closed notification is not kept (nothing to withdraw).
func TestDBusClickBeforeReply(t *testing.T) {
	if !notifytest.InSession(t, "TestDBusClickBeforeReply") {
		return
	}
	srv, err := notifytest.Start("actions", "body")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	clicked := make(chan string, 4)
	d, err := notify.NewDBus("Jean-Claude", "", func(key string) { clicked <- key }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	k := notify.RequestKey("t1", "r1")
	srv.ClickBeforeReply(300 * time.Millisecond)
	must(t, d.Notify(ctx, notify.Notification{Key: k, Title: "p · t1", Body: "Waiting for you"}))
	waitEvent(t, srv, "notify 1")
	select {
	case got := <-clicked:
		if got != k {
			t.Fatalf("early click opened %q, want %q", got, k)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a click read before the Notify reply was lost")
	}
	must(t, d.Withdraw(ctx, k))
	if c := srv.Closed(); len(c) != 0 {
		t.Fatalf("withdrew a notification the server had closed: %v", c)
	}
	// Later notifications are matched as before.
	k2 := notify.ResultKey("t2", false)
	must(t, d.Notify(ctx, notify.Notification{Key: k2, Title: "p · t2", Body: "Done"}))
	waitEvent(t, srv, "notify 2")
	must(t, srv.Click(2))
	select {
	case got := <-clicked:
		if got != k2 {
			t.Fatalf("click opened %q, want %q", got, k2)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ActionInvoked never reached the app")
	}
}

// TestDBusWithoutActions: a server without "actions" is refused, and
// Desktop falls back to beeep (a notification without actions).
func TestDBusWithoutActions(t *testing.T) {
	if !notifytest.InSession(t, "TestDBusWithoutActions") {
		return
	}
	srv, err := notifytest.Start("body")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := notify.NewDBus("Jean-Claude", "", nil, nil); !errors.Is(err, notify.ErrNoActions) {
		t.Fatalf("NewDBus = %v, want ErrNoActions", err)
	}
	d := notify.NewDesktop("Jean-Claude", "", nil, nil)
	if d.Actionable() {
		t.Fatal("Desktop says actionable without the actions capability")
	}
	must(t, d.Notify(context.Background(), notify.Notification{Key: "k", Title: "t", Body: "b"}))
	waitEvent(t, srv, "notify 1")
	if s := srv.Shown(); len(s) != 1 || len(s[0].Actions) != 0 {
		t.Fatalf("the beeep fallback sent %+v", s)
	}
	must(t, d.Withdraw(context.Background(), "k")) // nothing to withdraw
}

// TestDesktopFindsLateServer: no server when the app starts; once one
// appears (after RetryEvery) notifications get their actions.
func TestDesktopFindsLateServer(t *testing.T) {
	if !notifytest.InSession(t, "TestDesktopFindsLateServer") {
		return
	}
	d := notify.NewDesktop("Jean-Claude", "", nil, nil)
	d.RetryEvery = 50 * time.Millisecond
	if d.Actionable() {
		t.Fatal("actionable without a server")
	}
	srv, err := notifytest.Start("actions", "body")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	time.Sleep(60 * time.Millisecond)
	if !d.Actionable() {
		t.Fatal("the server that appeared later was not found")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

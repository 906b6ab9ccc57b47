package inbox_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/inbox"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/notify/notifytest"
	"github.com/jean-claude/jean-claude/backend/store"
)

// TestNotificationOpensItem: under a private session bus with a fake
// notification server that has actions, a permission's notification is
// clicked and the app is asked to open exactly that item (the key and its
// task, as App.openInboxItem sends "inbox:open"); answering the permission
// in the app withdraws the notification (CloseNotification).
func TestNotificationOpensItem(t *testing.T) {
	if !notifytest.InSession(t, "TestNotificationOpensItem") {
		return
	}
	srv, err := notifytest.Start("actions", "body")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	f := newFixture(t)
	opened := make(chan inbox.OpenRequest, 2)
	n := notify.NewDesktop("Jean-Claude", "", func(key string) {
		opened <- inbox.OpenRequest{Key: key, TaskID: inbox.TaskOfKey(key)}
	}, nil)
	if !n.Actionable() {
		t.Fatal("the fake server's actions were not found")
	}
	async := notify.NewAsync(n, 8, nil)
	defer async.Close(context.Background())
	rec := &recorder{ch: make(chan struct{}, 8)}
	w := &inbox.Watcher{DB: f.db, Out: rec, Withdraw: async, Delay: time.Millisecond}
	w.Refresh()
	<-rec.ch
	items := load(t, f.db)
	for _, it := range items[:2] { // the result and the permission
		if err := async.Notify(context.Background(), notify.Notification{Key: it.Key, TaskID: it.TaskID, Title: it.ProjectName, Body: it.Summary}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, srv, "notify 1")
	waitFor(t, srv, "notify 2")
	// The server answered; give the notifier the moment it takes to record
	// the id it got before the click comes (a person is never that fast).
	time.Sleep(200 * time.Millisecond)
	if err := srv.Click(2); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-opened:
		if got.Key != "request:perm:r1" || got.TaskID != "perm" {
			t.Fatalf("opened %+v, want the permission of task perm", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("clicking the notification opened nothing")
	}
	// The result is read in the app: its notification is withdrawn.
	if err := store.SetTaskUnread(context.Background(), f.db.W, "done", false, 500); err != nil {
		t.Fatal(err)
	}
	w.Touch("task:updated")
	waitFor(t, srv, "close 1")
	if c := srv.Closed(); !slices.Equal(c, []uint32{1}) {
		t.Fatalf("closed %v", c)
	}
}

func waitFor(t *testing.T, s *notifytest.Server, want string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case got := <-s.Events:
			if got == want {
				return
			}
		case <-deadline:
			t.Fatalf("server never saw %q", want)
		}
	}
}

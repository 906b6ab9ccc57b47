// Command fakenotifyd is a fake desktop notification daemon for end-to-end
// tests: it owns org.freedesktop.Notifications on the session bus (run it
// under dbus-run-session, or let the bus activate it through a .service
// file), announces the "actions" capability, appends every notification to
// DIR/shown.jsonl and every CloseNotification to DIR/closed.jsonl, and
// "clicks" notification N when a file DIR/click holding N appears.
//
//	fakenotifyd -dir DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/notify/notifytest"
)

func main() {
	dir := flag.String("dir", "", "directory for shown.jsonl, closed.jsonl and click")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "fakenotifyd: -dir is required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "fakenotifyd:", err)
		os.Exit(1)
	}
	srv, err := notifytest.Start("actions", "body")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakenotifyd:", err)
		os.Exit(1)
	}
	defer srv.Close()
	go record(srv, *dir)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-srv.Done(): // the bus is gone: so is the session
			return
		case <-tick.C:
			click(srv, *dir)
		}
	}
}

// record appends what the server saw, as it sees it.
func record(srv *notifytest.Server, dir string) {
	shown, closed := 0, 0
	for range srv.Events {
		for _, s := range srv.Shown()[shown:] {
			appendJSON(filepath.Join(dir, "shown.jsonl"), s)
			shown++
		}
		for _, id := range srv.Closed()[closed:] {
			appendJSON(filepath.Join(dir, "closed.jsonl"), map[string]uint32{"id": id})
			closed++
		}
	}
}

func click(srv *notifytest.Server, dir string) {
	path := filepath.Join(dir, "click")
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	_ = os.Remove(path)
	id, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakenotifyd: click:", err)
		return
	}
	if err := srv.Click(uint32(id)); err != nil {
		fmt.Fprintln(os.Stderr, "fakenotifyd: click:", err)
	}
}

func appendJSON(path string, v any) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakenotifyd:", err)
		return
	}
	defer f.Close()
	b, _ := json.Marshal(v)
	_, _ = f.Write(append(b, '\n'))
}

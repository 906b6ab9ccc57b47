// Command fakeopencode stands in for the `opencode` binary in the lifecycle
// tests: `fakeopencode serve --hostname 127.0.0.1 --port P` serves the
// fakeoc server (replaying $FAKE_OC_SCRIPT when prompted), requires
// $OPENCODE_SERVER_PASSWORD and OPENCODE_ENABLE_QUESTION_TOOL=1, and starts one child process in its process
// group (both pids are appended to $FAKE_OC_PIDFILE) so tests can check that
// nothing outlives the server; $FAKE_OC_LOG gets each request's method and path. $FAKE_OC_SLOW delays its listening.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent/opencode/internal/fakeoc"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		time.Sleep(time.Hour)
		return
	}
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: fakeopencode serve --hostname H --port P")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	host := fs.String("hostname", "", "")
	port := fs.Int("port", 0, "")
	_ = fs.Parse(os.Args[2:])
	if *host != "127.0.0.1" {
		fmt.Fprintln(os.Stderr, "refusing a non-loopback hostname:", *host)
		os.Exit(2)
	}
	if os.Getenv("OPENCODE_ENABLE_QUESTION_TOOL") != "1" {
		fmt.Fprintln(os.Stderr, "the question tool is not enabled")
		os.Exit(3)
	}
	pw := os.Getenv("OPENCODE_SERVER_PASSWORD")
	if pw == "" {
		fmt.Fprintln(os.Stderr, "no OPENCODE_SERVER_PASSWORD")
		os.Exit(3)
	}
	var script fakeoc.Script
	if p := os.Getenv("FAKE_OC_SCRIPT"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		script = fakeoc.ScriptFrom(data, nil)
	}
	child := exec.Command(os.Args[0], "child")
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if p := os.Getenv("FAKE_OC_PIDFILE"); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d %d\n", os.Getpid(), child.Process.Pid)
			f.Close()
		}
	}
	if d, err := time.ParseDuration(os.Getenv("FAKE_OC_SLOW")); err == nil {
		time.Sleep(d) // a server slow to come up
	}
	l, err := net.Listen("tcp", fmt.Sprintf("%s:%d", *host, *port))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("opencode server listening on http://%s\n", l.Addr())
	f := fakeoc.New(script, pw)
	f.FrameDelay = 200 * time.Microsecond
	fmt.Fprintln(os.Stderr, http.Serve(l, logRequests(f)))
	os.Exit(1)
}

// logRequests appends "METHOD PATH" of every request to $FAKE_OC_LOG.
func logRequests(h http.Handler) http.Handler {
	p := os.Getenv("FAKE_OC_LOG")
	if p == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s %s\n", r.Method, r.URL.Path)
			f.Close()
		}
		h.ServeHTTP(w, r)
	})
}

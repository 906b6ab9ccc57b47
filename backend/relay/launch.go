package relay

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// NewID returns a short random relay id and a token.
func NewID() (id, token string) {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b[:6]), hex.EncodeToString(b[6:])
}

// Launch starts `exe relay` for spec in its own session (setsid: no
// terminal, its own process group, it outlives the app), hands it spec on
// stdin, and returns its meta once its socket listens. The relay's own
// messages go to <id>.log next to its socket. The app reaps the relay if
// it ends first; otherwise the relay is re-parented when the app exits.
func Launch(ctx context.Context, exe string, spec Spec) (Meta, error) {
	spec.defaults()
	if err := spec.check(); err != nil {
		return Meta{}, err
	}
	if err := os.MkdirAll(spec.Dir, 0o700); err != nil {
		return Meta{}, fmt.Errorf("relay: %w", err)
	}
	in, err := json.Marshal(spec)
	if err != nil {
		return Meta{}, err
	}
	logf, err := os.OpenFile(logPath(spec.Dir, spec.ID), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return Meta{}, fmt.Errorf("relay: log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(exe, "relay")
	cmd.Stdin = strings.NewReader(string(in))
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Meta{}, fmt.Errorf("relay: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return Meta{}, fmt.Errorf("relay: start %s: %w", exe, err)
	}
	type ready struct {
		m   Meta
		err error
	}
	got := make(chan ready, 1)
	go func() {
		line, err := bufio.NewReader(out).ReadBytes('\n')
		var m Meta
		if err == nil {
			err = json.Unmarshal(line, &m)
		}
		got <- ready{m, err}
		_, _ = io.Copy(io.Discard, out)
	}()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }() // reap it if it ends while the app runs
	select {
	case r := <-got:
		if r.err != nil {
			// It may have started its agent before its ready line went
			// wrong: end it as a cancelled start does, and wait, so that
			// the log read below holds its last words.
			endRelay(cmd, exited, spec.WaitDelay+2*time.Second)
			b, _ := os.ReadFile(logPath(spec.Dir, spec.ID))
			_ = os.Remove(logPath(spec.Dir, spec.ID)) // its only content is in the error
			return Meta{}, fmt.Errorf("relay: did not start: %w: %s", r.err, strings.TrimSpace(string(b)))
		}
		return r.m, nil
	case <-ctx.Done():
		go endRelay(cmd, exited, spec.WaitDelay+2*time.Second)
		return Meta{}, fmt.Errorf("relay: start: %w", ctx.Err())
	}
}

// endRelay ends a relay whose start was given up: SIGTERM, which makes it
// end its agent if it started one already (Serve's stop), then SIGKILL if it
// is still there after wait. A SIGKILL at once would leave such an agent
// running with nobody to end it (TestLaunchCancelledEndsAgent).
func endRelay(cmd *exec.Cmd, exited <-chan struct{}, wait time.Duration) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(wait):
		_ = cmd.Process.Kill()
	}
}

// Main runs the `relay` subcommand: `relay` (spec as JSON on stdin; prints
// its meta as one JSON line once ready) or `relay dial SOCKET` (bridges
// stdio to a relay socket, for ssh). It returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) >= 1 && args[0] == "dial" {
		if len(args) != 2 {
			fmt.Fprintln(stderr, "usage: jean-claude relay dial SOCKET")
			return 2
		}
		if err := DialStdio(args[1], stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "jean-claude relay dial: %v\n", err)
			return 1
		}
		return 0
	}
	if len(args) == 1 && args[0] == "freeport" {
		// A loopback port free now (a server on a host, docs/remote.md).
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintf(stderr, "jean-claude relay freeport: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, l.Addr().(*net.TCPAddr).Port)
		_ = l.Close()
		return 0
	}
	if len(args) > 0 {
		fmt.Fprintln(stderr, "usage: jean-claude relay  (spec as JSON on stdin) | jean-claude relay dial SOCKET | jean-claude relay freeport")
		return 2
	}
	var spec Spec
	if err := json.NewDecoder(stdin).Decode(&spec); err != nil {
		fmt.Fprintf(stderr, "jean-claude relay: spec: %v\n", err)
		return 2
	}
	// No terminal, no app: a hang-up or a closed pipe must not end the agent.
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE, syscall.SIGINT)
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer cancel()
	err := Serve(ctx, spec, func(m Meta) {
		b, _ := json.Marshal(m)
		fmt.Fprintf(stdout, "%s\n", b)
	})
	if err != nil {
		fmt.Fprintf(stderr, "jean-claude relay: %v\n", err)
		return 1
	}
	return 0
}

// DialStdio copies between stdio and the relay socket until either ends.
func DialStdio(socket string, stdin io.Reader, stdout io.Writer) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	defer conn.Close()
	done := make(chan error, 2)
	go func() {
		_, err := io.Copy(conn, stdin)
		if uc, ok := conn.(*net.UnixConn); ok {
			_ = uc.CloseWrite()
		}
		done <- err
	}()
	go func() {
		_, err := io.Copy(stdout, conn)
		done <- err
	}()
	return <-done
}

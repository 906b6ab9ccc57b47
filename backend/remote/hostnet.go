package remote

// A server on a host (OpenCode's `opencode serve`, docs/remote.md): it
// runs there behind a relay like an agent, listening on the host's
// loopback, and the app reaches it through the host's ssh connection with
// one `ssh -W 127.0.0.1:PORT` stdio forward per TCP connection,
// multiplexed over the master. Nothing listens on this machine for it.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

var _ agent.HostNet = (*Transport)(nil)

// HostKey implements agent.HostNet: the host's name.
func (t *Transport) HostKey() string { return t.C.Host() }

// FreePort implements agent.HostNet: the deployed binary asks the host's
// kernel for a free loopback port (`relay freeport`).
func (t *Transport) FreePort(ctx context.Context) (int, error) {
	d, err := t.deploy(ctx)
	if err != nil {
		return 0, err
	}
	out, err := t.C.Output(ctx, d.Path, "relay", "freeport")
	if err != nil {
		return 0, fmt.Errorf("remote: free port on %s: %w", t.C.host, err)
	}
	p, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || p <= 0 || p > 65535 {
		return 0, fmt.Errorf("remote: free port on %s: %q", t.C.host, out)
	}
	return p, nil
}

var _ agent.HostRelays = (*Transport)(nil)

// AdoptRelay implements agent.HostRelays: the relay id among those listed
// on the host, attached from its first frame (a server's: what it wrote
// while the app was away is its log, not the task's data).
func (t *Transport) AdoptRelay(ctx context.Context, id string) (agent.Remote, bool, error) {
	d, err := t.deploy(ctx)
	if err != nil {
		return nil, false, Explain(err)
	}
	metas, err := t.C.ListRelays(ctx, RelayDir(d))
	if err != nil {
		return nil, false, Explain(err)
	}
	for _, m := range metas {
		if m.ID != id {
			continue
		}
		p := &proc{t: t, bin: d.Path, meta: m, taskID: m.TaskID}
		if err := p.attach(ctx); err != nil {
			if errors.Is(err, ErrUnreachable) || errors.Is(err, ErrPoolClosed) || ctx.Err() != nil {
				return nil, false, Explain(err)
			}
			return nil, false, nil // the host answers, its relay does not: gone
		}
		return p, true, nil
	}
	return nil, false, nil
}

// DialHost implements agent.HostNet.
func (t *Transport) DialHost(ctx context.Context, port int) (net.Conn, error) {
	return t.C.DialTCP(ctx, port)
}

// DialTCP opens a connection to 127.0.0.1:port on the host: `ssh -W` over
// the master, its stdin and stdout one end of a socket pair whose other
// end is the returned connection (deadlines work as on any socket).
// Closing it ends the ssh process.
func (c *Client) DialTCP(ctx context.Context, port int) (net.Conn, error) {
	if port <= 0 || port > 65535 {
		return nil, fmt.Errorf("remote: port %d", port)
	}
	_ = c.ensureMaster(ctx) // when it cannot start, ssh says why
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("remote: socket pair: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "conn"), os.NewFile(uintptr(fds[1]), "ssh -W")
	defer theirs.Close()
	args := append(c.baseArgs(), "-o", "ControlMaster=no", "-W", "127.0.0.1:"+strconv.Itoa(port), "--", c.host)
	cmd := exec.Command(c.pool.bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, ended by Close
	cmd.Stdin, cmd.Stdout = theirs, theirs
	if err := cmd.Start(); err != nil {
		ours.Close()
		return nil, fmt.Errorf("remote: forward to %s: %w", c.host, err)
	}
	conn, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
		return nil, err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	return &forwardConn{Conn: conn, pid: cmd.Process.Pid, done: done}, nil
}

// forwardConn is one `ssh -W` connection.
type forwardConn struct {
	net.Conn
	pid  int
	done chan struct{}
	once sync.Once
}

// Close closes the socket (ssh sees EOF and ends) and makes sure the ssh
// process is gone soon after.
func (f *forwardConn) Close() error {
	err := f.Conn.Close()
	f.once.Do(func() {
		go func() {
			select {
			case <-f.done:
			case <-time.After(2 * time.Second):
				_ = syscall.Kill(-f.pid, syscall.SIGTERM)
			}
		}()
	})
	return err
}

package remote

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ensureMaster starts the host's master connection when none runs: `ssh
// -M -N` as the app's own child (its own process group, and on Linux it
// gets SIGTERM when the app dies, even by kill -9), so no connection
// outlives the app. Commands then multiplex over its ControlPath socket.
func (c *Client) ensureMaster(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.master != nil {
		select {
		case <-c.done:
			c.master, c.done = nil, nil // it ended (network drop, killed)
			c.removeSocket(ctx)
		default:
			return nil
		}
	}
	args := append(c.baseArgs(), "-M", "-N", "-o", "ControlPersist=no", "--", c.host)
	cmd := exec.Command(c.pool.bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = masterAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("remote: %s: %w", c.host, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	if err := c.waitReady(ctx, done); err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return fmt.Errorf("%w: %s: %v %s", ErrUnreachable, c.host, err, strings.TrimSpace(stderr.String()))
	}
	c.master, c.done = cmd, done
	return nil
}

// removeSocket removes the socket a master killed by SIGKILL left: a new
// master would not replace it ("already exists, disabling multiplexing"),
// the ready check would take it for the new one's, and every command would
// try it first. The folder is the app's own (0700), the host's master ours.
func (c *Client) removeSocket(ctx context.Context) {
	if sock, err := c.controlPath(ctx); err == nil {
		_ = os.Remove(sock)
	}
}

// waitReady waits for the master's socket (it appears once the connection
// is authenticated), the master's end, or the connect timeout.
func (c *Client) waitReady(ctx context.Context, done chan struct{}) error {
	sock, err := c.controlPath(ctx)
	if err != nil {
		return err
	}
	deadline := time.After(c.pool.opt.ConnectTimeout + 10*time.Second)
	for {
		if st, err := os.Stat(sock); err == nil && st.Mode()&os.ModeSocket != 0 {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("master connection ended")
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("master connection not ready")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// controlPath asks ssh where %C puts this host's socket (ssh -G).
func (c *Client) controlPath(ctx context.Context) (string, error) {
	args := append(c.baseArgs(), "-G", "--", c.host)
	cmd := exec.CommandContext(ctx, c.pool.bin, args...)
	ownGroup(cmd)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("ssh -G: %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "controlpath "); ok {
			if !filepath.IsAbs(v) {
				break
			}
			return v, nil
		}
	}
	return "", fmt.Errorf("ssh -G gave no control path")
}

// Package proc holds the process helpers every agent backend shares: the
// tail of an agent's stderr kept for error messages, and signalling a whole
// process group (agents run in their own group so that nothing they start
// outlives them).
package proc

import (
	"bytes"
	"errors"
	"os/exec"
	"sync"
	"syscall"
)

// Tail is an io.Writer that keeps the last Max bytes written to it. It is
// safe for concurrent use (exec copies stderr from its own goroutine).
type Tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// NewTail returns a Tail keeping the last max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

// Write implements io.Writer; it never fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns what is kept, trimmed, as valid UTF-8 (the cut may fall
// inside a character).
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.ToValidUTF8(bytes.TrimSpace(t.buf), []byte("?")))
}

// KillGroup sends sig to cmd's process group (cmd must have been started
// with SysProcAttr.Setpgid). A group that is already gone is not an error.
func KillGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd == nil || cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

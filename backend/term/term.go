// Package term runs programs in pseudo-terminals for the app's embedded
// terminal (the agents' interactive sign-in today, a task's shell later):
// output goes out as events, keystrokes and window sizes come in, and every
// process group is killed when its terminal closes or the app exits.
package term

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/google/uuid"
)

// Events the manager emits.
const (
	EventOutput = "terminal:output"
	EventExit   = "terminal:exit"
)

// Output is a chunk of a terminal's output ([]byte crosses as base64).
// Offset is how many bytes the terminal printed before this chunk: a
// window that replayed a Snapshot ending at End skips what it already has.
type Output struct {
	ID     string `json:"id"`
	Data   []byte `json:"data"`
	Offset int64  `json:"offset"`
}

// Snapshot is a terminal's kept scrollback: its last bytes of output
// (up to Spec.Scrollback), ending at offset End.
type Snapshot struct {
	ID   string `json:"id"`
	Data []byte `json:"data"`
	End  int64  `json:"end"`
}

// Info describes an open terminal.
type Info struct {
	ID        string `json:"id"`
	Owner     string `json:"owner"`
	Title     string `json:"title"`
	Cols      int    `json:"cols"`
	Rows      int    `json:"rows"`
	StartedAt int64  `json:"startedAt"` // unix milliseconds
}

// DefaultScrollback is the output kept per terminal for replay.
const DefaultScrollback = 512 << 10

// Exit says a terminal's program ended.
type Exit struct {
	ID    string `json:"id"`
	Code  int    `json:"code"`
	Error string `json:"error,omitempty"`
}

// Spec is what to run. Path and Args come from the app (never from user
// text); Env is the whole environment.
type Spec struct {
	Path       string
	Args       []string
	Env        []string
	Dir        string
	Cols, Rows uint16
	// Owner groups terminals (e.g. "task:ID"): List and CloseOwner use it.
	Owner string
	// Title is shown on the terminal's tab.
	Title string
	// Scrollback is how much output is kept for Snapshot (0: the default;
	// negative: none).
	Scrollback int
}

// Emitter sends an event to the window.
type Emitter interface {
	Emit(name string, payload any)
}

// ErrNotFound is returned for an unknown or closed terminal.
var ErrNotFound = errors.New("term: no such terminal")

// Manager owns the running terminals.
type Manager struct {
	emit Emitter

	mu     sync.Mutex
	terms  map[string]*terminal
	closed bool
}

type terminal struct {
	cmd     *exec.Cmd
	pty     *os.File
	done    chan struct{}
	code    int
	started time.Time

	mu      sync.Mutex // guards the fields below and orders output events
	info    Info
	ring    ring
	written int64
}

// NewManager returns a manager emitting through emit.
func NewManager(emit Emitter) *Manager {
	return &Manager{emit: emit, terms: map[string]*terminal{}}
}

// Start runs s in a new pseudo-terminal, in its own session and process
// group, and returns the terminal's id.
func (m *Manager) Start(s Spec) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", errors.New("term: closed")
	}
	cmd := exec.Command(s.Path, s.Args...)
	cmd.Env, cmd.Dir = s.Env, s.Dir
	if s.Cols == 0 || s.Rows == 0 {
		s.Cols, s.Rows = 80, 24
	}
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: s.Cols, Rows: s.Rows})
	if err != nil {
		return "", fmt.Errorf("term: start %s: %w", s.Path, err)
	}
	id := "term-" + uuid.NewString()
	t := &terminal{cmd: cmd, pty: f, done: make(chan struct{}), started: time.Now(), ring: newRing(s.Scrollback),
		info: Info{ID: id, Owner: s.Owner, Title: s.Title, Cols: int(s.Cols), Rows: int(s.Rows), StartedAt: time.Now().UnixMilli()}}
	m.terms[id] = t
	go m.pump(id, t)
	return id, nil
}

// pump copies the terminal's output to events until the program ends,
// then reaps it and emits its exit.
func (m *Manager) pump(id string, t *terminal) {
	buf := make([]byte, 32*1024)
	for {
		n, err := t.pty.Read(buf)
		if n > 0 {
			t.output(m.emit, id, buf[:n])
		}
		if err != nil {
			break // io.EOF or EIO once the program and its children closed the pty
		}
	}
	err := t.cmd.Wait()
	_ = t.pty.Close()
	killGroup(t.cmd)
	ex := Exit{ID: id}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		ex.Code = ee.ExitCode()
	case err != nil:
		ex.Code, ex.Error = -1, err.Error()
	}
	t.code = ex.Code
	m.mu.Lock()
	delete(m.terms, id) // before done: a returned Close means unlisted
	m.mu.Unlock()
	close(t.done)
	m.emit.Emit(EventExit, ex)
}

func (m *Manager) get(id string) (*terminal, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.terms[id]
	if !ok {
		return nil, ErrNotFound
	}
	return t, nil
}

// Write sends keystrokes to the terminal.
func (m *Manager) Write(id string, data []byte) error {
	t, err := m.get(id)
	if err != nil {
		return err
	}
	_, err = t.pty.Write(data)
	return err
}

// Resize sets the terminal's window size.
func (m *Manager) Resize(id string, cols, rows uint16) error {
	t, err := m.get(id)
	if err != nil {
		return err
	}
	if err := pty.Setsize(t.pty, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		return err
	}
	t.mu.Lock()
	t.info.Cols, t.info.Rows = int(cols), int(rows)
	t.mu.Unlock()
	return nil
}

// Size returns terminal id's window size as the pty has it.
func (m *Manager) Size(id string) (cols, rows uint16, err error) {
	t, err := m.get(id)
	if err != nil {
		return 0, 0, err
	}
	ws, err := pty.GetsizeFull(t.pty)
	if err != nil {
		return 0, 0, err
	}
	return ws.Cols, ws.Rows, nil
}

// Snapshot returns terminal id's kept scrollback and where it ends.
func (m *Manager) Snapshot(id string) (Snapshot, error) {
	t, err := m.get(id)
	if err != nil {
		return Snapshot{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return Snapshot{ID: id, Data: t.ring.bytes(), End: t.written}, nil
}

// List returns the open terminals of owner, oldest first.
func (m *Manager) List(owner string) []Info {
	m.mu.Lock()
	var ts []*terminal
	for _, t := range m.terms {
		if t.info.Owner == owner {
			ts = append(ts, t)
		}
	}
	m.mu.Unlock()
	sort.Slice(ts, func(i, j int) bool { return ts[i].started.Before(ts[j].started) })
	out := make([]Info, 0, len(ts))
	for _, t := range ts {
		t.mu.Lock()
		out = append(out, t.info)
		t.mu.Unlock()
	}
	return out
}

// CloseOwner kills every terminal of owner (its task was deleted) and
// waits (up to ctx) until they are reaped.
func (m *Manager) CloseOwner(ctx context.Context, owner string) error {
	var errs []error
	for _, in := range m.List(owner) {
		if err := m.Close(ctx, in.ID); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Close hangs the terminal up and kills its process group, waiting (up to
// ctx) until the program is reaped.
func (m *Manager) Close(ctx context.Context, id string) error {
	t, err := m.get(id)
	if err != nil {
		return nil // already gone
	}
	_ = t.cmd.Process.Signal(syscall.SIGHUP)
	killGroup(t.cmd)
	select {
	case <-t.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait blocks until terminal id's program ended and returns its exit code.
func (m *Manager) Wait(ctx context.Context, id string) (int, error) {
	t, err := m.get(id)
	if err != nil {
		return 0, err
	}
	select {
	case <-t.done:
		return t.code, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Running returns the ids of the open terminals.
func (m *Manager) Running() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.terms))
	for id := range m.terms {
		out = append(out, id)
	}
	return out
}

// CloseAll kills every terminal (the app exits) and refuses new ones.
func (m *Manager) CloseAll(ctx context.Context) {
	m.mu.Lock()
	m.closed = true
	ids := make([]string, 0, len(m.terms))
	for id := range m.terms {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	for _, id := range ids {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_ = m.Close(cctx, id)
		cancel()
	}
}

// killGroup kills the program's whole process group (pty.Start made it a
// session leader, so its group id is its pid) and every other process of
// its session: an interactive shell puts each background job in a group
// of its own, still in the session (see session_linux.go).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	killSession(cmd.Process.Pid)
}

// output keeps p in the scrollback and emits it, in order, under t.mu
// (a Snapshot falls between two chunks, never inside one).
func (t *terminal) output(e Emitter, id string, p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ring.write(p)
	off := t.written
	t.written += int64(len(p))
	e.Emit(EventOutput, Output{ID: id, Data: append([]byte(nil), p...), Offset: off})
}

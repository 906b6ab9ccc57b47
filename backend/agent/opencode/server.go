package opencode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// server owns the one `opencode serve` process every session shares. It is
// started on first use (a free loopback port, a random basic-auth password),
// counted ready when GET /global/health answers healthy, started again on
// demand after it died (with a backoff between attempts so a crashing server
// does not spin), and stopped with its whole process group on dispose.
type server struct {
	opt Options
	hc  *http.Client
	// ctx lives as long as the backend: every server process is bound to
	// it (exec.CommandContext) and dispose cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	proc     *process
	disposed bool
	// restart backoff
	nextStart time.Time
	delay     time.Duration
}

// process is one running `opencode serve`.
type process struct {
	cmd      *exec.Cmd
	base     string
	password string
	started  time.Time
	cancel   context.CancelFunc // stops it: SIGTERM to the group, SIGKILL after WaitDelay
	done     chan struct{}      // closed when the process has exited
	tail     *proc.Tail
	waitErr  error
}

// ErrServerDisposed: the backend was disposed.
var ErrServerDisposed = errors.New("opencode: server disposed")

func newServer(opt Options) *server {
	ctx, cancel := context.WithCancel(context.Background())
	return &server{opt: opt, ctx: ctx, cancel: cancel, hc: &http.Client{Transport: &http.Transport{
		Proxy:               nil, // loopback only, never through a proxy
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
	}}}
}

// client returns a client for the running server, starting it when needed.
func (s *server) client(ctx context.Context, dir string) (*client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.disposed {
		return nil, ErrServerDisposed
	}
	if s.opt.BaseURL != "" {
		return &client{base: s.opt.BaseURL, user: s.opt.username(), password: s.opt.Password, dir: dir, hc: s.hc}, nil
	}
	if p := s.proc; p != nil {
		select {
		case <-p.done:
			s.proc = nil
		default:
			return &client{base: p.base, user: s.opt.username(), password: p.password, dir: dir, hc: s.hc}, nil
		}
	}
	if wait := time.Until(s.nextStart); wait > 0 {
		// The last server died: wait out the restart backoff (unlocked,
		// so Dispose is not held up).
		s.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			s.mu.Lock()
			return nil, ctx.Err()
		case <-t.C:
		}
		s.mu.Lock()
		if s.disposed {
			return nil, ErrServerDisposed
		}
		if s.proc != nil {
			p := s.proc
			return &client{base: p.base, user: s.opt.username(), password: p.password, dir: dir, hc: s.hc}, nil
		}
	}
	p, err := s.start(ctx)
	if err != nil {
		s.backoff()
		return nil, err
	}
	s.proc = p
	go s.watch(p)
	return &client{base: p.base, user: s.opt.username(), password: p.password, dir: dir, hc: s.hc}, nil
}

// running returns a client for the server if one runs, without starting one.
func (s *server) running(dir string) (*client, bool) {
	if s.opt.BaseURL != "" {
		return &client{base: s.opt.BaseURL, user: s.opt.username(), password: s.opt.Password, dir: dir, hc: s.hc}, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.proc
	if p == nil || s.disposed {
		return nil, false
	}
	select {
	case <-p.done:
		return nil, false
	default:
	}
	return &client{base: p.base, user: s.opt.username(), password: p.password, dir: dir, hc: s.hc}, true
}

// backoff schedules the next start attempt (1 s, 2 s, ... RestartMax).
func (s *server) backoff() {
	if s.delay == 0 {
		s.delay = s.opt.restartMin()
	} else {
		s.delay = min(s.delay*2, s.opt.restartMax())
	}
	s.nextStart = time.Now().Add(s.delay)
}

// watch notes a server's death and kills what it left in its process group.
func (s *server) watch(p *process) {
	<-p.done
	if p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == p {
		s.proc = nil
	}
	if time.Since(p.started) > time.Minute {
		s.delay = 0 // it ran fine for a while: restart at once
		s.nextStart = time.Time{}
		return
	}
	s.backoff()
}

// PID is the running server's process id, 0 when none runs.
func (s *server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.proc.cmd.Process == nil {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// start spawns `opencode serve` and waits until it is healthy. Caller holds mu.
func (s *server) start(ctx context.Context) (*process, error) {
	bin := s.opt.Binary
	if bin == "" {
		bin = "opencode"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("OpenCode not found: %w (%v); install it (npm i -g opencode-ai) or set its path", agent.ErrBinaryNotFound, err)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		p, err := s.spawn(ctx, path)
		if err == nil {
			return p, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func (s *server) spawn(ctx context.Context, path string) (*process, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("opencode: no free port: %w", err)
	}
	password := s.opt.Password
	if password == "" {
		password = randomPassword()
	}
	pctx, cancel := context.WithCancel(s.ctx)
	cmd := exec.CommandContext(pctx, path, "serve", "--hostname", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Graceful first: SIGTERM to the whole group; after WaitDelay Go
	// kills the leader, and killGroup/watch SIGKILL what is left.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 3 * time.Second
	cmd.Env = append(os.Environ(),
		"OPENCODE_SERVER_PASSWORD="+password, "OPENCODE_SERVER_USERNAME="+s.opt.username(),
		// The question tool (question.asked) is off unless asked for;
		// Jean-Claude answers questions, so turn it on (Env may override).
		"OPENCODE_ENABLE_QUESTION_TOOL=1")
	for k, v := range s.opt.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	tail := proc.NewTail(16 << 10)
	cmd.Stdout, cmd.Stderr = tail, tail
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("opencode: start %s: %w", path, err)
	}
	p := &process{cmd: cmd, base: "http://127.0.0.1:" + strconv.Itoa(port), password: password, started: time.Now(), cancel: cancel, done: make(chan struct{}), tail: tail}
	go func() {
		p.waitErr = cmd.Wait()
		cancel()
		close(p.done)
	}()
	c := &client{base: p.base, user: s.opt.username(), password: password, hc: s.hc}
	deadline := time.NewTimer(s.opt.healthTimeout())
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		hctx, cancel := context.WithTimeout(ctx, time.Second)
		_, herr := c.health(hctx)
		cancel()
		if herr == nil {
			return p, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("opencode: server exited before it was ready (%v): %s", p.waitErr, p.tail.String())
		case <-ctx.Done():
			killGroup(p)
			return nil, ctx.Err()
		case <-deadline.C:
			killGroup(p)
			return nil, fmt.Errorf("opencode: server not healthy after %s: %v: %s", s.opt.healthTimeout(), herr, p.tail.String())
		case <-tick.C:
		}
	}
}

// killGroup stops a server: its context's Cancel sends SIGTERM to the
// process group, Go kills the leader after WaitDelay, then the group gets a
// SIGKILL so no child survives.
func killGroup(p *process) {
	p.cancel()
	<-p.done
	_ = proc.KillGroup(p.cmd, syscall.SIGKILL)
}

// dispose stops the server for good.
func (s *server) dispose() {
	// Cancel first: a server still starting (client holds mu while it waits
	// for health) dies now instead of holding dispose up.
	s.cancel()
	s.mu.Lock()
	s.disposed = true
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p != nil {
		killGroup(p)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomPassword() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

package opencode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// server owns the one `opencode serve` process every session shares. It is
// started on first use (a free loopback port, a random basic-auth password),
// counted ready when GET /global/health answers healthy, started again on
// demand after it died (with a backoff between attempts so a crashing server
// does not spin), and stopped with its whole process group on dispose.
type server struct {
	opt Options
	hc  *http.Client
	// host, when set, runs the server on another host behind a relay
	// there, reached through its connection (hostserver.go).
	host agent.HostNet
	// ctx lives as long as the backend: every server process is bound to
	// it (exec.CommandContext) and dispose cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	proc     *process
	disposed bool
	looked   bool // for a server a previous app left (keep.go, hostkeep.go)
	// detached counts the sessions left running at quit ("keep"): a
	// host's server is kept only for them (hostkeep.go).
	detached atomic.Int32
	// restart backoff
	nextStart time.Time
	delay     time.Duration
}

// process is one running `opencode serve`, on the shared runtime
// (agent.Process: own process group, recorded, graceful stop).
type process struct {
	ap       *agent.Process
	base     string
	password string
	started  time.Time
	done     <-chan struct{} // closed when the process has exited and its output was read
	adopted  bool            // a previous app started it (keep.go)
	kept     atomic.Bool     // left running when the app quit with "keep"
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
	// A server a previous app left is adopted only at the app's start
	// (AdoptServer): a backend rebuilt for new settings starts its own.
	p, err := s.start(ctx)
	if err != nil {
		s.backoff()
		return nil, err
	}
	s.use(p)
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
	<-p.done // the runtime has killed what was left of its group
	if p.ap.RelayExit() != nil {
		s.forget(p) // it ended: nothing to adopt (a lost link says nothing)
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
	if s.proc == nil {
		return 0
	}
	return s.proc.ap.PID()
}

// start spawns `opencode serve` and waits until it is healthy. Caller holds mu.
func (s *server) start(ctx context.Context) (*process, error) {
	bin := s.opt.Binary
	if bin == "" {
		bin = "opencode"
	}
	path, err := s.lookPath(bin)
	if err != nil {
		return nil, err
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
	port, err := s.freePort(ctx)
	if err != nil {
		return nil, fmt.Errorf("opencode: no free port: %w", err)
	}
	password := s.opt.Password
	if password == "" {
		password = randomPassword()
	}
	env := append(os.Environ(),
		"OPENCODE_SERVER_PASSWORD="+password, "OPENCODE_SERVER_USERNAME="+s.opt.username(),
		// The question tool (question.asked) is off unless asked for;
		// Jean-Claude answers questions, so turn it on (Env may override).
		"OPENCODE_ENABLE_QUESTION_TOOL=1")
	for _, k := range slices.Sorted(maps.Keys(s.opt.Env)) {
		env = append(env, k+"="+s.opt.Env[k])
	}
	if s.host != nil {
		env = hostConfig(env)
	}
	// The server is shared: no task's (its relay is found by its role).
	ap, err := agent.StartProcess(agent.WithTaskID(ctx, ""), agent.ProcSpec{
		Name: "opencode serve", Path: path, Args: []string{"serve", "--hostname=127.0.0.1", "--port=" + strconv.Itoa(port)},
		Env: env, Role: serverRole, Recorder: s.opt.Recorder, Transport: s.transport(port, password),
	})
	if err != nil {
		return nil, fmt.Errorf("opencode: %w", err)
	}
	p := &process{ap: ap, base: "http://127.0.0.1:" + strconv.Itoa(port), password: password, started: time.Now(), done: ap.Done()}
	s.endWithBackend(p)
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
			s.record(p, port) // a host's server: its port and password, here (hostkeep.go)
			return p, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("opencode: server exited before it was ready: %v", p.ap.ExitError())
		case <-ctx.Done():
			killGroup(p)
			return nil, ctx.Err()
		case <-deadline.C:
			killGroup(p)
			return nil, fmt.Errorf("opencode: server not healthy after %s: %v: %s", s.opt.healthTimeout(), herr, p.ap.Stderr())
		case <-tick.C:
		}
	}
}

// endWithBackend stops p when the backend is disposed.
func (s *server) endWithBackend(p *process) {
	go func() {
		select {
		case <-s.ctx.Done():
			killGroup(p)
		case <-p.done:
		}
	}()
}

// killGroup stops a server: SIGTERM to its process group, SIGKILL after
// the runtime's WaitDelay, so no child survives (behind a relay, the relay
// does it). A server kept running at quit is left alone.
func killGroup(p *process) {
	if p.kept.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if p.ap.Stop(ctx, 0) == nil {
		// Behind a relay: its exit acknowledged before the app may close
		// the connection (else the relay waits for an app with its files).
		select {
		case <-p.ap.AcksDone():
		case <-time.After(5 * time.Second):
		}
	}
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
		s.forget(p) // stopped for good (a stop the host cannot get now is stored)
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

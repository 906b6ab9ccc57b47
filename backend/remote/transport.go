package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/relay"
)

// Transport runs agent processes on a host behind a relay there
// (agent.Transport): the app binary for the host's OS/arch is deployed,
// `relay` started there with the spec (env and secrets) on stdin, and the
// app talks to it through the ssh connection. A dropped connection is
// re-established with backoff inside Next, from the last frame handed
// over, so the orchestrator sees one uninterrupted stream.
type Transport struct {
	C *Client
	// Binary is the local app binary to deploy for goos/goarch (default:
	// BinaryFor with this executable and its folder).
	Binary func(goos, goarch string) (string, error)
	// Tune adjusts each relay's spec (idle times, journal limits).
	Tune func(*relay.Spec)
	// OnUnreachable / OnReachable tell the task's view ("host unreachable
	// since …"); both optional.
	OnUnreachable func(taskID string, since time.Time, err error)
	OnReachable   func(taskID string)
	// MinBackoff, MaxBackoff bound the reconnect waits (250ms, 30s).
	MinBackoff, MaxBackoff time.Duration
	// LostAfter is how many attaches in a row may fail while the host
	// answers before the relay counts as lost (default 5).
	LostAfter int
	// Stops, when set, keeps a stop asked while the host is unreachable
	// until the agent's exit arrives, across restarts (stops.go).
	Stops StopLog
}

var _ agent.Transport = (*Transport)(nil)

// localOnly are variables of this machine that must not reach the host's
// agent (the host's own HOME, PATH, ... are put in their place).
var localOnly = []string{"HOME", "PATH", "USER", "LOGNAME", "SHELL", "TMPDIR", "PWD", "OLDPWD",
	"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK", "SSH_AGENT_PID"}

// RemoteEnv is env without this machine's own variables (localOnly, XDG_*).
func RemoteEnv(env []string) []string {
	var out []string
outer:
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "XDG_") {
			continue
		}
		for _, l := range localOnly {
			if k == l {
				continue outer
			}
		}
		out = append(out, kv)
	}
	return out
}

// Start implements agent.Transport: deploy, launch the relay on the host,
// attach. The agent is looked up by name on the host's PATH (and
// ~/.local/bin, where the Hosts page installs agent CLIs).
func (t *Transport) Start(ctx context.Context, ps agent.ProcSpec) (agent.Remote, error) {
	d, err := t.deploy(ctx)
	if err != nil {
		return nil, err
	}
	env := ps.Env
	if env == nil {
		env = os.Environ()
	}
	id, token := relay.NewID()
	spec := relay.Spec{Dir: RelayDir(d), ID: id, Token: token, TaskID: agent.TaskIDFrom(ctx), Role: ps.Role, Name: ps.Name,
		Path: path.Base(filepath.ToSlash(ps.Path)), Args: ps.Args, WorkDir: ps.Dir, Env: RemoteEnv(env),
		Stdin: ps.Stdin, StdinData: ps.StdinData, WaitDelay: ps.WaitDelay}
	if t.Tune != nil {
		t.Tune(&spec)
	}
	m, err := t.C.LaunchRelay(ctx, d.Path, spec)
	if err != nil {
		return nil, err
	}
	p := &proc{t: t, bin: d.Path, meta: m, taskID: spec.TaskID}
	if err := p.attach(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

func (t *Transport) deploy(ctx context.Context) (Deployed, error) {
	out, err := t.C.Output(ctx, "uname", "-s", "-m")
	if err != nil {
		return Deployed{}, err
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return Deployed{}, fmt.Errorf("remote: %s: uname said %q", t.C.host, out)
	}
	goos, goarch := goOS(f[0]), goArch(f[1])
	pick := t.Binary
	if pick == nil {
		pick = func(goos, goarch string) (string, error) {
			self, err := os.Executable()
			if err != nil {
				return "", err
			}
			return BinaryFor(goos, goarch, self, filepath.Dir(self))
		}
	}
	bin, err := pick(goos, goarch)
	if err != nil {
		return Deployed{}, err
	}
	return t.C.Deploy(ctx, bin)
}

// proc is agent.Remote for a relay on a host, reattaching after drops.
type proc struct {
	t      *Transport
	bin    string
	meta   relay.Meta
	taskID string

	// replayThrough: frames up to it are marked Replay (an adopted relay:
	// the app has them stored, a fresh normalizer needs them).
	replayThrough uint64

	mu     sync.Mutex
	rc     *relay.Client
	last   uint64 // last frame handed to the orchestrator
	closed bool   // detached or the exit was handed over
	// stop is a Stop asked while the link was down, sent on reconnect; ack
	// the last ack that could not be sent.
	stop *stopReq
	ack  uint64
	// exitSeq is the sequence of the agent's exit once handed over.
	exitSeq uint64
}

type stopReq struct {
	grace  time.Duration
	reason string
}

var _ agent.Remote = (*proc)(nil)

func (p *proc) attach(ctx context.Context) error {
	p.mu.Lock()
	from := p.last + 1
	p.mu.Unlock()
	rc, err := p.t.C.DialRelay(ctx, p.bin, p.meta, from)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.rc = rc
	st, ack := p.stop, p.ack
	p.stop, p.ack = nil, 0
	p.mu.Unlock()
	if ack > 0 {
		_ = rc.Ack(ack) // stored while the host was unreachable
	}
	if st != nil {
		_ = rc.Stop(st.grace, st.reason) // queued while the host was unreachable
	}
	return nil
}

// ID implements agent.Remote.
func (p *proc) ID() string { return p.meta.ID }

// PID implements agent.Remote: 0, the agent's pid is on another host (the
// app must never signal a local process by that number).
func (p *proc) PID() int { return 0 }

// Next implements agent.Remote: frames in order, each once; a drop is
// hidden by reattaching from the last frame handed over.
func (p *proc) Next() (agent.RemoteFrame, error) {
	for {
		rc, err := p.current()
		if err != nil {
			return agent.RemoteFrame{}, err
		}
		m, err := rc.Next()
		if err != nil {
			if err := p.reconnect(rc, err); err != nil {
				return agent.RemoteFrame{}, err
			}
			continue
		}
		switch m.Type {
		case relay.MsgFrame, relay.MsgTooLong:
			p.mu.Lock()
			dup := m.Seq <= p.last
			if !dup {
				p.last = m.Seq
			}
			p.mu.Unlock()
			if !dup {
				return agent.RemoteFrame{Seq: m.Seq, Line: m.Payload, TooLong: m.Type == relay.MsgTooLong,
					Replay: m.Seq <= p.replayThrough}, nil
			}
		case relay.MsgExit:
			var ex relay.Exit
			if err := m.JSON(&ex); err != nil {
				return agent.RemoteFrame{}, err
			}
			p.forgetStop()
			p.mu.Lock()
			p.exitSeq = ex.Seq
			p.mu.Unlock()
			return agent.RemoteFrame{Exit: &agent.RemoteExit{Seq: ex.Seq, Code: ex.Code, Signal: ex.Signal, Err: ex.Err,
				Stderr: ex.Stderr, Stopped: ex.Stopped, Reason: ex.Reason}}, nil
		}
	}
}

func (p *proc) current() (*relay.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("remote: relay %s: detached", p.meta.ID)
	}
	if p.rc == nil {
		return nil, ErrNotConnected
	}
	return p.rc, nil
}

// reconnect replaces a broken attachment, waiting with backoff while the
// host is unreachable; it gives up (agent.ErrRelayLost) when the host
// answers but the relay does not, LostAfter times in a row.
func (p *proc) reconnect(broken *relay.Client, cause error) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return cause
	}
	if p.rc == broken {
		p.rc = nil
	}
	p.mu.Unlock()
	_ = broken.Close()
	minB, maxB, lost := p.t.MinBackoff, p.t.MaxBackoff, p.t.LostAfter
	if minB <= 0 {
		minB = 250 * time.Millisecond
	}
	if maxB <= 0 {
		maxB = 30 * time.Second
	}
	if lost <= 0 {
		lost = 5
	}
	since, backoff, fails := time.Now(), minB, 0
	for {
		if p.t.OnUnreachable != nil {
			p.t.OnUnreachable(p.taskID, since, Explain(cause))
		}
		time.Sleep(backoff)
		err := p.attach(context.Background())
		if err == nil {
			if p.t.OnReachable != nil {
				p.t.OnReachable(p.taskID)
			}
			return nil
		}
		if p.isClosed() || errors.Is(err, ErrPoolClosed) {
			return err // (a queued stop stays recorded: Stops)
		}
		cause = err
		if !errors.Is(err, ErrUnreachable) {
			if fails++; fails >= lost {
				return fmt.Errorf("%w: %s on %s: %v", agent.ErrRelayLost, p.meta.ID, p.t.C.host, err)
			}
		} else {
			fails = 0
		}
		backoff = min(backoff*2, maxB)
	}
}

func (p *proc) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

func (p *proc) with(fn func(*relay.Client) error) error {
	rc, err := p.current()
	if err != nil {
		return err
	}
	return fn(rc)
}

// WriteLine implements agent.Remote.
func (p *proc) WriteLine(b []byte) error {
	return p.with(func(c *relay.Client) error { return c.WriteLine(b) })
}

// CloseStdin implements agent.Remote.
func (p *proc) CloseStdin() error {
	return p.with(func(c *relay.Client) error { return c.CloseStdin() })
}

// Signal implements agent.Remote.
func (p *proc) Signal(sig syscall.Signal) error {
	return p.with(func(c *relay.Client) error { return c.Signal(sig) })
}

// Stop implements agent.Remote. While the host is unreachable the stop is
// queued and sent as soon as the link is back.
func (p *proc) Stop(grace time.Duration, reason string) error {
	p.mu.Lock()
	if p.rc == nil && !p.closed {
		p.stop = &stopReq{grace, reason}
		p.mu.Unlock()
		p.rememberStop(reason)
		return nil
	}
	p.mu.Unlock()
	err := p.with(func(c *relay.Client) error { return c.Stop(grace, reason) })
	if err != nil && !p.isClosed() { // the link just dropped: send it on reconnect
		p.mu.Lock()
		p.stop = &stopReq{grace, reason}
		p.mu.Unlock()
		p.rememberStop(reason)
		return nil
	}
	return err
}

// Ack implements agent.Remote. While the link is down the ack is kept and
// sent on reattach (an error here would end the runtime's ack sender, and
// the agent's exit would never be acknowledged: the relay would keep its
// files); a lost ack is covered by the next one.
func (p *proc) Ack(seq uint64) error {
	err := p.with(func(c *relay.Client) error { return c.Ack(seq) })
	if err != nil && !p.isClosed() {
		p.mu.Lock()
		p.ack = max(p.ack, seq)
		p.mu.Unlock()
		return nil
	}
	if err == nil {
		p.awaitRelayEnd(seq)
	}
	return err
}

// relayEndWait bounds how long the exit's acknowledgement waits for the
// relay to end.
const relayEndWait = 3 * time.Second

// awaitRelayEnd, once seq acknowledged the agent's exit, waits (bounded)
// for the relay to end and close the connection: an app that closes its
// ssh connections right after (its quit) would otherwise cut the
// acknowledgement on its way, and the relay would keep its files and wait
// for an app until its idle rule.
func (p *proc) awaitRelayEnd(seq uint64) {
	p.mu.Lock()
	rc, exit := p.rc, p.exitSeq
	p.mu.Unlock()
	if exit == 0 || seq < exit || rc == nil {
		return
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for {
			if _, err := rc.Next(); err != nil {
				return
			}
		}
	}()
	select {
	case <-ended:
	case <-time.After(relayEndWait):
	}
}

// Detach implements agent.Remote: the agent keeps running on the host.
func (p *proc) Detach() error {
	p.mu.Lock()
	p.closed = true
	rc := p.rc
	p.rc = nil
	p.mu.Unlock()
	if rc == nil {
		return nil
	}
	return rc.Detach()
}

package agent

// Remote processes: an agent behind a relay (backend/relay) keeps running
// when the app is gone. The Process API is the same (WriteLine, Signal,
// Stop, Exited, OnFrame) whether the process is a direct child or behind a
// relay; only ProcSpec.Transport differs.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Transport starts a process somewhere other than as the app's child.
type Transport interface {
	// Start starts spec (its Name, Path, Args, Dir, Env, Stdin, Role; the
	// task id is TaskIDFrom(ctx)) and returns the link to it.
	Start(ctx context.Context, spec ProcSpec) (Remote, error)
}

// TransportProvider is an optional ability of a ProcessRecorder: it picks
// the transport of each process the runtime starts (nil: a direct child).
// The app's recorder has it, so that every backend gets the relay without
// knowing about it.
type TransportProvider interface {
	TransportFor(ctx context.Context, spec ProcSpec) Transport
}

// Remote is the link to a process behind a relay.
type Remote interface {
	// ID names the relay (its journal), for the app's stored progress.
	ID() string
	PID() int
	// Next blocks for the next stdout line or the end. An error means the
	// link broke (the relay died or the connection closed).
	Next() (RemoteFrame, error)
	WriteLine(b []byte) error
	CloseStdin() error
	Signal(sig syscall.Signal) error
	Stop(grace time.Duration, reason string) error
	// Ack says every frame up to seq is stored.
	Ack(seq uint64) error
	// Detach leaves the process running (the app quits with "keep").
	Detach() error
}

// RemoteFrame is one stdout line (Seq > 0) or the end (Exit != nil).
type RemoteFrame struct {
	Seq     uint64
	Line    []byte
	TooLong bool
	// Replay marks a frame the app stored already, sent again so that a
	// fresh normalizer (and the backend's books) catch up on an adopted
	// process; it is not stored twice (Batch.Replayed).
	Replay bool
	Exit   *RemoteExit
}

// RemoteExit is how a remote process ended.
type RemoteExit struct {
	Seq     uint64
	Code    int
	Signal  int
	Err     string
	Stderr  string
	Stopped bool
	Reason  string
}

// ackEvery is the least time between two acks sent to a relay, unless
// ackFrames frames were stored since the last one (about a quarter of the
// relay's default AttachedBytes in frames of 256 bytes, so that a relay
// pacing a firehose on the app's acks rarely waits out the timer).
const (
	ackEvery  = 2 * time.Millisecond
	ackFrames = 4096
)

// ErrRelayLost is the end of a process whose relay went away.
var ErrRelayLost = errors.New("relay lost")

// ErrTransportUnavailable is a Transport's start failure that left nothing
// running (e.g. the relay could not be launched): StartProcess then starts
// the process as a direct child, so a broken relay setup costs the task its
// survival of a restart, not its start.
var ErrTransportUnavailable = errors.New("transport unavailable")

type ctxKeyTask struct{}

// WithTaskID tells the transport which task a process belongs to.
func WithTaskID(ctx context.Context, taskID string) context.Context {
	return context.WithValue(ctx, ctxKeyTask{}, taskID)
}

type ctxKeyAdopting struct{}

// WithAdopting tells a backend's Start that its process is not new: it is
// an agent the app adopts (a relay found at start). The process's journal
// is replayed from its start (Stream.Replaying) and the backend must not
// repeat a handshake the agent already had.
func WithAdopting(ctx context.Context) context.Context {
	return context.WithValue(ctx, ctxKeyAdopting{}, true)
}

// Adopting reports WithAdopting.
func Adopting(ctx context.Context) bool {
	b, _ := ctx.Value(ctxKeyAdopting{}).(bool)
	return b
}

// AdoptedRequestBase is the first JSON-RPC request id a backend uses on an
// adopted session: above every id the previous app used (it counted from 1)
// and above those of an earlier adoption (milliseconds since the epoch
// grow faster than any session sends requests), below 2^53.
func AdoptedRequestBase() int {
	return int(time.Now().UnixMilli())
}

// TaskIDFrom is the task id WithTaskID stored ("" if none).
func TaskIDFrom(ctx context.Context) string {
	s, _ := ctx.Value(ctxKeyTask{}).(string)
	return s
}

type ctxKeyOnHost struct{}

// OnHost marks a session whose agent runs on another host (issue 21): the
// backend must not look its CLI up on this machine (the host's transport
// finds it there by its base name).
func OnHost(ctx context.Context) context.Context { return context.WithValue(ctx, ctxKeyOnHost{}, true) }

// IsOnHost reports whether ctx was marked by OnHost.
func IsOnHost(ctx context.Context) bool { return ctx.Value(ctxKeyOnHost{}) != nil }

type ctxKeyHostTransport struct{}

// WithHostTransport marks ctx OnHost and carries the host's transport, for
// the backends that start their processes themselves outside the session's
// start (Gemini's one process per turn, OpenCode's shared server).
func WithHostTransport(ctx context.Context, t Transport) context.Context {
	return context.WithValue(OnHost(ctx), ctxKeyHostTransport{}, t)
}

// HostTransport is the transport WithHostTransport stored (nil if none).
func HostTransport(ctx context.Context) Transport {
	t, _ := ctx.Value(ctxKeyHostTransport{}).(Transport)
	return t
}

// HostNet is a host's transport that also reaches TCP ports on the host's
// loopback through its connection: OpenCode's server runs there behind a
// relay and is spoken to over HTTP (docs/remote.md).
type HostNet interface {
	Transport
	// HostKey names the host: one shared server per host.
	HostKey() string
	// FreePort is a loopback port free on the host now.
	FreePort(ctx context.Context) (int, error)
	// DialHost opens a connection to 127.0.0.1:port on the host.
	DialHost(ctx context.Context, port int) (net.Conn, error)
}

// HostRelays is a host's transport that can attach to a relay a previous
// app left there (OpenCode's server, kept at quit or left by a crash).
type HostRelays interface {
	// AdoptRelay attaches to the relay id on the host, from its journal's
	// first frame; ok false when the host has no such relay. An error:
	// the host could not be asked (unreachable, ssh failing).
	AdoptRelay(ctx context.Context, id string) (r Remote, ok bool, err error)
}

// HostServerKeeper is an optional ability of a Backend whose sessions on
// a host share a server there (OpenCode's): AdoptHostServer attaches to
// the server a previous app left on t's host (kept at quit, or left by a
// crash) and reports whether one is in use there, so that its sessions can
// be continued (Start with WithAdopting); an error means the host could
// not be asked (the caller asks again later).
type HostServerKeeper interface {
	AdoptHostServer(ctx context.Context, t Transport) (bool, error)
}

// remoteState is a Process's side of a Remote.
type remoteState struct {
	r          Remote
	cur        atomic.Uint64 // seq of the frame OnFrame is handling
	replay     atomic.Bool   // that frame is a replay
	manual     atomic.Bool   // a bound Stream acks (after the store); else OnFrame's return acks
	acked      atomic.Uint64 // everything up to it is stored
	sent       atomic.Uint64 // the last ack sent
	cooling    atomic.Bool   // the sender waits ackEvery after its last ack
	mu         sync.Mutex
	exitSeq    uint64
	exit       *RemoteExit
	lost       error
	kick       chan struct{} // wakes the ack sender (cap 1)
	quit       chan struct{}
	senderDone chan struct{} // closed when the ack sender ended (the exit acked, or acks stopped)
}

func newRemoteState(r Remote) *remoteState {
	rs := &remoteState{r: r, kick: make(chan struct{}, 1), quit: make(chan struct{}), senderDone: make(chan struct{})}
	go rs.sendAcks()
	return rs
}

// ack records that everything up to seq is stored. Acks are cumulative, so
// the sender coalesces them: under a firehose one message covers many
// frames. While the sender cools down after an ack it is woken only once
// ackFrames more frames are stored.
// It takes no lock (the consumer calls it for every frame): the sender
// sets cooling before it reads acked and the consumer stores acked before
// it reads cooling, so one of them sees the other's write.
func (rs *remoteState) ack(seq uint64) {
	for {
		cur := rs.acked.Load()
		if seq <= cur {
			return
		}
		if rs.acked.CompareAndSwap(cur, seq) {
			break
		}
	}
	if !rs.cooling.Load() || seq-rs.sent.Load() >= ackFrames {
		rs.wake()
	}
}

func (rs *remoteState) wake() {
	select {
	case rs.kick <- struct{}{}:
	default:
	}
}

// sendAcks sends the acks: at once when the sender is idle, then at most
// one per ackEvery unless ackFrames more frames were stored (a relay
// paces the agent on its app's acks: waiting out the timer under a
// firehose would throttle it) or the end came.
func (rs *remoteState) sendAcks() {
	defer close(rs.senderDone)
	cool := time.NewTimer(time.Hour)
	cool.Stop()
	for {
		select {
		case <-rs.kick:
		case <-rs.quit:
			return
		}
		for {
			seq, last, ok := rs.nextAck()
			if !ok {
				break
			}
			if rs.r.Ack(seq) != nil || last {
				return
			}
			cool.Reset(ackEvery)
			select {
			case <-cool.C:
			case <-rs.kick:
				cool.Stop()
			case <-rs.quit:
				return
			}
		}
	}
}

// nextAck is the ack to send (ok false: nothing new, the sender is idle).
func (rs *remoteState) nextAck() (seq uint64, last, ok bool) {
	rs.cooling.Store(false)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	seq = rs.acked.Load()
	if rs.exitSeq > 0 && seq+1 >= rs.exitSeq {
		seq = rs.exitSeq // everything before the end is stored: the relay may go
	}
	if seq <= rs.sent.Load() {
		return 0, false, false // idle: the next ack wakes the sender
	}
	rs.sent.Store(seq)
	rs.cooling.Store(true)
	return seq, rs.exitSeq > 0 && seq == rs.exitSeq, true
}

func (rs *remoteState) stopAcks() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	select {
	case <-rs.quit:
	default:
		close(rs.quit)
	}
}

func (rs *remoteState) ended(ex *RemoteExit) {
	rs.mu.Lock()
	rs.exit, rs.exitSeq = ex, ex.Seq
	rs.mu.Unlock()
	rs.wake()
}

// AdoptProcess wraps a Remote the app attached to (a relay found at start)
// in a Process: frames from the relay's journal, then live, go to
// spec.OnFrame as for a process just started.
func AdoptProcess(spec ProcSpec, r Remote) *Process {
	if spec.WaitDelay <= 0 {
		spec.WaitDelay = 3 * time.Second
	}
	p := &Process{spec: spec, exited: make(chan struct{}), done: make(chan struct{}), rs: newRemoteState(r)}
	if spec.Stream != nil {
		spec.Stream.bindRemote(p.rs)
	}
	// Not recorded in app_processes: a relayed agent must survive the next
	// start's clean-up; the app finds it in the relays' directory instead.
	go p.remoteLoop()
	return p
}

func startRemote(ctx context.Context, t Transport, spec ProcSpec) (*Process, error) {
	r, err := t.Start(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", spec.Name, spec.Path, err)
	}
	return AdoptProcess(spec, r), nil
}

func (p *Process) remoteLoop() {
	rs := p.rs
	defer close(p.done)
	for {
		f, err := rs.r.Next()
		if err != nil {
			rs.mu.Lock()
			rs.lost = fmt.Errorf("%s: %w: %w", p.spec.Name, ErrRelayLost, err)
			rs.mu.Unlock()
			rs.stopAcks()
			break
		}
		if f.Exit != nil {
			rs.ended(f.Exit)
			break
		}
		rs.cur.Store(f.Seq)
		rs.replay.Store(f.Replay)
		if p.spec.OnFrame != nil {
			var ferr error
			if f.TooLong {
				ferr = fmt.Errorf("%w (over %d bytes): line skipped", ErrFrameTooLong, MaxFrameBytes)
			}
			p.spec.OnFrame(f.Line, time.Now(), ferr)
		}
		if !rs.manual.Load() && !f.Replay {
			rs.ack(f.Seq)
		}
	}
	close(p.exited)
}

// remoteExitError is ExitError for a remote process.
func (p *Process) remoteExitError() error {
	rs := p.rs
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.lost != nil {
		return rs.lost
	}
	ex := rs.exit
	if ex == nil || (ex.Code == 0 && ex.Err == "") || ex.Stopped {
		return nil
	}
	msg := ex.Err
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", ex.Code)
	}
	if ex.Stderr != "" {
		return fmt.Errorf("%s: %s; stderr: %s", p.spec.Name, msg, ex.Stderr)
	}
	return fmt.Errorf("%s: %s", p.spec.Name, msg)
}

// Detacher is an optional ability of a Session whose process may run behind
// a relay: Detach leaves the agent running (the app quits with "keep") and
// reports false when the process is a direct child (nothing was done).
type Detacher interface {
	Detach(ctx context.Context) (bool, error)
}

// ServerKeeper is an optional ability of a Backend whose sessions share a
// server (OpenCode's `opencode serve`) that can run behind a relay and so
// outlive the app.
type ServerKeeper interface {
	// AdoptServer attaches to the server a previous app left running and
	// reports whether one is in use: its sessions can then be continued
	// (Start with WithAdopting and the session id) instead of interrupted.
	AdoptServer(ctx context.Context) bool
	// KeepServer leaves the server running when the app quits with "keep"
	// (Dispose then does not stop it); it reports whether it did.
	KeepServer(ctx context.Context) bool
}

// Relayed reports whether the process runs behind a relay.
func (p *Process) Relayed() bool { return p.rs != nil }

// AcksDone is closed once a relayed process's acknowledgements are over:
// its exit acknowledged (the relay may then remove its files and end), or
// the link given up. For a direct child it is closed at once. Whoever
// closes the connection right after a stop (the app's quit) waits for it.
func (p *Process) AcksDone() <-chan struct{} {
	if p.rs == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return p.rs.senderDone
}

// RelayID names the process's relay ("" for a direct child).
func (p *Process) RelayID() string {
	if p.rs == nil {
		return ""
	}
	return p.rs.r.ID()
}

// Detach leaves a relayed process running and closes the link (quit with
// "keep"); for a direct child it is Stop.
func (p *Process) Detach(ctx context.Context) error {
	if p.rs == nil {
		return p.Stop(ctx, 0)
	}
	p.rs.stopAcks()
	return p.rs.r.Detach()
}

// RelayExit is how a relayed process ended (nil while running, for a
// direct child, or when the relay was lost).
func (p *Process) RelayExit() *RemoteExit {
	if p.rs == nil {
		return nil
	}
	p.rs.mu.Lock()
	defer p.rs.mu.Unlock()
	return p.rs.exit
}

// stopRemote asks the relay to end the process and waits for its end.
func (p *Process) stopRemote(ctx context.Context, grace time.Duration) error {
	p.writeMu.Lock()
	p.stdinClosed = true
	p.writeMu.Unlock()
	if err := p.rs.r.Stop(grace, "stopped by the app"); err != nil && !isDone(p.done) {
		return fmt.Errorf("%s: stop: %w", p.spec.Name, err)
	}
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		_ = p.rs.r.Signal(syscall.SIGKILL)
		return fmt.Errorf("%s: stop: %w", p.spec.Name, ctx.Err())
	}
}

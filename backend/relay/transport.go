package relay

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Transport runs agent processes behind relays: agent.ProcSpec.Transport,
// or through the app's recorder (agent.TransportProvider).
type Transport struct {
	// Dir holds the relays' files (<data dir>/relays).
	Dir string
	// Exe is the jean-claude binary (default os.Executable()).
	Exe string
	// Tune adjusts each relay's spec (idle times, journal limits).
	Tune func(*Spec)
}

var _ agent.Transport = (*Transport)(nil)

// Start launches a relay for ps and attaches to it.
func (t *Transport) Start(ctx context.Context, ps agent.ProcSpec) (agent.Remote, error) {
	return t.start(ctx, ps, nil)
}

// WithExtra is t with extra recorded in each relay's meta file (mode 0600,
// never logged): what the next app needs to use the process again, e.g.
// OpenCode's server port and password.
func (t *Transport) WithExtra(extra map[string]string) agent.Transport {
	return extraTransport{t: t, extra: extra}
}

type extraTransport struct {
	t     *Transport
	extra map[string]string
}

func (e extraTransport) Start(ctx context.Context, ps agent.ProcSpec) (agent.Remote, error) {
	return e.t.start(ctx, ps, e.extra)
}

func (t *Transport) start(ctx context.Context, ps agent.ProcSpec, extra map[string]string) (agent.Remote, error) {
	exe := t.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("relay: %w: %w", agent.ErrTransportUnavailable, err)
		}
	}
	id, token := NewID()
	spec := Spec{Dir: t.Dir, ID: id, Token: token, TaskID: agent.TaskIDFrom(ctx), Role: ps.Role, Name: ps.Name,
		Path: ps.Path, Args: ps.Args, WorkDir: ps.Dir, Env: ps.Env, Stdin: ps.Stdin, StdinData: ps.StdinData,
		WaitDelay: ps.WaitDelay, Extra: extra}
	if spec.Env == nil {
		spec.Env = os.Environ() // the relay's environment is the app's too, but say it
	}
	if t.Tune != nil {
		t.Tune(&spec)
	}
	m, err := Launch(ctx, exe, spec)
	if err != nil {
		if ctx.Err() == nil { // no relay runs and no agent was left running
			err = fmt.Errorf("%w: %w", agent.ErrTransportUnavailable, err)
		}
		return nil, err
	}
	r, err := Adopt(ctx, m, 1)
	if err != nil {
		_ = syscall.Kill(m.RelayPID, syscall.SIGTERM) // nobody can reach it: it stops its agent and ends
		return nil, err
	}
	return r, nil
}

// Adopt attaches to the relay of m from sequence from (the last one the app
// stored + 1).
func Adopt(ctx context.Context, m Meta, from uint64) (agent.Remote, error) {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var journal *os.File // on the relay's machine: the bytes are read from its journal, not sent
	if f, err := os.Open(m.Journal); err == nil {
		journal = f
	}
	c, err := dialWith(dctx, m.Socket, m.Token, from, journal)
	if err != nil {
		return nil, err
	}
	return &Remote{C: c, Meta: m}, nil
}

// AdoptReplaying attaches from the journal's start: frames up to stored
// come marked Replay (the app has them; a fresh normalizer needs them),
// the rest as new.
func AdoptReplaying(ctx context.Context, m Meta, stored uint64) (agent.Remote, error) {
	r, err := Adopt(ctx, m, 1)
	if err != nil {
		return nil, err
	}
	rr := r.(*Remote)
	rr.ReplayThrough = stored
	// The previous app may have died between storing frames and acking
	// them: say they are stored, or a relay paused by its AttachedBytes
	// would wait for acks that replayed frames never bring (the client
	// sends it once it has read that line: an ack names its offset). One
	// short of stored, so that the journal does not rotate (an ack of
	// everything may truncate it) before it replayed them to this app.
	if stored > 1 {
		if err := rr.C.Ack(stored - 1); err != nil {
			rr.C.Close()
			return nil, err
		}
	}
	return rr, nil
}

// Remote is agent.Remote over a Client.
type Remote struct {
	C    *Client
	Meta Meta
	// ReplayThrough: frames up to it are marked Replay.
	ReplayThrough uint64
}

var _ agent.Remote = (*Remote)(nil)

// ID implements agent.Remote.
func (r *Remote) ID() string { return r.Meta.ID }

// PID is the agent's pid (its process group).
func (r *Remote) PID() int { return r.C.Welcome.AgentPID }

// Next implements agent.Remote.
func (r *Remote) Next() (agent.RemoteFrame, error) {
	for {
		m, err := r.C.Next()
		if err != nil {
			return agent.RemoteFrame{}, err
		}
		switch m.Type {
		case MsgFrame, MsgTooLong:
			return agent.RemoteFrame{Seq: m.Seq, Line: m.Payload, TooLong: m.Type == MsgTooLong, Replay: m.Seq <= r.ReplayThrough}, nil
		case MsgExit:
			var ex Exit
			if err := m.JSON(&ex); err != nil {
				return agent.RemoteFrame{}, err
			}
			return agent.RemoteFrame{Exit: ex.remote()}, nil
		}
	}
}

func (ex Exit) remote() *agent.RemoteExit {
	return &agent.RemoteExit{Seq: ex.Seq, Code: ex.Code, Signal: ex.Signal, Err: ex.Err, Stderr: ex.Stderr,
		Stopped: ex.Stopped, Reason: ex.Reason}
}

// WriteLine implements agent.Remote.
func (r *Remote) WriteLine(b []byte) error { return r.C.WriteLine(b) }

// CloseStdin implements agent.Remote.
func (r *Remote) CloseStdin() error { return r.C.CloseStdin() }

// Signal implements agent.Remote.
func (r *Remote) Signal(sig syscall.Signal) error { return r.C.Signal(sig) }

// Stop implements agent.Remote.
func (r *Remote) Stop(grace time.Duration, reason string) error { return r.C.Stop(grace, reason) }

// Ack implements agent.Remote.
func (r *Remote) Ack(seq uint64) error { return r.C.Ack(seq) }

// Detach implements agent.Remote.
func (r *Remote) Detach() error { return r.C.Detach() }

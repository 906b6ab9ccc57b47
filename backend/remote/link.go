package remote

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/relay"
)

// Sink stores what a remote relay sends, like a local task's raw frames.
type Sink interface {
	// LastSeq is the last sequence stored (0 = none).
	LastSeq() uint64
	// Store stores one Frame or TooLong message; it is called once per
	// sequence, in order, and acknowledged to the relay only after it
	// returned nil.
	Store(m relay.Msg) error
	// Exited stores the agent's end (its Seq included).
	Exited(e relay.Exit) error
	// Unreachable is called on every failed attempt while the host or the
	// relay cannot be reached, with the time the link went down.
	Unreachable(since time.Time, err error)
	// Reachable is called when the link is up again.
	Reachable()
}

// ErrNotConnected: a control sent while the link is down.
var ErrNotConnected = errors.New("host unreachable: not connected to the relay")

// Link keeps the app attached to one relay on a host: it reattaches with
// backoff after a drop (network, sleep, a killed ssh), asking the relay to
// replay from the last stored sequence, so every frame is stored exactly
// once and in order.
type Link struct {
	C    *Client
	Bin  string // the deployed binary on the host
	Meta relay.Meta
	Sink Sink
	// MinBackoff and MaxBackoff bound the wait between attempts (default
	// 250ms, 30s).
	MinBackoff, MaxBackoff time.Duration

	mu sync.Mutex
	rc *relay.Client
}

// Run attaches and ingests until the agent's exit is stored and
// acknowledged (nil), or ctx ends (the relay is left running: detach).
func (l *Link) Run(ctx context.Context) error {
	minB, maxB := l.MinBackoff, l.MaxBackoff
	if minB <= 0 {
		minB = 250 * time.Millisecond
	}
	if maxB <= 0 {
		maxB = 30 * time.Second
	}
	backoff := minB
	var down time.Time
	for {
		rc, err := l.C.DialRelay(ctx, l.Bin, l.Meta, l.Sink.LastSeq()+1)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if down.IsZero() {
				down = time.Now()
			}
			l.Sink.Unreachable(down, Explain(err))
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, maxB)
			continue
		}
		if !down.IsZero() {
			l.Sink.Reachable()
		}
		down, backoff = time.Time{}, minB
		done, err := l.serve(ctx, rc)
		if done {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			down = time.Now()
			l.Sink.Unreachable(down, Explain(err))
		}
	}
}

// serve ingests from one attachment until it breaks (false) or the exit
// is stored (true).
func (l *Link) serve(ctx context.Context, rc *relay.Client) (bool, error) {
	l.mu.Lock()
	l.rc = rc
	l.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { _ = rc.Detach() })
	defer func() {
		stop()
		l.mu.Lock()
		l.rc = nil
		l.mu.Unlock()
		_ = rc.Close()
	}()
	for {
		m, err := rc.Next()
		if err != nil {
			return false, fmt.Errorf("remote: relay link to %s: %w", l.C.host, err)
		}
		switch m.Type {
		case relay.MsgFrame, relay.MsgTooLong:
			if m.Seq <= l.Sink.LastSeq() {
				continue // already stored (never expected: Hello asked from the next)
			}
			if err := l.Sink.Store(m); err != nil {
				return false, err
			}
			_ = rc.Ack(m.Seq)
		case relay.MsgExit:
			var e relay.Exit
			if err := m.JSON(&e); err != nil {
				return false, err
			}
			if err := l.Sink.Exited(e); err != nil {
				return false, err
			}
			_ = rc.Ack(e.Seq)
			return true, nil
		}
	}
}

func (l *Link) client() (*relay.Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rc == nil {
		return nil, ErrNotConnected
	}
	return l.rc, nil
}

// WriteLine sends one line to the agent's stdin (an answer, a follow-up).
func (l *Link) WriteLine(b []byte) error {
	rc, err := l.client()
	if err != nil {
		return err
	}
	return rc.WriteLine(b)
}

// Stop asks the relay to end the agent; the exit then arrives through Run.
func (l *Link) Stop(grace time.Duration, reason string) error {
	rc, err := l.client()
	if err != nil {
		return err
	}
	return rc.Stop(grace, reason)
}

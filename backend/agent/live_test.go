package agent

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

type stopper struct {
	stopped *atomic.Int32
	err     error
}

func (s *stopper) Stop(context.Context) error { s.stopped.Add(1); return s.err }

func TestLiveStopAll(t *testing.T) {
	var l Live[*stopper]
	var n atomic.Int32
	boom := errors.New("boom")
	a, b, c := &stopper{stopped: &n}, &stopper{stopped: &n, err: boom}, &stopper{stopped: &n}
	l.Add(a)
	l.Add(b)
	l.Add(c)
	l.Remove(c)
	if l.Len() != 2 {
		t.Fatalf("Len = %d, want 2", l.Len())
	}
	if err := l.StopAll(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("StopAll = %v, want boom", err)
	}
	if n.Load() != 2 {
		t.Fatalf("%d sessions stopped, want 2", n.Load())
	}
}

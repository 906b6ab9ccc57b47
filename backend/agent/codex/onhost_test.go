package codex

import (
	"context"
	"errors"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// hostRecorder hands every process to a transport that only records what
// it was asked to start (as the host's relay would get it) and refuses.
type hostRecorder struct{ got []agent.ProcSpec }

var errHostOnly = errors.New("recorded, not started")

func (r *hostRecorder) ProcessStarted(int, string) {}
func (r *hostRecorder) ProcessEnded(int)           {}
func (r *hostRecorder) TransportFor(context.Context, agent.ProcSpec) agent.Transport {
	return r
}
func (r *hostRecorder) Start(_ context.Context, spec agent.ProcSpec) (agent.Remote, error) {
	r.got = append(r.got, spec)
	return nil, errHostOnly
}

// A session on another host looks up neither the binary nor the folder on
// this machine: the transport gets the configured name and the host's
// folder (neither exists here). A local session still checks both.
func TestStartOnHostLooksNothingUpLocally(t *testing.T) {
	b := New(Options{Binary: "/nowhere/codex"})
	r := &hostRecorder{}
	cfg := agent.Config{Cwd: "/only/on/the/host/app", Recorder: r}
	_, err := b.Start(agent.OnHost(context.Background()), cfg, "hi")
	if !errors.Is(err, errHostOnly) || len(r.got) != 1 {
		t.Fatalf("Start on a host = %v (%d starts), want the transport's error", err, len(r.got))
	}
	if s := r.got[0]; s.Path != "/nowhere/codex" || s.Dir != cfg.Cwd || len(s.Args) == 0 || s.Args[0] != "app-server" {
		t.Fatalf("spec = %q %q in %q", s.Path, s.Args, s.Dir)
	}
	if _, err := b.Start(context.Background(), cfg, "hi"); !errors.Is(err, agent.ErrBinaryNotFound) || len(r.got) != 1 {
		t.Fatalf("local Start = %v (%d starts), want ErrBinaryNotFound before any start", err, len(r.got))
	}
}

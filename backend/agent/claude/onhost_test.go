package claude

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

// A session on another host does not check its folder on this machine
// (it exists only on the host) and keeps the configured binary name.
func TestStartOnHostDoesNotStatTheFolder(t *testing.T) {
	b := New(Options{Binary: "/nowhere/claude"})
	r := &hostRecorder{}
	cfg := agent.Config{Cwd: "/only/on/the/host/app", Recorder: r}
	_, err := b.Start(agent.OnHost(context.Background()), cfg, "hi")
	if !errors.Is(err, errHostOnly) || len(r.got) != 1 {
		t.Fatalf("Start on a host = %v (%d starts), want the transport's error", err, len(r.got))
	}
	if s := r.got[0]; s.Path != "/nowhere/claude" || s.Dir != cfg.Cwd {
		t.Fatalf("spec = %q in %q", s.Path, s.Dir)
	}
}

package codex

import (
	"context"
	"errors"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// A session on another host looks up neither the binary nor the folder on
// this machine: the transport gets the configured name and the host's
// folder (neither exists here). A local session still checks both.
func TestStartOnHostLooksNothingUpLocally(t *testing.T) {
	b := New(Options{Binary: "/nowhere/codex"})
	r := &agenttest.HostRecorder{}
	cfg := agent.Config{Cwd: "/only/on/the/host/app", Recorder: r}
	_, err := b.Start(agent.OnHost(context.Background()), cfg, "hi")
	if !errors.Is(err, agenttest.ErrHostOnly) || len(r.Got) != 1 {
		t.Fatalf("Start on a host = %v (%d starts), want the transport's error", err, len(r.Got))
	}
	if s := r.Got[0]; s.Path != "/nowhere/codex" || s.Dir != cfg.Cwd || len(s.Args) == 0 || s.Args[0] != "app-server" {
		t.Fatalf("spec = %q %q in %q", s.Path, s.Args, s.Dir)
	}
	if _, err := b.Start(context.Background(), cfg, "hi"); !errors.Is(err, agent.ErrBinaryNotFound) || len(r.Got) != 1 {
		t.Fatalf("local Start = %v (%d starts), want ErrBinaryNotFound before any start", err, len(r.Got))
	}
}

package claude

import (
	"context"
	"errors"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// A session on another host does not check its folder on this machine
// (it exists only on the host) and keeps the configured binary name.
func TestStartOnHostDoesNotStatTheFolder(t *testing.T) {
	b := New(Options{Binary: "/nowhere/claude"})
	r := &agenttest.HostRecorder{}
	cfg := agent.Config{Cwd: "/only/on/the/host/app", Recorder: r}
	_, err := b.Start(agent.OnHost(context.Background()), cfg, "hi")
	if !errors.Is(err, agenttest.ErrHostOnly) || len(r.Got) != 1 {
		t.Fatalf("Start on a host = %v (%d starts), want the transport's error", err, len(r.Got))
	}
	if s := r.Got[0]; s.Path != "/nowhere/claude" || s.Dir != cfg.Cwd {
		t.Fatalf("spec = %q in %q", s.Path, s.Dir)
	}
}

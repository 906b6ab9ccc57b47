package agentmgr

import (
	"context"
	"errors"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Without settings (the bindings build) Setup still knows every built-in
// agent, says nothing, and its resolver reports an unknown backend.
func TestSetupWithoutSettings(t *testing.T) {
	var warned []string
	s := NewSetup(context.Background(), t.TempDir(), nil, func(m string) { warned = append(warned, m) })
	if len(warned) != 0 {
		t.Errorf("warnings: %q", warned)
	}
	if len(s.SpecList()) == 0 || s.Manager == nil {
		t.Fatalf("setup: %+v", s)
	}
	if s.Registry.DataDir == "" || s.Registry.Binaries != nil {
		t.Errorf("registry options: %+v", s.Registry)
	}
	_, err := s.Resolver()(context.Background(), agent.BackendType("nope"))
	if !errors.Is(err, agent.ErrBinaryNotFound) {
		t.Errorf("unknown backend: %v", err)
	}
}

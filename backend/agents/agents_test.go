package agents

import (
	"errors"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
)

func TestNewBuildsEachNamedBackend(t *testing.T) {
	mine := acp.Config{Name: "acp.me.mine", Command: "my-agent"}
	override := acp.Config{Name: "acp.block.goose", DisplayName: "My goose", Command: "goose"}
	opt := Options{ACPAgents: []acp.Config{mine, override}}
	names := Names(opt)
	reg := NewRegistry(opt)
	if got := len(reg.List()); got != len(names) {
		t.Fatalf("registry holds %d backends, Names lists %d", got, len(names))
	}
	for _, name := range names {
		b, err := New(opt, name)
		if err != nil {
			t.Fatalf("New(%s): %v", name, err)
		}
		if b.Info().Name != name {
			t.Errorf("New(%s) built %s", name, b.Info().Name)
		}
	}
	b, _ := New(opt, "acp.block.goose")
	if b.Info().DisplayName != "My goose" {
		t.Errorf("a user-added agent does not override its preset: %q", b.Info().DisplayName)
	}
	if _, err := New(opt, "nope"); !errors.Is(err, agent.ErrUnknownBackend) {
		t.Errorf("New(nope) = %v, want ErrUnknownBackend", err)
	}
}

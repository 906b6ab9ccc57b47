package agentmgr

import (
	"context"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agents"
)

func TestWrapRegistryWrapsEveryBackend(t *testing.T) {
	m := New(Options{DataDir: t.TempDir()})
	opt := agents.Options{}
	reg := agents.NewRegistry(opt)
	before := reg.List()
	m.WrapRegistry(context.Background(), reg, Specs(nil), opt)
	after := reg.List()
	if len(after) != len(before) {
		t.Fatalf("%d backends after wrapping, %d before", len(after), len(before))
	}
	for _, info := range after {
		b, err := reg.Get(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := b.(*Configured)
		if !ok {
			t.Fatalf("%s is a %T, not wrapped", info.Name, b)
		}
		if c.spec.Backend != "" && c.rebuild("/no/such/binary").Info().Name != info.Name {
			t.Errorf("%s rebuilds as another backend", info.Name)
		}
	}
}

// Only OpenCode hands the app's MCP server anew to an adopted session
// (agent.MCPAtEachStart), through the wrapper: the orchestrator tells the
// other backends' tasks when their adopted agent lost the app's tools.
func TestWrappedMCPAtEachStart(t *testing.T) {
	m := New(Options{DataDir: t.TempDir()})
	opt := agents.Options{}
	reg := agents.NewRegistry(opt)
	m.WrapRegistry(context.Background(), reg, Specs(nil), opt)
	for _, info := range reg.List() {
		b, _ := reg.Get(info.Name)
		e, ok := b.(agent.MCPAtEachStart)
		if got, want := ok && e.MCPAtEachStart(), info.Name == agent.BackendOpenCode; got != want {
			t.Errorf("%s: MCPAtEachStart %v, want %v", info.Name, got, want)
		}
	}
}

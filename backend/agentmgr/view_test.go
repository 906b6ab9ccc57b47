package agentmgr

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
)

func viewFixture(t *testing.T) (*Manager, *agent.Registry, []Spec) {
	t.Helper()
	bin := t.TempDir()
	script(t, bin, "claude", "echo '2.1.330 (Claude Code)'\n")
	m := New(Options{DataDir: t.TempDir(), Settings: &memSettings{}, LookPath: lookIn(bin)})
	reg := agent.NewRegistry()
	reg.Register(agent.Unavailable{Desc: agent.Info{Name: agent.BackendClaudeCode, DisplayName: "Claude (registered)",
		Notes: "its notes", Capabilities: agent.Capabilities{Permissions: true}}})
	reg.Register(agent.Unavailable{Desc: agent.Info{Name: agent.BackendGemini}})
	return m, reg, Specs(nil)
}

func TestViewsListTheRegisteredAgentsMasked(t *testing.T) {
	m, reg, specs := viewFixture(t)
	ctx := t.Context()
	if err := m.SetSettings(ctx, agent.BackendClaudeCode, AgentSettings{Env: map[string]string{"ANTHROPIC_API_KEY": "sk-view", "DEBUG": "1"}}); err != nil {
		t.Fatal(err)
	}
	vs := m.Views(ctx, reg, specs)
	if len(vs) != 2 || vs[0].Backend != agent.BackendClaudeCode || vs[1].Backend != agent.BackendGemini {
		t.Fatalf("Views = %+v, want claude-code then gemini (the registered ones, in the specs' order)", vs)
	}
	c := vs[0]
	if !c.Found || c.Version != "2.1.330 (Claude Code)" || !c.Registered || !c.Capabilities.Permissions ||
		c.Notes != "its notes" || c.DisplayName != "Claude (registered)" || c.SignIn.KeyVar != "ANTHROPIC_API_KEY" {
		t.Errorf("claude-code view: %+v", c)
	}
	if c.Settings.Env["ANTHROPIC_API_KEY"] != Mask || c.Settings.Env["DEBUG"] != "1" {
		t.Errorf("claude-code settings %v, want the key masked", c.Settings.Env)
	}
	g := vs[1]
	if g.Found || g.SignedIn != "" || g.Settings.Env == nil || g.Settings.ExtraArgs == nil {
		t.Errorf("gemini (not installed, no settings): %+v", g)
	}
}

func TestLastKnownViewsAreMaskedAgain(t *testing.T) {
	m, reg, specs := viewFixture(t)
	ctx := t.Context()
	if got := m.LastKnownViews(ctx); got == nil || len(got) != 0 {
		t.Fatalf("before the first Views: %+v, want an empty list", got)
	}
	const later = "marked-after-the-views"
	if err := m.SetSettings(ctx, agent.BackendGemini, AgentSettings{Env: map[string]string{"PLAIN": later}}); err != nil {
		t.Fatal(err)
	}
	vs := m.Views(ctx, reg, specs)
	// As the page gets them: JSON (a sign-in's credential files stay here).
	want, _ := json.Marshal(vs)
	got, _ := json.Marshal(m.LastKnownViews(ctx))
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("LastKnownViews differs from Views (-views +last):\n%s", diff)
	}
	// Marked secret after that Views: kept in clear, shown masked.
	if err := m.SetSettings(ctx, agent.BackendGemini, AgentSettings{Env: map[string]string{"PLAIN": later}, Secrets: []string{"PLAIN"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.LastKnown(ctx), later) {
		t.Fatalf("the test needs a kept state holding %q in clear", later)
	}
	last := m.LastKnownViews(ctx)
	if len(last) != 2 || last[1].Settings.Env["PLAIN"] != Mask || len(last[1].Settings.Secrets) != 0 {
		t.Errorf("gemini's last known settings %+v, want PLAIN masked and the secrets listed as kept", last[1].Settings)
	}
	if err := m.SaveLastKnown(ctx, "{not json"); err != nil {
		t.Fatal(err)
	}
	if got := m.LastKnownViews(ctx); got == nil || len(got) != 0 {
		t.Errorf("an unreadable kept state: %+v, want an empty list", got)
	}
}

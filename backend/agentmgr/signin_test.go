package agentmgr

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

func TestExplainInUserWords(t *testing.T) {
	cases := []struct {
		reason, kind, action, label, msg string
	}{
		{"Claude Code not found (claude is not on PATH nor installed by the app): agent binary not found",
			ProblemNotInstalled, ActionInstall, "Install Claude Code", "Claude Code is not installed."},
		{"Not logged in · Please run /login", ProblemNotSignedIn, ActionSignIn, "Sign in", "Claude Code is not signed in."},
		{"Invalid API key · Fix external API key", ProblemNotSignedIn, ActionSignIn, "Sign in", "Claude Code is not signed in."},
		{"orchestrator: start task b40dae15-1111-2222-3333-444455556666: exit status 3", ProblemFailed, ActionSettings, "Agent settings", "exit status 3"},
	}
	for _, c := range cases {
		p := Explain("Claude Code", true, c.reason)
		if p.Kind != c.kind || p.Action != c.action || p.ActionLabel != c.label || p.Message != c.msg {
			t.Errorf("Explain(%q) = %+v", c.reason, p)
		}
		if strings.Contains(p.Message, "b40dae15") || strings.Contains(p.Message, "orchestrator") {
			t.Errorf("internal words in %q", p.Message)
		}
	}
	if p := Explain("Foo", false, "agent binary not found"); p.Action != ActionSettings {
		t.Errorf("not installable: %+v", p)
	}
}

func TestSignedInByKeyOrCredentials(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("CLAUDE_CODE_OAUTH_TOKEN", "")
	home := t.TempDir()
	spec := Spec{Backend: agent.BackendClaudeCode, Command: "claude"}
	if in, known := SignedIn(spec, AgentSettings{}, home); in || !known {
		t.Fatalf("empty home: %v %v", in, known)
	}
	if in, _ := SignedIn(spec, AgentSettings{Env: map[string]string{"ANTHROPIC_API_KEY": "sk-ant-x"}}, home); !in {
		t.Fatal("key in settings not seen")
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude/.credentials.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if in, _ := SignedIn(spec, AgentSettings{}, home); !in {
		t.Fatal("credentials file not seen")
	}
	if _, known := SignedIn(Spec{Backend: "x", Command: "x"}, AgentSettings{}, home); known {
		t.Fatal("unknown agent reported known")
	}
}

func TestHealthSaysInstalledNotSignedIn(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("CLAUDE_CODE_OAUTH_TOKEN", "")
	bin, home := t.TempDir(), t.TempDir()
	script(t, bin, "claude", `read line
echo '{"type":"control_response","response":{"subtype":"success","request_id":"jc_health_1","response":{"models":[],"commands":[]}}}'
`)
	m := New(Options{Settings: &memSettings{}, LookPath: lookIn(bin), HealthTimeout: 5 * time.Second, Home: home})
	spec := Specs(nil)[0]
	ctx := context.Background()
	h := m.Health(ctx, spec)
	if h.OK || !h.NotSignedIn || !strings.HasPrefix(h.Detail, "installed, not signed in") {
		t.Fatalf("health without credentials: %+v", h)
	}
	if st := m.SignedInState(ctx, spec); st != "not-signed-in" {
		t.Fatalf("state %q", st)
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude/.credentials.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if h := m.Health(ctx, spec); !h.OK || h.NotSignedIn {
		t.Fatalf("health once signed in: %+v", h)
	}
}

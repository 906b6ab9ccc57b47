package agentmgr

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/inputerr"
)

func specOf(t *testing.T, b agent.BackendType) Spec {
	t.Helper()
	for _, sp := range Specs(nil) {
		if sp.Backend == b {
			return sp
		}
	}
	t.Fatalf("no spec for %s", b)
	return Spec{}
}

func TestLoginIsTheAgentsOwnCommand(t *testing.T) {
	bin := t.TempDir()
	claude := script(t, bin, "claude", "echo '2.1.330 (Claude Code)'\n")
	m := New(Options{DataDir: t.TempDir(), Settings: &memSettings{}, LookPath: lookIn(bin)})
	ctx := t.Context()
	if err := m.SetSettings(ctx, agent.BackendClaudeCode, AgentSettings{Env: map[string]string{"HTTPS_PROXY": "http://proxy:3128"}}); err != nil {
		t.Fatal(err)
	}
	l, err := m.Login(ctx, specOf(t, agent.BackendClaudeCode))
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != claude || !slices.Equal(l.Args, []string{"auth", "login"}) || l.Command != "claude auth login" {
		t.Errorf("login %+v", l)
	}
	for _, v := range []string{"TERM=xterm-256color", "HTTPS_PROXY=http://proxy:3128"} {
		if !slices.Contains(l.Env, v) {
			t.Errorf("login env lacks %s", v)
		}
	}
	// An API key only: refused, naming the key.
	_, err = m.Login(ctx, specOf(t, agent.BackendGemini))
	if !errors.Is(err, inputerr.ErrInvalid) || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Errorf("gemini login: %v", err)
	}
	// Not installed.
	_, err = m.Login(ctx, specOf(t, agent.BackendCodex))
	if err == nil || !strings.Contains(err.Error(), "is not installed") || errors.Is(err, inputerr.ErrInvalid) {
		t.Errorf("codex not installed: %v", err)
	}
}

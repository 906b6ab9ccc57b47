package acp

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// TestRealAgentAskAsks checks, on a real ACP agent, that the app's Ask mode
// asks before the command or edit the scripted model requests: a
// permission request arrives and a deny leaves the project untouched. It
// runs only when JC_ACP_REAL names the preset (gemini, codex or claude) and
// JC_ACP_REAL_BIN its binary, with the agent's environment (pointing it at a
// scripted model server) in JC_ACP_REAL_ENV as KEY=VALUE lines and the
// prompt in JC_ACP_REAL_PROMPT; docs/acp-gemini-codex.md shows how.
func TestRealAgentAskAsks(t *testing.T) {
	preset, bin := os.Getenv("JC_ACP_REAL"), os.Getenv("JC_ACP_REAL_BIN")
	if preset == "" || bin == "" {
		t.Skip("JC_ACP_REAL / JC_ACP_REAL_BIN not set (a manual check against a real agent)")
	}
	var cfg Config
	for _, p := range Presets() {
		if strings.HasSuffix(string(p.Name), "."+preset) {
			cfg = p
		}
	}
	if cfg.Name == "" {
		t.Fatalf("no preset %q", preset)
	}
	cfg.Command = bin
	if a := os.Getenv("JC_ACP_REAL_ARGS"); a != "" {
		cfg.Args = strings.Fields(a)
	}
	cfg.Env = map[string]string{}
	for _, l := range strings.Split(os.Getenv("JC_ACP_REAL_ENV"), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
			cfg.Env[k] = v
		}
	}
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("JC_ACP_REAL_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	before, _ := os.ReadDir(dir)
	ctx := context.Background()
	mode := agent.ModeAsk
	if os.Getenv("JC_ACP_REAL_NOMODE") != "" {
		mode = ""
	}
	s, err := b.Start(ctx, agent.Config{Cwd: dir, Mode: mode}, os.Getenv("JC_ACP_REAL_PROMPT"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Stop(ctx) }()
	c := collect(s)
	asked := 0
	answer := agent.Deny
	if os.Getenv("JC_ACP_REAL_ALLOW") != "" {
		answer = agent.Allow // then the project may change; the turn must end with no tool open
	}
	steps := map[string]*agent.Message{} // the last version of each assistant message
	deadline := time.Now().Add(150 * time.Second)
	next := 0
	for time.Now().Before(deadline) {
		c.mu.Lock()
		evs := c.events[next:]
		next = len(c.events)
		c.mu.Unlock()
		done := false
		for _, ev := range evs {
			switch ev.Type {
			case agent.EventPermissionRequest:
				asked++
				t.Logf("asked: %s (%s) options %v", ev.Request.ToolName, ev.Request.Description, ev.Request.PermissionOptions)
				if err := s.RespondToPermission(ctx, ev.Request.RequestID, agent.PermissionResponse{Behavior: answer}); err != nil {
					t.Errorf("deny: %v", err)
				}
			case agent.EventMessage:
				if ev.Message.Role == agent.RoleAssistant {
					steps[ev.Message.ID] = ev.Message
				}
			case agent.EventModeChange:
				t.Logf("mode: %s", ev.Mode)
			case agent.EventToolStateUpdate:
				t.Logf("tool %s: %s %s", ev.ToolID, ev.State, ev.Error)
			case agent.EventError:
				t.Logf("error (fatal=%v): %s", ev.Fatal, ev.Error)
				done = done || ev.Fatal
			case agent.EventComplete:
				t.Logf("complete: %+v", *ev.Result)
				done = true
			}
		}
		if done {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	after, _ := os.ReadDir(dir)
	var names []string
	for _, e := range after {
		names = append(names, e.Name())
	}
	t.Logf("project after: %v (before: %d entries)", names, len(before))
	if asked == 0 {
		t.Errorf("%s in Ask mode ran without asking", cfg.DisplayName)
	}
	for _, m := range steps {
		for _, p := range m.Parts {
			if p.Type == agent.PartToolUse && (p.State == agent.ToolPending || p.State == agent.ToolRunning) {
				t.Errorf("tool %s left %s", p.ToolID, p.State)
			}
		}
	}
	if answer == agent.Deny && len(after) != len(before) {
		t.Errorf("the project changed despite the deny: %v", names)
	}
}

package acp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// TestClaudePresetAsksCommands: the claude-code-acp preset carries the
// `_meta` that makes Claude Code ask before every Bash command, read-only
// ones included: a constant settings JSON with permissions.ask ["Bash"].
func TestClaudePresetAsksCommands(t *testing.T) {
	var meta map[string]any
	for _, c := range Presets() {
		if c.Name == "acp.anthropic.claude-code" {
			meta = c.SessionMeta
		} else if c.SessionMeta != nil {
			t.Errorf("preset %s has session meta %v", c.Name, c.SessionMeta)
		}
	}
	settings, _ := dig(meta, "claudeCode", "options", "extraArgs", "settings").(string)
	var s struct {
		Permissions struct{ Ask []string } `json:"permissions"`
	}
	if err := json.Unmarshal([]byte(settings), &s); err != nil || !reflect.DeepEqual(s.Permissions.Ask, []string{"Bash"}) {
		t.Errorf("claude-code-acp settings %q (%v), want permissions.ask [Bash]", settings, err)
	}
}

func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, _ := v.(map[string]any)
		v = mm[k]
	}
	return v
}

// TestSessionMetaSent: a config's SessionMeta is the `_meta` of
// session/new and of session/load, as the agent receives them (the raw
// frames the client wrote).
func TestSessionMetaSent(t *testing.T) {
	want := ClaudeAskCommandsMeta()
	b, err := New(Config{Name: "acp.test.fake", DisplayName: "Fake", Command: fakeAgent(t), SessionMeta: want})
	if err != nil {
		t.Fatal(err)
	}
	for method, sessionID := range map[string]string{"session/new": "", "session/load": "fake-old"} {
		t.Run(method, func(t *testing.T) {
			ctx := context.Background()
			s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), SessionID: sessionID, Mode: agent.ModeAsk}, "hi")
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = s.Stop(context.Background()) }()
			c := collect(s)
			c.waitFor(t, 0, "complete", isType(agent.EventComplete))
			got := sentParams(t, c, method)
			if got == nil {
				t.Fatalf("no %s frame written", method)
			}
			if !reflect.DeepEqual(got["_meta"], jsonRound(t, want)) {
				t.Errorf("%s _meta = %v, want %v", method, got["_meta"], want)
			}
		})
	}
}

// sentParams returns the params of the first request of method in the
// session's raw frames.
func sentParams(t *testing.T, c *collector, method string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		batches := append([]agent.Batch(nil), c.batches...)
		c.mu.Unlock()
		for _, b := range batches {
			if !strings.Contains(string(b.Frame), `"`+method+`"`) {
				continue
			}
			var f struct {
				Method string         `json:"method"`
				Params map[string]any `json:"params"`
			}
			if json.Unmarshal(b.Frame, &f) == nil && f.Method == method {
				return f.Params
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

func jsonRound(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

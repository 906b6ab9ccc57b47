package realcli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
)

// TestClaudeCodeACPFork: claude-code-acp advertises session/fork; the ACP
// backend's native fork (Config.ForkSession) then answers under a new
// session id, and a turn in the copy sends the model the parent's turn.
func TestClaudeCodeACPFork(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "claude-code-acp")
	proj := newProject(t)
	model, err := fakemodel.Start(fakemodel.Options{KeepBodies: true, Scripts: map[string]fakemodel.Script{
		"one": {{Text: "First answer."}}, "two": {{Text: "Copy answer."}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	var be agent.Backend
	for _, c := range acp.Presets() {
		if c.Name == "acp.anthropic.claude-code" {
			c.Command, c.Env = b, claudeEnv(t, model)
			if be, err = acp.New(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	if be == nil {
		t.Fatal("no claude-code-acp preset")
	}
	defer be.Dispose(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s, err := be.Start(ctx, agent.Config{Cwd: proj}, "[scenario:one] Say one.")
	if err != nil {
		t.Fatal(err)
	}
	parent := sessionUntilComplete(ctx, t, s)
	_ = s.Stop(context.Background())
	if !be.Info().Capabilities.Fork {
		t.Fatal("the backend does not say Capabilities.Fork after claude-code-acp's handshake")
	}
	f, err := be.Start(ctx, agent.Config{Cwd: proj, SessionID: parent, ForkSession: true}, "[scenario:two] And now?")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop(context.Background())
	fork := sessionUntilComplete(ctx, t, f)
	var body string
	for _, r := range model.Requests() {
		if r.Scenario == "two" {
			body = string(r.Body)
		}
	}
	if fork == "" || fork == parent {
		t.Errorf("fork session %q, parent %q", fork, parent)
	}
	if !strings.Contains(body, "Say one.") || !strings.Contains(body, "First answer.") {
		t.Errorf("the copy's turn did not send the parent's turn: %s", body)
	}
	t.Logf("parent %s, fork %s", parent, fork)
}

// sessionUntilComplete reads the session's events up to its turn's
// complete and returns the last session id announced.
func sessionUntilComplete(ctx context.Context, t *testing.T, s agent.Session) string {
	t.Helper()
	id := ""
	for {
		select {
		case bt, ok := <-s.Events():
			if !ok {
				t.Fatal("session ended before completing")
			}
			for _, ev := range bt.Events {
				switch ev.Type {
				case agent.EventSessionID:
					id = ev.SessionID
				case agent.EventError:
					t.Logf("error event: %s", ev.Error)
				case agent.EventComplete:
					return id
				}
			}
		case <-ctx.Done():
			t.Fatal("no completed turn")
		}
	}
}

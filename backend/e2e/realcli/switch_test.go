package realcli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/store"
)

// runSwitch runs the mode-switch steps on a task started in bypass mode:
// a read-only command runs unasked, then, switched to ask mode, the same
// command is asked before it runs, and a denied command does not run;
// switched back to bypass, it runs unasked again.
func (h *harness) runSwitch() {
	steps := []struct {
		name string
		fn   func(testing.TB)
	}{
		{"text", h.stepText},
		{"bypass-readonly", h.stepBypassReadOnly},
		{"switch-to-ask-readonly", h.stepSwitchAskReadOnly},
		{"switch-to-ask-deny", h.stepDeny},
		{"back-to-bypass-readonly", h.stepBackToBypass},
	}
	for _, s := range steps {
		h.t.Run(s.name, func(t *testing.T) {
			seq, _ := store.NextRawSeq(context.Background(), h.db.R, h.task)
			h.known = h.toolIDs(t)
			s.fn(t)
			if t.Failed() {
				h.logFrames(t, seq)
			}
			h.settle(t)
		})
	}
}

// ranCat returns this step's `cat hello.txt` tool calls with a successful
// result.
func (h *harness) ranCat(msgs []agent.Message) []string {
	var ran []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == agent.PartToolUse && !h.known[p.ToolID] && strings.Contains(string(p.Input), "cat hello.txt") &&
				toolFinished(msgs, p.ToolID) {
				ran = append(ran, p.ToolID)
			}
		}
	}
	return ran
}

func (h *harness) stepBypassReadOnly(t testing.TB) {
	h.send(t, "readonly", "[scenario:readonly] Show me hello.txt.")
	asked := h.answerUntilIdle(t, 3*time.Minute, allowOnce)
	msgs := h.messages(t)
	ran := h.ranCat(msgs)
	t.Logf("bypass: asked for %v, ran %v", asked, ran)
	if len(asked) != 0 {
		t.Errorf("BYPASS ASKED for %v", asked)
	}
	if h.c.bypassAllows { // the agent asks in bypass; the app answers
		ds, _ := h.orch.Decisions(context.Background(), h.task)
		if len(ds) == 0 || ds[len(ds)-1].Source != store.SourceMode {
			t.Errorf("no request allowed by the bypass mode stored: %+v", ds)
		}
	}
	if len(ran) == 0 {
		t.Error("bypass: `cat hello.txt` has no successful result stored")
	}
	wantStatus(t, h, store.StatusCompleted)
	wantText(t, msgs, readonlyDone)
	h.checkClosed(t)
}

func (h *harness) stepSwitchAskReadOnly(t testing.TB) {
	if err := h.orch.SetMode(context.Background(), h.task, agent.ModeAsk); err != nil {
		t.Fatalf("set mode ask: %v", err)
	}
	h.c.asks = true
	h.stepAskReadOnly(t)
}

// stepBackToBypass: switched back to bypass, nothing is asked (Claude Code
// accepts the switch: the session was launched in bypass).
func (h *harness) stepBackToBypass(t testing.TB) {
	if err := h.orch.SetMode(context.Background(), h.task, agent.ModeBypass); err != nil {
		t.Logf("set mode bypass: %v", err)
	}
	h.stepBypassReadOnly(t)
}

// TestClaudeCodeSwitchToAsk: a Claude Code task started in bypass mode and
// switched to ask asks before every command, read-only ones included.
func TestClaudeCodeSwitchToAsk(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "claude")
	withSwitch(t, func(model *fakemodel.Server, _ string) agentCase {
		return agentCase{format: "claude-code", mode: agent.ModeBypass, asks: true, bypassAllows: true,
			mk: wrapped(t, agent.BackendClaudeCode, claudeEnv(t, model), claude.New(claude.Options{Binary: b}))}
	})
}

// withSwitch is withModel for runSwitch; the project holds hello.txt.
func withSwitch(t *testing.T, c func(model *fakemodel.Server, proj string) agentCase) {
	withHello(t, c, (*harness).runSwitch)
}

// withHello starts the model server and a harness on a project holding
// hello.txt (what the readonly scenario reads), then runs steps.
func withHello(t *testing.T, c func(model *fakemodel.Server, proj string) agentCase, steps func(*harness)) {
	proj := newProject(t)
	if err := os.WriteFile(filepath.Join(proj, "hello.txt"), []byte("Hello from the fake model!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := startModel(t, proj)
	steps(newHarness(t, proj, model, c(model, proj)))
}

// TestClaudeCodeACPSwitchToAsk: the same on claude-code-acp, whose own
// bypassPermissions mode allows every request itself (nothing reaches the
// app), and whose session/new `_meta` carries the ask rule in every mode.
func TestClaudeCodeACPSwitchToAsk(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "claude-code-acp")
	withSwitch(t, func(model *fakemodel.Server, _ string) agentCase {
		name := agent.BackendType("acp.anthropic.claude-code")
		return agentCase{format: "acp", mode: agent.ModeBypass, asks: true,
			mk: wrapped(t, name, claudeEnv(t, model), acpBackend(t, name, b))}
	})
}

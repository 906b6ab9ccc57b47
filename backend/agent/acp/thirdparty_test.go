package acp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Agents written by others, driven through the backend: prompt →
// permission → allow → end_turn; again (the example agents reuse their tool
// call ids every turn) → deny → end_turn; again → cancel while the
// permission is pending. After each turn no tool call is left open.

// goExampleAgent builds coder/acp-go-sdk's example agent from the module
// this package already depends on.
func goExampleAgent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "example-agent")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/coder/acp-go-sdk/example/agent").CombinedOutput()
	if err != nil {
		t.Fatalf("building coder/acp-go-sdk/example/agent: %v\n%s", err, out)
	}
	return bin
}

// tsSDKVersion is the newest @agentclientprotocol/sdk that still ships its
// example agent (dist/examples/agent.js; 2.x no longer does).
const tsSDKVersion = "1.9.0"

// tsExampleAgent installs @agentclientprotocol/sdk with npm into the
// repository's .tools (once) and returns node and the example's path. It
// skips loudly when node or npm is missing or the install fails.
func tsExampleAgent(t *testing.T) (string, string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIPPED: node not found; the TypeScript SDK's example agent cannot run")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", ".tools", "acp-ts-"+tsSDKVersion))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "dist", "examples", "agent.js")
	if _, err := os.Stat(script); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Skip("SKIPPED: npm not found; cannot install @agentclientprotocol/sdk@" + tsSDKVersion)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", dir, "@agentclientprotocol/sdk@"+tsSDKVersion).CombinedOutput()
		if err != nil {
			t.Skipf("SKIPPED: npm install @agentclientprotocol/sdk@%s failed: %v\n%s", tsSDKVersion, err, out)
		}
	}
	return node, script
}

func TestThirdPartyGoExampleAgent(t *testing.T) {
	t.Parallel()
	runThirdParty(t, Config{Name: "acp.coder.example", DisplayName: "acp-go-sdk example", Command: goExampleAgent(t)})
}

func TestThirdPartyTSExampleAgent(t *testing.T) {
	t.Parallel()
	node, script := tsExampleAgent(t)
	runThirdParty(t, Config{Name: "acp.acp.ts-example", DisplayName: "TS SDK example", Command: node, Args: []string{script}})
}

func runThirdParty(t *testing.T, cfg Config) {
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir()}, "allow")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(ctx) })
	c := collect(s)

	// allow
	ev, next := c.waitFor(t, 0, "permission request", isType(agent.EventPermissionRequest))
	first := ev.Request.RequestID
	if err := s.RespondToPermission(ctx, first, agent.PermissionResponse{Behavior: agent.Allow}); err != nil {
		t.Fatal(err)
	}
	ev, next = c.waitFor(t, next, "complete", isType(agent.EventComplete))
	if ev.Result.Reason != "end_turn" {
		t.Errorf("allow turn: %+v", ev.Result)
	}
	tools := c.toolStates(next)
	checkTools(t, "allow", tools, map[string]agent.ToolState{"call_1": agent.ToolCompleted, "call_2": agent.ToolCompleted})

	// deny, with the same tool call ids as the first turn
	if err := s.SendMessage(ctx, "deny"); err != nil {
		t.Fatal(err)
	}
	ev, next = c.waitFor(t, next, "permission request", isType(agent.EventPermissionRequest))
	if ev.Request.RequestID == first {
		t.Errorf("second permission request reuses id %s", first)
	}
	if err := s.RespondToPermission(ctx, ev.Request.RequestID, agent.PermissionResponse{Behavior: agent.Deny}); err != nil {
		t.Fatal(err)
	}
	ev, next = c.waitFor(t, next, "complete", isType(agent.EventComplete))
	if ev.Result.Reason != "end_turn" || ev.Result.Interrupted {
		t.Errorf("deny turn: %+v", ev.Result)
	}
	checkTools(t, "deny", c.toolStates(next), map[string]agent.ToolState{"call_1": agent.ToolCompleted, "call_2": agent.ToolDenied})

	// cancel while the permission is pending
	if err := s.SendMessage(ctx, "cancel"); err != nil {
		t.Fatal(err)
	}
	_, next = c.waitFor(t, next, "permission request", isType(agent.EventPermissionRequest))
	if err := s.Interrupt(ctx); err != nil {
		t.Fatal(err)
	}
	ev, next = c.waitFor(t, next, "complete", isType(agent.EventComplete))
	if !ev.Result.Interrupted {
		t.Errorf("cancel turn: %+v", ev.Result)
	}
	checkTools(t, "cancel", c.toolStates(next), map[string]agent.ToolState{"call_1": agent.ToolCompleted, "call_2": agent.ToolCancelled})
}

// toolStates is, for the last turn's assistant messages (its steps) whole
// before index end, the state of each tool call.
func (c *collector) toolStates(end int) map[string]agent.ToolState {
	m := map[string]agent.ToolState{}
	for _, msg := range c.lastTurn(end) {
		for _, p := range msg.Parts {
			if p.Type == agent.PartToolUse {
				m[p.ToolID] = p.State
			}
		}
	}
	return m
}

func checkTools(t *testing.T, turn string, got, want map[string]agent.ToolState) {
	t.Helper()
	for id, st := range got {
		if st == agent.ToolPending || st == agent.ToolRunning {
			t.Errorf("%s turn: tool %s left %s", turn, id, st)
		}
	}
	for id, st := range want {
		if got[id] != st {
			t.Errorf("%s turn: tool %s is %q, want %q (all: %v)", turn, id, got[id], st, got)
		}
	}
}

package realcli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
	"github.com/jean-claude/jean-claude/backend/agent/gemini"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// mcpCase is one agent whose scripted model calls the app's
// report_progress tool under the agent's own name for it.
type mcpCase struct {
	name      agent.BackendType
	tool      string // the agent's name for report_progress
	taskModel string
	// asks: in Ask mode the agent asks before running the app's tools
	// (the ACP agents: their own permission flow); false: they run
	// without a prompt (Codex and Gemini CLI: the app configures them so).
	asks bool
	mk   func(model *fakemodel.Server) func(db *store.DB) agent.Backend
	// project: the project the task runs in when mk needs to know it
	// (OpenCode's checks); "" for a new one.
	project string
	// For runMCPAcrossRestart: relayDir, the relays' directory when mk
	// needs it ("" for a new one); perTurn, the agent runs a process per
	// turn (headless Gemini CLI), so nothing outlives the app between
	// turns; shared, the sessions live on a shared server (OpenCode):
	// its relay outlives the app, and an idle task has no process of its
	// own to adopt.
	relayDir        string
	perTurn, shared bool
}

// runProgressMCP runs c in Ask mode: the model calls c.tool, then answers
// mcpDone. The progress report and the tool call must be stored, no raw
// frame may hold the token; permission requests are answered "allow once"
// and returned (the caller checks what the agent asked).
func runProgressMCP(t *testing.T, c mcpCase) []string {
	t.Helper()
	proj := newProject(t)
	model, err := fakemodel.Start(fakemodel.Options{Scripts: map[string]fakemodel.Script{"mcpp": {
		{Text: mcpFirst, Tools: []fakemodel.ToolCall{fakemodel.Named(c.tool, map[string]any{"message": mcpProgress})}},
		{Text: mcpDone},
	}}, KeepBodies: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	h := mcpHarness(t, model, proj, c.mk(model), c.name, c.taskModel, "[scenario:mcpp] Report progress.")
	asked := h.answerUntilIdle(t, 4*time.Minute, allowOnce)
	msgs := h.messages(t)
	wantText(t, msgs, mcpDone)
	var progress, called, done bool
	var id string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == agent.PartSystemStatus && p.Subtype == orchestrator.SubtypeProgress && p.Text == mcpProgress {
				progress = true
			}
			if p.Type == agent.PartToolUse && strings.Contains(p.ToolName, "report_progress") {
				called, id = true, p.ToolID
			}
		}
	}
	if called {
		done = toolFinished(msgs, id)
	}
	if !progress || !called || !done {
		t.Errorf("progress stored %v, tool call stored %v, tool finished %v", progress, called, done)
	}
	noTokenStored(t, h)
	t.Logf("permissions asked: %v", asked)
	if c.asks != (len(asked) > 0) {
		t.Errorf("permissions asked %v, want asked: %v", asked, c.asks)
	}
	if t.Failed() {
		for i, r := range model.Requests() {
			t.Logf("model request %s turn %d tools %v", r.API, r.Turn, r.Tools)
			if d := os.Getenv("JC_REALCLI_DUMP"); d != "" { // the full bodies, to debug a CLI's tool list
				_ = os.WriteFile(filepath.Join(d, fmt.Sprintf("%s-%d.json", t.Name(), i)), r.Body, 0o600)
			}
		}
		h.logRequests(t, 0)
		h.logFrames(t, 0)
	}
	return asked
}

// TestCodexMCP: `codex app-server` gets the server in thread/start's
// config (mcp_servers.jean-claude, bearer_token_env_var).
func TestCodexMCP(t *testing.T) {
	t.Parallel()
	_ = runProgressMCP(t, codexMCP(t))
}

// codexMCP is `codex app-server`'s case.
func codexMCP(t *testing.T) mcpCase {
	b := bin(t, binDir(t), "codex")
	return mcpCase{name: agent.BackendCodex, tool: "mcp__jean-claude__report_progress",
		mk: func(model *fakemodel.Server) func(db *store.DB) agent.Backend {
			return wrapped(t, agent.BackendCodex, codexEnv(t, model), codex.New(codex.Options{Binary: b}))
		}}
}

// TestGeminiMCP: headless Gemini CLI gets the server from the system
// settings file (GEMINI_CLI_SYSTEM_SETTINGS_PATH, trust: true).
func TestGeminiMCP(t *testing.T) {
	t.Parallel()
	_ = runProgressMCP(t, geminiMCP(t))
}

// geminiMCP is headless Gemini CLI's case (a process per turn).
func geminiMCP(t *testing.T) mcpCase {
	b := bin(t, binDir(t), "gemini")
	return mcpCase{name: agent.BackendGemini, tool: "mcp_jean-claude_report_progress", perTurn: true,
		mk: func(model *fakemodel.Server) func(db *store.DB) agent.Backend {
			return wrapped(t, agent.BackendGemini, geminiEnv(t, model), gemini.New(gemini.Options{Binary: b}))
		}}
}

// acpMCP is an ACP preset's case (mcpServers on session/new).
func acpMCP(t *testing.T, name agent.BackendType, binary, tool string, env func(*testing.T, *fakemodel.Server) map[string]string) mcpCase {
	return mcpCase{name: name, tool: tool, asks: true, mk: func(model *fakemodel.Server) func(db *store.DB) agent.Backend {
		return wrapped(t, name, env(t, model), acpBackend(t, name, binary))
	}}
}

func TestGeminiACPMCP(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "gemini")
	_ = runProgressMCP(t, acpMCP(t, "acp.google.gemini", b, "mcp_jean-claude_report_progress", geminiEnv))
}

func TestCodexACPMCP(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "codex-acp")
	_ = runProgressMCP(t, acpMCP(t, "acp.openai.codex", b, "mcp__jean-claude__report_progress", codexEnv))
}

func TestClaudeCodeACPMCP(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "claude-code-acp")
	_ = runProgressMCP(t, acpMCP(t, "acp.anthropic.claude-code", b, "mcp__jean-claude__report_progress", claudeEnv))
}

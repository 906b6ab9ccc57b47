package remote_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
	"github.com/jean-claude/jean-claude/backend/store"
)

// codexOnHost installs the real CLI name (JC_REALCLI_BIN) in the host's
// ~/.local/bin and writes the host's ~/.codex/config.toml: a "fake" model
// provider (Responses API) at the repository's fake model server (the
// sshd's "host" shares this machine's loopback). The API key comes in the
// agent's environment only.
func codexOnHost(t *testing.T, name string) (*remoteEnv, string) {
	e, model, answer := realCLIOnHost(t, name)
	must(t, os.MkdirAll(filepath.Join(e.srv.Home, ".codex"), 0o700))
	must(t, os.WriteFile(filepath.Join(e.srv.Home, ".codex", "config.toml"), fmt.Appendf(nil, `model = "gpt-5.5"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake model server"
base_url = %q
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 1
stream_max_retries = 1

[analytics]
enabled = false

[feedback]
enabled = false
`, model.OpenAIBaseURL()), 0o600))
	return e, answer
}

// realTurnOnHost runs one text turn of backend b on the host through the
// orchestrator: the answer stored and normalized, the turn completed;
// after Stop and the app's quit nothing is left there, and the API key is
// in no file of the host.
func realTurnOnHost(t *testing.T, e *remoteEnv, b agent.BackendType, answer string) {
	ctx := context.Background()
	o := e.orchestrator(t, false)
	defer o.Close(ctx)
	id := e.startTaskWith(t, o, b, "[scenario:text] Say hello.")
	tr := waitTask(t, e.db, id, "the turn to end", func(tr store.TaskRun) bool {
		return tr.Status != store.StatusRunning
	})
	t.Logf("turn: %s %q", tr.Status, tr.StatusReason)
	var n int
	must(t, e.db.R.QueryRow(`SELECT COUNT(*) FROM agent_messages WHERE taskId = ? AND normalizedData LIKE ?`, id, "%"+answer+"%").Scan(&n))
	if tr.Status != store.StatusCompleted || n == 0 {
		t.Fatalf("the real CLI's answer is not stored: %s %q (%d messages)\n%s", tr.Status, tr.StatusReason, n, storedFrames(t, e, id))
	}
	must(t, o.Stop(ctx, id))
	must(t, o.Close(ctx))
	must(t, e.reg.Dispose(ctx))
	if left := e.srv.WaitNoRemoteProcesses(ctx, 20*time.Second); len(left) > 0 {
		t.Fatalf("processes left on the host: %v", left)
	}
	if hits := grepTree(e.srv.Home, e.secret); len(hits) > 0 {
		t.Fatalf("the API key was written on the host: %v", hits)
	}
}

// The real `codex app-server` runs a text turn on the host.
func TestRealCodexOnHost(t *testing.T) {
	e, answer := codexOnHost(t, "codex")
	e.reg.Register(withEnv{codex.New(codex.Options{Binary: "/nowhere/codex"}), map[string]string{"OPENAI_API_KEY": e.secret, "RUST_LOG": "warn"}})
	realTurnOnHost(t, e, agent.BackendCodex, answer)
}

// The real codex-acp (the "Codex (ACP)" preset) runs a text turn on the
// host: an ACP agent offered no client file system there.
func TestRealCodexACPOnHost(t *testing.T) {
	e, answer := codexOnHost(t, "codex-acp")
	name := agent.BackendType("acp.openai.codex")
	b := acpPreset(t, name, "/nowhere/codex-acp")
	e.reg.Register(withEnv{b, map[string]string{"OPENAI_API_KEY": e.secret, "RUST_LOG": "warn"}})
	realTurnOnHost(t, e, name, answer)
}

// The real claude-code-acp (the "Claude Code (ACP)" preset) runs a text
// turn on the host, its model server and API key in the agent's
// environment.
func TestRealClaudeCodeACPOnHost(t *testing.T) {
	e, model, answer := realCLIOnHost(t, "claude-code-acp")
	name := agent.BackendType("acp.anthropic.claude-code")
	e.reg.Register(withEnv{acpPreset(t, name, "/nowhere/claude-code-acp"), map[string]string{
		"ANTHROPIC_BASE_URL": model.URL(), "ANTHROPIC_API_KEY": e.secret, "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
		"DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_MAX_RETRIES": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "IS_SANDBOX": "1"}})
	realTurnOnHost(t, e, name, answer)
}

// acpPreset is the app's ACP preset name, run as command.
func acpPreset(t *testing.T, name agent.BackendType, command string) agent.Backend {
	for _, c := range acp.Presets() {
		if c.Name == name {
			c.Command = command
			b, err := acp.New(c)
			must(t, err)
			return b
		}
	}
	t.Fatalf("no ACP preset %s", name)
	return nil
}

// realCLIBin is the real agent CLIs' folder (JC_REALCLI_BIN); the test is
// skipped without it.
func realCLIBin(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("JC_REALCLI_BIN")
	if dir == "" {
		t.Skip("SKIPPED: set JC_REALCLI_BIN to the real agent CLIs' folder (backend/e2e/realcli/test-agents.sh)")
	}
	return dir
}

// realCLIOnHost is a host with the real CLI name installed in its
// ~/.local/bin and the repository's fake model server answering the
// "text" scenario with answer (the sshd's "host" shares this machine's
// loopback).
func realCLIOnHost(t *testing.T, name string) (e *remoteEnv, model *fakemodel.Server, answer string) {
	t.Helper()
	dir := realCLIBin(t)
	answer = "Plain answer: hello from the fake model on the host."
	model, err := fakemodel.Start(fakemodel.Options{Scripts: map[string]fakemodel.Script{"text": {{Text: answer}}}})
	must(t, err)
	t.Cleanup(func() { model.Close() })
	e = newHostEnv(t)
	installOnHost(t, e.srv, filepath.Join(dir, name))
	return e, model, answer
}

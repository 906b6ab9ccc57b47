package realcli

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
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
	"github.com/jean-claude/jean-claude/backend/agent/gemini"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Every agent runs the same steps (see harness.run) on its own project,
// model server and store, in parallel with the others.

func startModel(t *testing.T, proj string) *fakemodel.Server {
	t.Helper()
	m, err := fakemodel.Start(fakemodel.Options{Scripts: scripts(proj), KeepBodies: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// wrapped returns c.mk for a backend whose environment is the agent's
// stored settings (the Agents page), applied at Start by agentmgr's
// wrapper: the CLI reaching the model server proves the settings reach the
// real process.
func wrapped(t *testing.T, name agent.BackendType, env map[string]string, b agent.Backend) func(db *store.DB) agent.Backend {
	return func(db *store.DB) agent.Backend {
		m := agentmgr.New(agentmgr.Options{DataDir: t.TempDir(), Settings: agentmgr.DBSettings(db)})
		if err := m.SetSettings(context.Background(), name, agentmgr.AgentSettings{Env: env}); err != nil {
			t.Fatal(err)
		}
		return m.Wrap(b)
	}
}

// acpBackend is the app's preset of that name (its arguments, mode
// arguments and quirks, as users get it), run from binary.
func acpBackend(t *testing.T, name agent.BackendType, binary string) agent.Backend {
	for _, c := range acp.Presets() {
		if c.Name == name {
			c.Command = binary
			b, err := acp.New(c)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("no ACP preset %s", name)
	return nil
}

// claudeEnv is Claude Code's (and claude-code-acp's) environment.
func claudeEnv(t *testing.T, model *fakemodel.Server) map[string]string {
	home := t.TempDir()
	return map[string]string{
		"HOME": home, "TMPDIR": t.TempDir(), "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"ANTHROPIC_BASE_URL": model.URL(), "ANTHROPIC_API_KEY": "test",
		"DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_MAX_RETRIES": "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		// As root (CI containers) Claude Code refuses to run unless told it is sandboxed.
		"IS_SANDBOX": "1",
	}
}

// geminiEnv is Gemini CLI's environment: an API key, the model server as
// GOOGLE_GEMINI_BASE_URL, and a settings.json that turns off updates,
// telemetry and folder trust.
func geminiEnv(t *testing.T, model *fakemodel.Server) map[string]string {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false, "maxAttempts": 1},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}}
}`
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"HOME": home, "TMPDIR": t.TempDir(), "GEMINI_API_KEY": "test",
		"GOOGLE_GEMINI_BASE_URL": model.URL(), "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_BROWSER": "1"}
}

// codexEnv is Codex's (and codex-acp's) environment: a CODEX_HOME whose
// config.toml points a "fake" model provider (Responses API) at the model
// server.
func codexEnv(t *testing.T, model *fakemodel.Server) map[string]string {
	home, codexHome := t.TempDir(), t.TempDir()
	cfg := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake model server"
base_url = %q
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 1
stream_max_retries = 1
stream_idle_timeout_ms = 120000

[analytics]
enabled = false

[feedback]
enabled = false
`, model.OpenAIBaseURL())
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"HOME": home, "CODEX_HOME": codexHome, "OPENAI_API_KEY": "test", "RUST_LOG": "warn", "TMPDIR": t.TempDir()}
}

// withModel starts the agent's own model server first (the env needs its
// URL) and runs the steps.
func withModel(t *testing.T, c func(model *fakemodel.Server, proj string) agentCase) {
	proj := newProject(t)
	model := startModel(t, proj)
	h := newHarness(t, proj, model, c(model, proj))
	h.run()
}

func TestClaudeCode(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "claude")
	t.Logf("claude --version: %s", version(t, b))
	withModel(t, func(model *fakemodel.Server, _ string) agentCase {
		return agentCase{format: "claude-code", asks: true, wantAsked: []string{"Write", "Bash"},
			mk: wrapped(t, agent.BackendClaudeCode, claudeEnv(t, model), claude.New(claude.Options{Binary: b}))}
	})
}

func TestOpenCode(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "opencode")
	t.Logf("opencode --version: %s", version(t, b))
	withModel(t, func(model *fakemodel.Server, proj string) agentCase {
		mk := openCodeBackend(t, b, model, proj)
		return agentCase{format: "opencode", asks: true, wantAsked: []string{"edit", "bash"}, taskModel: "fake/fake-basic", mk: mk}
	})
}

// TestGeminiHeadless: `gemini -p ... --output-format stream-json`, one
// process per turn. Headless Gemini cannot ask: the task runs in bypass
// mode (yolo) and the deny step switches it to ask mode, where the CLI
// must refuse the command by itself.
func TestGeminiHeadless(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "gemini")
	t.Logf("gemini --version: %s", version(t, b))
	withModel(t, func(model *fakemodel.Server, _ string) agentCase {
		return agentCase{format: "gemini", mode: agent.ModeBypass,
			mk: wrapped(t, agent.BackendGemini, geminiEnv(t, model), gemini.New(gemini.Options{Binary: b}))}
	})
}

// TestGeminiACP: `gemini --acp`, the "Gemini CLI (ACP)" preset.
func TestGeminiACP(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "gemini")
	withModel(t, func(model *fakemodel.Server, _ string) agentCase {
		name := agent.BackendType("acp.google.gemini")
		return agentCase{format: "acp", asks: true,
			mk: wrapped(t, name, geminiEnv(t, model), acpBackend(t, name, b))}
	})
}

// TestCodex: `codex app-server`.
func TestCodex(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "codex")
	t.Logf("codex --version: %s", version(t, b))
	withModel(t, func(model *fakemodel.Server, _ string) agentCase {
		return agentCase{format: "codex-app-server", asks: true,
			mk: wrapped(t, agent.BackendCodex, codexEnv(t, model), codex.New(codex.Options{Binary: b}))}
	})
}

// TestCodexACP: @zed-industries/codex-acp, the "Codex (ACP)" preset.
func TestCodexACP(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "codex-acp")
	withModel(t, func(model *fakemodel.Server, _ string) agentCase {
		name := agent.BackendType("acp.openai.codex")
		return agentCase{format: "acp", asks: true,
			mk: wrapped(t, name, codexEnv(t, model), acpBackend(t, name, b))}
	})
}

// TestClaudeCodeACP: @zed-industries/claude-code-acp, the "Claude Code
// (ACP)" preset.
func TestClaudeCodeACP(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "claude-code-acp")
	withModel(t, func(model *fakemodel.Server, _ string) agentCase {
		name := agent.BackendType("acp.anthropic.claude-code")
		return agentCase{format: "acp", asks: true,
			mk: wrapped(t, name, claudeEnv(t, model), acpBackend(t, name, b))}
	})
}

// openCodeBackend is the app's OpenCode path for the suite: the binary and
// environment are the agent's stored settings; the shared server is
// (re)built from them by agentmgr at the first Start, with the config
// generated into the data dir, never the project. With relays the server
// runs behind a relay there, as the app runs it (it outlives the app).
func openCodeBackend(t *testing.T, b string, model *fakemodel.Server, proj string, relays ...*relay.Transport) func(db *store.DB) agent.Backend {
	var rt *relay.Transport
	if len(relays) > 0 {
		rt = relays[0]
	}
	home, data := t.TempDir(), t.TempDir()
	t.Cleanup(func() {
		if _, err := os.Stat(filepath.Join(proj, "opencode.json")); err == nil {
			t.Error("an opencode.json was written into the project")
		}
	})
	// The app's path: the binary and the environment are the agent's
	// stored settings; the shared server is (re)built from them by
	// agentmgr at the first Start, with the config generated into the
	// data dir, never the project.
	mk := func(db *store.DB) agent.Backend {
		ctx := context.Background()
		m := agentmgr.New(agentmgr.Options{DataDir: data, Settings: agentmgr.DBSettings(db)})
		cfgPath, err := agentmgr.WriteOpenCodeConfig(data, "realcli", agentmgr.OpenCodeConfig{
			Mode: agent.ModeAsk,
			Provider: &agentmgr.OpenAICompatible{ID: "fake", Name: "Fake Model Server", BaseURL: model.OpenAIBaseURL(),
				APIKey: "test", Models: []string{"fake-basic"}},
			Model: "fake/fake-basic",
		})
		if err != nil {
			t.Fatal(err)
		}
		err = m.SetSettings(ctx, agent.BackendOpenCode, agentmgr.AgentSettings{BinaryPath: b, Env: map[string]string{
			"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".local/share"),
			"XDG_CACHE_HOME": filepath.Join(home, ".cache"), "XDG_STATE_HOME": filepath.Join(home, ".local/state"),
			"OPENCODE_CONFIG":             cfgPath,
			"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
			"OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1",
			"OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
		}})
		if err != nil {
			t.Fatal(err)
		}
		spec := agentmgr.Specs(nil)[1]
		rebuild := func(bin string) agent.Backend {
			env, err := m.OpenCodeServerEnv(ctx)
			if err != nil {
				t.Error(err)
			}
			return opencode.New(opencode.Options{Binary: bin, Env: env, HealthTimeout: 5 * time.Minute,
				ReconnectMin: 100 * time.Millisecond, ReconnectMax: time.Second, Relays: rt})
		}
		if rt != nil {
			// Built at startup from the stored settings, as the app does
			// (agentmgr.WrapRegistry): it adopts the server a previous
			// app left before any Start.
			return m.Rebuilding(spec, rebuild(b), b, rebuild).ServerWide(ctx)
		}
		// Built at "startup" without a binary: the first Start rebuilds it.
		return m.Rebuilding(spec, opencode.New(opencode.Options{}), "", rebuild).ServerWide(ctx)
	}
	return mk
}

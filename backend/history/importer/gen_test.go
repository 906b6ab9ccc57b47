package importer_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
)

// TestGenerateFixtures runs the real agent CLIs (from $JC_REALCLI_BIN, the
// folder `make test-agents` installs them into: .tools/agents/node_modules/.bin)
// against the scripted model server, and copies the sessions they saved on
// disk into testdata/. Run it by hand when a CLI version changes:
//
//	JC_REALCLI_BIN=$PWD/.tools/agents/node_modules/.bin JC_IMPORT_GEN=1 go test ./backend/history/importer -run TestGenerateFixtures -v
//
// then `go test ./backend/history/importer -update` for the golden files.
func TestGenerateFixtures(t *testing.T) {
	bin := os.Getenv("JC_REALCLI_BIN")
	if bin == "" || os.Getenv("JC_IMPORT_GEN") != "1" {
		t.Skip("set JC_REALCLI_BIN and JC_IMPORT_GEN=1 to regenerate the import fixtures with the real CLIs")
	}
	only := os.Getenv("JC_IMPORT_GEN_ONLY") // one format, e.g. codex
	run := func(name string, gen func(*testing.T, string), cli string) {
		if only == "" || only == name {
			t.Run(name, func(t *testing.T) { gen(t, filepath.Join(bin, cli)) })
		}
	}
	run("claude-code", genClaude, "claude")
	run("opencode", genOpenCode, "opencode")
	run("codex", genCodex, "codex")
	run("gemini", genGemini, "gemini")
}

// genEnv is a private HOME and the model server's address.
func genEnv(home, url string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + filepath.Join(home, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(home, ".local/state"),
		"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=test", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	}
}

func runCLI(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// genClaude runs two turns of one Claude Code session (a write, a shell
// command, then a resumed follow-up) in a project folder and copies
// ~/.claude/projects/<folder>/<session>.jsonl to testdata/claude-code/.
func genClaude(t *testing.T, claude string) {
	home := t.TempDir()
	proj := filepath.Join(home, "work", "demo_project")
	if err := os.MkdirAll(filepath.Join(home, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	model, err := fakemodel.Start(fakemodel.Options{Scripts: map[string]fakemodel.Script{
		"import": {
			{Thinking: "Write the file first, then check it.", Text: "I'll create notes.md for you.", Tools: []fakemodel.ToolCall{
				fakemodel.Write(filepath.Join(proj, "notes.md"), "# Notes\nparse_config_file() café 東京\n")}},
			{Text: "Written. Now a shell command.", Tools: []fakemodel.ToolCall{fakemodel.Shell("wc -l notes.md", "Count lines")}},
			{Text: "Done: notes.md has 2 lines."},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	env := genEnv(home, model.URL())
	out := runCLI(t, proj, env, claude, "-p", "[scenario:import] Create notes.md with a café note", "--output-format", "json",
		"--permission-mode", "acceptEdits", "--allowedTools", "Write,Bash", "--model", "claude-sonnet-4-5")
	t.Logf("first turn: %s", out)
	matches, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	if len(matches) != 1 {
		t.Fatalf("sessions on disk: %v", matches)
	}
	id := strings.TrimSuffix(filepath.Base(matches[0]), ".jsonl")
	out = runCLI(t, proj, env, claude, "-p", "And what is in it?", "--resume", id, "--output-format", "json",
		"--permission-mode", "acceptEdits", "--allowedTools", "Write,Bash", "--model", "claude-sonnet-4-5")
	t.Logf("second turn: %s", out)
	copyTree(t, filepath.Join(home, ".claude", "projects"), filepath.Join("testdata", "claude-code", "home", ".claude", "projects"))
	if err := os.WriteFile(filepath.Join("testdata", "claude-code", "cwd.txt"), []byte(proj+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// genOpenCode runs one `opencode run` turn (a write and a shell command)
// against the model server's OpenAI-compatible API and copies OpenCode's
// data folder (~/.local/share/opencode) to testdata/opencode/.
func genOpenCode(t *testing.T, oc string) {
	home := t.TempDir()
	proj := filepath.Join(home, "work", "oc_project")
	for _, d := range []string{proj, filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	model, err := fakemodel.Start(fakemodel.Options{Scripts: map[string]fakemodel.Script{
		"import": {
			{Text: "I'll create notes.md.", Tools: []fakemodel.ToolCall{fakemodel.Write(filepath.Join(proj, "notes.md"), "# Notes\nparse_config_file() café 東京\n")}},
			{Text: "Now a shell command.", Tools: []fakemodel.ToolCall{fakemodel.Shell("wc -l notes.md", "Count lines")}},
			{Text: "Done: notes.md has 2 lines."},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	cfg, err := agentmgr.WriteOpenCodeConfig(t.TempDir(), "gen", agentmgr.OpenCodeConfig{Mode: agent.ModeBypass,
		Provider: &agentmgr.OpenAICompatible{ID: "fake", Name: "Fake Model Server", BaseURL: model.OpenAIBaseURL(), APIKey: "test", Models: []string{"fake-basic"}},
		Model:    "fake/fake-basic"})
	if err != nil {
		t.Fatal(err)
	}
	env := append(genEnv(home, model.URL()), "OPENCODE_CONFIG="+cfg, "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1", "OPENCODE_DISABLE_EXTERNAL_SKILLS=1")
	out := runCLI(t, proj, env, oc, "run", "--model", "fake/fake-basic", "[scenario:import] Create notes.md with a café note")
	t.Logf("opencode run: %s", out)
	dst := filepath.Join("testdata", "opencode", "home", ".local", "share", "opencode")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"opencode.db", "opencode.db-wal", "opencode.db-shm"} {
		b, err := os.ReadFile(filepath.Join(home, ".local", "share", "opencode", f))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join("testdata", "opencode", "cwd.txt"), []byte(proj+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// genScript is the two-tool scenario every generator plays.
func genScript(proj string) map[string]fakemodel.Script {
	return map[string]fakemodel.Script{
		"import": {
			{Text: "I'll create notes.md.", Tools: []fakemodel.ToolCall{fakemodel.Write(filepath.Join(proj, "notes.md"), "# Notes\nparse_config_file() café 東京\n")}},
			{Text: "Now a shell command.", Tools: []fakemodel.ToolCall{fakemodel.Shell("wc -l notes.md", "Count lines")}},
			{Text: "Done: notes.md has 2 lines."},
		},
	}
}

// genCodex runs `codex exec` (a write and a shell command), then `codex
// exec resume` for a follow-up, against the model server's Responses API,
// and copies $CODEX_HOME/sessions to testdata/codex/.
func genCodex(t *testing.T, codexBin string) {
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	proj := filepath.Join(home, "work", "codex_project")
	for _, d := range []string{proj, codexHome, filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runCLI(t, proj, nil, "git", "init", "-q")
	model, err := fakemodel.Start(fakemodel.Options{Scripts: genScript(proj)})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	cfg := `model = "gpt-5.5"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake model server"
base_url = "` + model.OpenAIBaseURL() + `"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 1
stream_max_retries = 1

[analytics]
enabled = false
`
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(genEnv(home, model.URL()), "CODEX_HOME="+codexHome, "OPENAI_API_KEY=test", "RUST_LOG=warn")
	out := runCLI(t, proj, env, codexBin, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox",
		"[scenario:import] Create notes.md with a café note")
	t.Logf("codex exec: %s", out)
	matches, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(matches) != 1 {
		t.Fatalf("sessions on disk: %v", matches)
	}
	var id string
	if i := strings.LastIndex(matches[0], "-"); i > 0 {
		id = strings.TrimSuffix(filepath.Base(matches[0]), ".jsonl")
		id = id[len(id)-36:]
	}
	out = runCLI(t, proj, env, codexBin, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "resume", id, "And what is in it?")
	t.Logf("codex exec resume: %s", out)
	dst := filepath.Join("testdata", "codex", "home", ".codex", "sessions")
	os.RemoveAll(dst)
	copyTree(t, filepath.Join(codexHome, "sessions"), dst)
	if err := os.WriteFile(filepath.Join("testdata", "codex", "cwd.txt"), []byte(proj+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// genGemini runs `gemini -p` (a write and a shell command) and a
// `--resume latest` follow-up against the model server's Gemini API, and
// copies ~/.gemini/tmp (the saved chats) to testdata/gemini/.
func genGemini(t *testing.T, geminiBin string) {
	home := t.TempDir()
	proj := filepath.Join(home, "work", "gemini_project")
	for _, d := range []string{proj, filepath.Join(home, ".gemini"), filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
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
	model, err := fakemodel.Start(fakemodel.Options{Scripts: genScript(proj)})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	env := append(genEnv(home, model.URL()), "GEMINI_API_KEY=test", "GOOGLE_GEMINI_BASE_URL="+model.URL(),
		"GEMINI_CLI_TRUST_WORKSPACE=true", "NO_BROWSER=1")
	out := runCLI(t, proj, env, geminiBin, "-p", "[scenario:import] Create notes.md with a café note", "--yolo",
		"--output-format", "stream-json")
	t.Logf("gemini: %s", out)
	out = runCLI(t, proj, env, geminiBin, "-p", "And what is in it?", "--resume", "latest", "--yolo", "--output-format", "stream-json")
	t.Logf("gemini resume: %s", out)
	dst := filepath.Join("testdata", "gemini", "home", ".gemini", "tmp")
	os.RemoveAll(dst)
	copyTree(t, filepath.Join(home, ".gemini", "tmp"), dst)
	if err := os.WriteFile(filepath.Join("testdata", "gemini", "cwd.txt"), []byte(proj+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

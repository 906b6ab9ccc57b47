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
	t.Run("claude-code", func(t *testing.T) { genClaude(t, filepath.Join(bin, "claude")) })
	t.Run("opencode", func(t *testing.T) { genOpenCode(t, filepath.Join(bin, "opencode")) })
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

package acp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// TestGeminiPresetPolicy: the Gemini (ACP) preset writes its policy and
// passes it as one --policy=<path> argument; the file is the constant
// policy, 0600 in a 0700 dir under the user's cache dir.
func TestGeminiPresetPolicy(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	var files []ConfigFile
	for _, c := range Presets() {
		if c.Name == "acp.google.gemini" {
			files = c.Files
		} else if len(c.Files) > 0 {
			t.Errorf("preset %s writes files %v", c.Name, c.Files)
		}
	}
	for _, want := range []string{`toolName = "run_shell_command"`, `argsPattern = ".*"`, `decision = "ask_user"`, `modes = ["default", "autoEdit"]`} {
		if !strings.Contains(GeminiAskCommandsPolicy, want) {
			t.Errorf("policy lacks %s", want)
		}
	}
	args, err := configFileArgs(files)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(cache, "jean-claude", "agent-files", "gemini-ask-commands.toml")
	if !slices.Equal(args, []string{"--policy=" + p}) {
		t.Fatalf("args %q, want --policy=%s", args, p)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != GeminiAskCommandsPolicy {
		t.Errorf("policy file %q, %v", got, err)
	}
	for path, mode := range map[string]os.FileMode{p: 0o600, filepath.Dir(p): 0o700 | os.ModeDir} {
		if st, err := os.Stat(path); err != nil || st.Mode() != mode {
			t.Errorf("%s: mode %v (%v), want %v", path, st.Mode(), err, mode)
		}
	}
	// Rewritten at every start: a changed file is put back.
	if err := os.WriteFile(p, []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := configFileArgs(files); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != GeminiAskCommandsPolicy {
		t.Errorf("not rewritten: %q", got)
	}
}

// TestConfigFilesOnCommandLine: a started agent gets each file as
// Flag=<path>, before the user's extra arguments.
func TestConfigFilesOnCommandLine(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	b, err := New(Config{Name: "acp.test.fake", Command: fakeAgent(t),
		Files: []ConfigFile{{Name: "test-policy.toml", Content: "x = 1\n", Flag: "--policy"}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Start(context.Background(), agent.Config{Cwd: t.TempDir(), ExtraArgs: []string{"--user-extra"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Stop(context.Background()) }()
	go func() {
		for range s.Events() {
		}
	}()
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.(agent.ProcessOwner).PID()), "cmdline"))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")[1:]
	want := "--policy=" + filepath.Join(os.Getenv("XDG_CACHE_HOME"), "jean-claude", "agent-files", "test-policy.toml")
	if !slices.Equal(args, []string{want, "--user-extra"}) {
		t.Errorf("agent arguments %q, want [%s --user-extra]", args, want)
	}
}

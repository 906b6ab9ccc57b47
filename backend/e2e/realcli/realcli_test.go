// Package realcli is the real-CLI test suite: the real agent CLIs — Claude
// Code, OpenCode, Gemini CLI (headless and --acp), Codex (app-server),
// codex-acp and claude-code-acp — pointed at the scripted model server
// (backend/agent/agenttest/fakemodel), each run one task through the
// orchestrator with a real SQLite store, in parallel: a text turn, a file
// write and a command asked and allowed, a command asked and denied, a
// follow-up, a slow turn stopped, a follow-up after the stop (see
// harness.run). Each step asserts what the store holds (messages, files,
// decisions, status) and what was emitted, and that no tool call is left
// open after its turn.
//
// It runs when JC_REALCLI_BIN names a directory holding the executables
// (`make test-agents` installs the pinned versions with npm into
// .tools/agents and sets it); otherwise it skips. Versions: see
// backend/e2e/realcli/test-agents.sh and docs/agents.md.
package realcli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/store"
)

// binDir returns JC_REALCLI_BIN or skips.
func binDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("JC_REALCLI_BIN")
	if dir == "" {
		t.Skip("JC_REALCLI_BIN is not set: run `make test-agents` to install the real CLIs and run this suite")
	}
	return dir
}

// bin returns the executable name in dir; it fails (not skips) when
// JC_REALCLI_BIN is set but the CLI is missing.
func bin(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("JC_REALCLI_BIN=%s has no %s: %v", dir, name, err)
	}
	return p
}

func newProject(t *testing.T) string {
	t.Helper()
	proj := t.TempDir()
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(git, "init", "-q", proj)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
	}
	return proj
}

// TestHealth runs the Agents page's health checks against the real CLIs,
// with the binary path and environment taken from stored agent settings.
func TestHealth(t *testing.T) {
	t.Parallel()
	dir := binDir(t)
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := agentmgr.New(agentmgr.Options{DataDir: t.TempDir(), Settings: agentmgr.DBSettings(db), HealthTimeout: 5 * time.Minute}) // a loaded machine starts OpenCode slowly
	home := t.TempDir()
	model := startModel(t, t.TempDir()) // claude waits on an unreachable API before it answers
	env := map[string]string{"ANTHROPIC_BASE_URL": model.URL(), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".local/share"),
		"XDG_CACHE_HOME": filepath.Join(home, ".cache"), "XDG_STATE_HOME": filepath.Join(home, ".local/state"), "TMPDIR": t.TempDir(),
		"ANTHROPIC_API_KEY": "test", "DISABLE_AUTOUPDATER": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
		"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1"}
	want := map[agent.BackendType]string{agent.BackendClaudeCode: "initialize answered", agent.BackendOpenCode: "server healthy (version " + agentmgr.OpenCodeVersion + ")"}
	for _, spec := range agentmgr.Specs(nil) {
		w, ok := want[spec.Backend]
		if !ok {
			continue
		}
		if err := m.SetSettings(ctx, spec.Backend, agentmgr.AgentSettings{BinaryPath: bin(t, dir, spec.Command), Env: env}); err != nil {
			t.Fatal(err)
		}
		st := m.Status(ctx, spec)
		if !st.Found || st.Source != agentmgr.SourceSettings || !strings.HasPrefix(st.Version, spec.Pinned) {
			t.Errorf("%s status %+v, want found with version %s", spec.Backend, st, spec.Pinned)
		}
		h := m.Health(ctx, spec)
		t.Logf("%s: %s health ok=%v %q in %d ms", spec.Backend, st.Version, h.OK, h.Detail, h.DurationMs)
		if !h.OK || !strings.Contains(h.Detail, w) {
			t.Errorf("%s health %+v, want ok with %q", spec.Backend, h, w)
		}
	}
}

// TestInstallFromNPM installs OpenCode the way the Agents page does (npm
// into <data dir>/agents) and finds it there. It needs the npm registry, so
// it runs only with JC_REALCLI_INSTALL=1 (make test-agents sets it).
func TestInstallFromNPM(t *testing.T) {
	t.Parallel()
	binDir(t)
	if os.Getenv("JC_REALCLI_INSTALL") != "1" {
		t.Skip("set JC_REALCLI_INSTALL=1 to install from the npm registry")
	}
	ctx := context.Background()
	data := t.TempDir()
	m := agentmgr.New(agentmgr.Options{DataDir: data, LookPath: func(string) (string, error) { return "", os.ErrNotExist }})
	spec := agentmgr.Specs(nil)[1]
	var mu sync.Mutex
	var lines []agentmgr.Progress
	start := time.Now()
	out, err := m.Install(ctx, spec, "", func(p agentmgr.Progress) {
		mu.Lock()
		lines = append(lines, p)
		mu.Unlock()
	})
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	mu.Lock()
	last := lines[len(lines)-1]
	mu.Unlock()
	t.Logf("npm install %s@%s: %s, %d progress events, %d fetched", spec.Package, spec.Pinned, time.Since(start).Round(time.Millisecond), len(lines), last.Fetched)
	if !last.Done || last.Error != "" || last.Fetched == 0 {
		t.Errorf("last progress %+v", last)
	}
	st := m.Status(ctx, spec)
	if !st.Found || st.Source != agentmgr.SourceApp || st.AppInstalled != spec.Pinned || st.Version != spec.Pinned {
		t.Errorf("after install: %+v", st)
	}
	if _, err := m.Uninstall(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if st := m.Status(ctx, spec); st.Found {
		t.Errorf("after uninstall: %+v", st)
	}
}

func version(t *testing.T, bin string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil { // TestVersions checks versions; this is for the log
		t.Logf("%s --version: %v", bin, err)
	}
	return strings.TrimSpace(string(out))
}

// TestVersions: the Agents page shows every installed CLI's version, from
// `--version` or, when that fails (codex-acp exits 2) or prints nothing
// (claude-code-acp), from the npm package that ships the binary.
func TestVersions(t *testing.T) {
	t.Parallel()
	dir := binDir(t)
	ctx := context.Background()
	m := agentmgr.New(agentmgr.Options{DataDir: t.TempDir(), Settings: &memSettings{}, VersionTimeout: 2 * time.Minute})
	for _, spec := range agentmgr.Specs(nil) {
		if spec.Pinned == "" {
			continue
		}
		if err := m.SetSettings(ctx, spec.Backend, agentmgr.AgentSettings{BinaryPath: bin(t, dir, spec.Command),
			Env: map[string]string{"HOME": t.TempDir()}}); err != nil {
			t.Fatal(err)
		}
		st := m.Status(ctx, spec)
		t.Logf("%s (%s): version %q error %q", spec.Backend, spec.Command, st.Version, st.Error)
		if !st.Found || !strings.Contains(st.Version, spec.Pinned) || st.Error != "" {
			t.Errorf("%s: %+v, want version %s", spec.Backend, st, spec.Pinned)
		}
	}
}

// memSettings is an in-memory agentmgr.SettingsStore.
type memSettings struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *memSettings) Get(_ context.Context, key string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return v, ok, nil
}

func (s *memSettings) Set(_ context.Context, key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[key] = value
	return nil
}

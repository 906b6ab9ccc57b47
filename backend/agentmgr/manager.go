package agentmgr

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/secrets"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Probe is how a health check starts an agent.
type Probe string

// Health probes.
const (
	ProbeClaude   Probe = "claude"   // initialize over stream-json, read the control_response
	ProbeOpenCode Probe = "opencode" // `opencode serve`, GET /global/health
	ProbeACP      Probe = "acp"      // JSON-RPC initialize over stdio
	ProbeCodex    Probe = "codex"    // `codex app-server`, JSON-RPC initialize
	ProbeVersion  Probe = "version"  // only `--version` answers
)

// Spec describes one agent CLI the app knows.
type Spec struct {
	Backend     agent.BackendType `json:"backend"`
	DisplayName string            `json:"displayName"`
	// Command is the executable name (looked up on PATH and in the app's
	// own install).
	Command string `json:"command"`
	// Args are the fixed arguments the backend passes (ACP agents).
	Args []string `json:"args,omitempty"`
	// Package is the npm package that ships Command ("" when not on npm).
	Package string `json:"package,omitempty"`
	// Pinned is the version the app was tested with.
	Pinned string `json:"pinned,omitempty"`
	Probe  Probe  `json:"probe"`
}

// Pinned versions (the ones the real-CLI suite and the recordings use).
const (
	ClaudeCodeVersion    = "2.1.330"
	OpenCodeVersion      = "1.18.33"
	GeminiCLIVersion     = "0.61.0"
	CodexVersion         = "0.169.0"
	CodexACPVersion      = "0.16.0"
	ClaudeCodeACPVersion = "0.16.2"
)

// Specs returns the agents the app knows: the built-in backends, the ACP
// presets and the user-added ACP agents.
func Specs(extraACP []acp.Config) []Spec {
	out := []Spec{
		{Backend: agent.BackendClaudeCode, DisplayName: "Claude Code", Command: "claude", Package: "@anthropic-ai/claude-code", Pinned: ClaudeCodeVersion, Probe: ProbeClaude},
		{Backend: agent.BackendOpenCode, DisplayName: "OpenCode", Command: "opencode", Package: "opencode-ai", Pinned: OpenCodeVersion, Probe: ProbeOpenCode},
		{Backend: agent.BackendGemini, DisplayName: "Gemini CLI", Command: "gemini", Package: "@google/gemini-cli", Pinned: GeminiCLIVersion, Probe: ProbeVersion},
		{Backend: agent.BackendCodex, DisplayName: "Codex", Command: "codex", Package: "@openai/codex", Pinned: CodexVersion, Probe: ProbeCodex},
	}
	pkgs := map[string][2]string{
		"gemini":          {"@google/gemini-cli", GeminiCLIVersion},
		"codex-acp":       {"@zed-industries/codex-acp", CodexACPVersion},
		"claude-code-acp": {"@zed-industries/claude-code-acp", ClaudeCodeACPVersion},
		"opencode":        {"opencode-ai", OpenCodeVersion},
	}
	for _, c := range append(acp.Presets(), extraACP...) {
		s := Spec{Backend: c.Name, DisplayName: c.DisplayName, Command: c.Command, Args: c.Args, Probe: ProbeACP}
		if p, ok := pkgs[c.Command]; ok {
			s.Package, s.Pinned = p[0], p[1]
		}
		out = append(out, s)
	}
	return out
}

// SettingsStore is where per-agent settings live (DBSettings: the
// database's settings table).
type SettingsStore interface {
	Get(ctx context.Context, key string) (string, bool, error)
	Set(ctx context.Context, key, value string) error
}

// DBSettings keeps the per-agent settings in db's settings table.
func DBSettings(db *store.DB) SettingsStore { return dbSettings{db: db} }

type dbSettings struct{ db *store.DB }

func (s dbSettings) Get(ctx context.Context, key string) (string, bool, error) {
	return store.SettingValue(ctx, s.db.R, key)
}

func (s dbSettings) Set(ctx context.Context, key, value string) error {
	return store.SetSetting(ctx, s.db.W, key, value)
}

// Options configure a Manager.
type Options struct {
	// DataDir is the app's data directory; agents are installed under
	// DataDir/agents and configs generated under DataDir/agent-configs.
	DataDir  string
	Settings SettingsStore
	// LookPath finds a command on PATH (default exec.LookPath).
	LookPath func(string) (string, error)
	// NPM is the npm executable (default "npm").
	NPM string
	// VersionTimeout bounds `--version` (default 30 s: a first run can set
	// itself up, and a loaded machine is slow); HealthTimeout a
	// health check (default 45 s); LatestTimeout `npm view` (default 15 s).
	VersionTimeout, HealthTimeout, LatestTimeout time.Duration
	// LatestTTL is how long `npm view` answers are cached (default 1 h).
	LatestTTL time.Duration
	Logger    *slog.Logger
	// Home is where the agent CLIs keep their credentials (the user's
	// home); empty: sign-in is not checked.
	Home string
	// Secrets keeps secret env values out of the settings table (nil:
	// they are stored with the settings; tests only). SecretsNote says,
	// for the user, that no keyring runs (secrets.Open); when empty, a
	// Secrets that is a secrets.Noter says it (secrets.OpenInBackground).
	Secrets     secrets.Store
	SecretsNote string
}

// Manager finds, checks, installs and configures agent CLIs.
type Manager struct {
	opt Options

	mu       sync.Mutex
	latest   map[string]latestEntry
	install  map[agent.BackendType]bool // installs in flight
	versions map[string]versionEntry    // by binary path
}

// versionEntry caches a binary's --version while the file is unchanged.
type versionEntry struct {
	mod     time.Time
	size    int64
	version string
}

type latestEntry struct {
	version string
	err     error
	at      time.Time
}

// Errors callers branch on.
var (
	// ErrNotOnNPM: the agent is not distributed on npm.
	ErrNotOnNPM = errors.New("agent is not installable from npm")
	// ErrBusy: an install or uninstall of that agent is already running.
	ErrBusy = errors.New("an install of this agent is already running")
	// ErrNoDataDir: the manager has no data directory.
	ErrNoDataDir = errors.New("no data directory")
)

// New returns a manager.
func New(opt Options) *Manager {
	if opt.LookPath == nil {
		opt.LookPath = exec.LookPath
	}
	if opt.NPM == "" {
		opt.NPM = "npm"
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&opt.VersionTimeout, 30*time.Second)
	def(&opt.HealthTimeout, 45*time.Second)
	def(&opt.LatestTimeout, 15*time.Second)
	def(&opt.LatestTTL, time.Hour)
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	return &Manager{opt: opt, latest: map[string]latestEntry{}, install: map[agent.BackendType]bool{}, versions: map[string]versionEntry{}}
}

// AgentsDir is where the app installs agents (npm --prefix).
func (m *Manager) AgentsDir() string {
	if m.opt.DataDir == "" {
		return ""
	}
	return filepath.Join(m.opt.DataDir, "agents")
}

// appBinary is the app's own installed copy of command.
func (m *Manager) appBinary(command string) string {
	if m.AgentsDir() == "" {
		return ""
	}
	return filepath.Join(m.AgentsDir(), "node_modules", ".bin", command)
}

// Source says where a binary was found.
type Source string

// Sources, in lookup order.
const (
	SourceSettings Source = "settings" // the path set on the Agents page
	SourcePath     Source = "path"     // the user's PATH
	SourceApp      Source = "app"      // installed by the app into its data dir
)

// Resolve finds spec's executable: the configured path first, then PATH,
// then the app's own install. The error wraps agent.ErrBinaryNotFound.
func (m *Manager) Resolve(spec Spec, configured string) (string, Source, error) {
	if configured != "" {
		p, err := m.opt.LookPath(configured)
		if err != nil {
			return "", SourceSettings, fmt.Errorf("%s: configured path %s: %w (%v)", spec.DisplayName, configured, agent.ErrBinaryNotFound, err)
		}
		return p, SourceSettings, nil
	}
	if p, err := m.opt.LookPath(spec.Command); err == nil {
		return p, SourcePath, nil
	}
	if app := m.appBinary(spec.Command); app != "" {
		if st, err := os.Stat(app); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return app, SourceApp, nil
		}
	}
	return "", "", notFoundError(fmt.Sprintf("%s not found (%s is not on PATH nor installed by the app)", spec.DisplayName, spec.Command))
}

// notFoundError says which binary is missing once; errors.Is matches
// agent.ErrBinaryNotFound without its text repeated after it.
type notFoundError string

func (e notFoundError) Error() string { return string(e) }

// Is makes errors.Is(err, agent.ErrBinaryNotFound) true.
func (e notFoundError) Is(target error) bool { return target == agent.ErrBinaryNotFound }

// Version runs `path --version` and returns its first line. Answers are
// cached while the binary (resolved through symlinks) is unchanged.
func (m *Manager) Version(ctx context.Context, path string, env []string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	st, statErr := os.Stat(real)
	if statErr == nil {
		m.mu.Lock()
		e, ok := m.versions[real]
		m.mu.Unlock()
		if ok && e.mod.Equal(st.ModTime()) && e.size == st.Size() {
			return e.version, nil
		}
	}
	v, err := m.runVersion(ctx, path, env)
	if err == nil && statErr == nil {
		m.mu.Lock()
		m.versions[real] = versionEntry{mod: st.ModTime(), size: st.Size(), version: v}
		m.mu.Unlock()
	}
	return v, err
}

func (m *Manager) runVersion(ctx context.Context, path string, env []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, m.opt.VersionTimeout)
	defer cancel()
	cmd := command(ctx, path, []string{"--version"}, env, "")
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("%s --version: no answer in %s", path, m.opt.VersionTimeout)
		}
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(line), nil
}

// command is exec.CommandContext in its own process group, stopped
// gracefully (SIGTERM to the group) then forcefully.
func command(ctx context.Context, path string, args, env []string, dir string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 3 * time.Second
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	return cmd
}

// Status is what the Agents page shows for one agent.
type Status struct {
	Spec
	Found   bool   `json:"found"`
	Path    string `json:"path,omitempty"`
	Source  Source `json:"source,omitempty"`
	Version string `json:"version,omitempty"`
	// Error says why it was not found or why --version failed.
	Error string `json:"error,omitempty"`
	// AppInstalled is the version of the app's own copy ("" when none).
	AppInstalled string `json:"appInstalled,omitempty"`
}

// Status detects spec: where its binary is and its version (`--version`'s
// first line, else the version in the npm package that ships the binary).
func (m *Manager) Status(ctx context.Context, spec Spec) Status {
	st := Status{Spec: spec}
	set, err := m.Settings(ctx, spec.Backend)
	if err != nil {
		st.Error = err.Error()
		return st
	}
	st.AppInstalled = m.appVersion(spec)
	path, src, err := m.Resolve(spec, set.BinaryPath)
	if err != nil {
		st.Error = err.Error()
		return st
	}
	st.Found, st.Path, st.Source = true, path, src
	v, err := m.Version(ctx, path, set.envList())
	if v == "" {
		// `--version` failed or printed nothing: the installed npm
		// package says which version it is.
		if pv := packageVersion(path, spec.Package); pv != "" {
			v, err = pv, nil
		}
	}
	if err != nil {
		st.Error = err.Error()
	}
	st.Version = v
	if st.Version == "" && spec.Probe == ProbeACP {
		// --version does not work: the agent's initialize says.
		if v := m.acpVersion(ctx, spec, path, set); v != "" {
			st.Version, st.Error = v, ""
		}
	}
	return st
}

// Binaries returns, for every spec whose CLI is not on PATH, the binary
// the backends should use: the configured path, else the app's own copy.
// It is agents.Options.Binaries.
func (m *Manager) Binaries(ctx context.Context, specs []Spec) map[agent.BackendType]string {
	out := map[agent.BackendType]string{}
	for _, s := range specs {
		set, err := m.storedSettings(ctx, s.Backend) // a path needs no secret
		if err != nil {
			continue
		}
		if p, src, err := m.Resolve(s, set.BinaryPath); err == nil && src != SourcePath {
			out[s.Backend] = p
		}
	}
	return out
}

package agentmgr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/secrets"
)

// AgentSettings are one agent's settings on the Agents page.
type AgentSettings struct {
	// BinaryPath overrides where the CLI is ("" = PATH, then the app's copy).
	BinaryPath string `json:"binaryPath"`
	// ExtraArgs are appended to the agent's command line.
	ExtraArgs []string `json:"extraArgs"`
	// Env is added to the agent's environment.
	Env map[string]string `json:"env"`
	// DefaultModel and DefaultMode apply when a task sets none.
	DefaultModel string                `json:"defaultModel"`
	DefaultMode  agent.InteractionMode `json:"defaultMode"`
	// Secrets are the Env names the user marked secret; values that look
	// like credentials (by name or by value) are secret anyway.
	Secrets []string `json:"secrets,omitempty"`
	// DisableMCP keeps the app's MCP server (its tools: progress, ask the
	// user, sub-tasks) from this agent's sessions.
	DisableMCP bool `json:"disableMcp,omitempty"`
}

// SettingsKey is the settings-table key of backend b's settings.
func SettingsKey(b agent.BackendType) string { return "agent." + string(b) }

// Mask is what a secret value is shown as.
const Mask = secrets.Mask

// IsSecretKey reports whether an environment variable name looks like it
// holds a secret (…KEY, …TOKEN, SECRET, PASSWORD, AUTH…).
func IsSecretKey(k string) bool { return secrets.NameLooksSecret(k) }

// IsSecret reports whether env var k=v of s is a secret: marked so by the
// user, or looking like one by its name or its value.
func (s AgentSettings) IsSecret(k, v string) bool {
	return v != "" && (slices.Contains(s.Secrets, k) || secrets.LooksSecret(k, v))
}

// Masked returns s with the values of secret variables replaced by Mask:
// what the UI gets and what may be logged.
func (s AgentSettings) Masked() AgentSettings {
	out := s
	out.ExtraArgs = maskedArgs(s.ExtraArgs)
	out.Secrets = slices.Clone(s.Secrets)
	out.Env = map[string]string{}
	for k, v := range s.Env {
		if s.IsSecret(k, v) {
			v = Mask
		}
		out.Env[k] = v
	}
	return out
}

// String never prints secret values (for logs).
func (s AgentSettings) String() string {
	m := s.Masked()
	return fmt.Sprintf("binary=%q args=%q env=%v model=%q mode=%q", m.BinaryPath, m.ExtraArgs, m.Env, m.DefaultModel, m.DefaultMode)
}

func (s AgentSettings) envList() []string {
	out := make([]string, 0, len(s.Env))
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		out = append(out, k+"="+s.Env[k])
	}
	return out
}

// Validate checks the settings.
func (s AgentSettings) Validate() error {
	if s.DefaultMode != "" && !s.DefaultMode.Valid() {
		return fmt.Errorf("agentmgr: unknown mode %q", s.DefaultMode)
	}
	for k := range s.Env {
		if k == "" || strings.ContainsAny(k, "= \t\n") {
			return fmt.Errorf("agentmgr: bad environment variable name %q", k)
		}
	}
	return nil
}

// Settings returns backend b's settings (zero when none are stored).
func (m *Manager) Settings(ctx context.Context, b agent.BackendType) (AgentSettings, error) {
	s, err := m.storedSettings(ctx, b)
	if err != nil {
		return AgentSettings{}, err
	}
	return m.unseal(b, s)
}

// storedSettings are backend b's settings as stored: its secrets are
// references (sealedRef), not read from the secret store.
func (m *Manager) storedSettings(ctx context.Context, b agent.BackendType) (AgentSettings, error) {
	var s AgentSettings
	if m.opt.Settings == nil {
		return s, nil
	}
	v, ok, err := m.opt.Settings.Get(ctx, SettingsKey(b))
	if err != nil || !ok || v == "" {
		return s, err
	}
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return AgentSettings{}, fmt.Errorf("agentmgr: settings of %s: %w", b, err)
	}
	return s, nil
}

// SetSettings stores backend b's settings. An env value equal to Mask
// keeps the stored value (the UI sends secrets back masked).
func (m *Manager) SetSettings(ctx context.Context, b agent.BackendType, s AgentSettings) error {
	if m.opt.Settings == nil {
		return fmt.Errorf("agentmgr: no settings store")
	}
	if err := s.Validate(); err != nil {
		return err
	}
	old, err := m.Settings(ctx, b)
	if err != nil {
		return err
	}
	env := map[string]string{}
	for k, v := range s.Env {
		if v == Mask {
			v = old.Env[k]
		}
		env[k] = v
	}
	s.Env = env
	s.ExtraArgs = unmaskArgs(s.ExtraArgs, old.ExtraArgs)
	sealed, err := m.seal(b, s, old)
	if err != nil {
		return err
	}
	data, err := json.Marshal(sealed)
	if err != nil {
		return err
	}
	if err := m.opt.Settings.Set(ctx, SettingsKey(b), string(data)); err != nil {
		return fmt.Errorf("agentmgr: save settings of %s: %w", b, err)
	}
	// Never the values: names only (a secret's name is not a secret).
	m.opt.Logger.Info("agentmgr: settings saved", "agent", b, "env", slices.Sorted(maps.Keys(s.Env)),
		"args", len(s.ExtraArgs), "model", s.DefaultModel, "mode", s.DefaultMode)
	return nil
}

// Configured is a backend whose sessions get the agent's settings: its
// environment and extra arguments, and its default model and mode when the
// task sets none. Made with Rebuilding, it also follows where the agent's
// binary is: when the configured path or the app's own install changes
// (say, the agent was just installed from the Agents page), the next
// session starts on a backend built for the new binary; the old one is
// disposed with this one.
type Configured struct {
	m       *Manager
	spec    Spec
	rebuild func(binary string) agent.Backend // nil: fixed backend

	// serverWide: the backend bakes the settings into a long-lived server
	// (OpenCode), so a settings change also rebuilds it.
	serverWide bool

	mu      sync.Mutex
	cur     agent.Backend
	key     string // what cur was built for
	retired []agent.Backend
}

var _ agent.Backend = (*Configured)(nil)

// Wrap returns b with the manager's per-agent settings applied at Start.
func (m *Manager) Wrap(b agent.Backend) *Configured { return &Configured{m: m, cur: b} }

// Rebuilding returns a backend for spec built by rebuild(binary), where
// binary is the configured path or the app's own copy when the CLI is not
// on PATH ("" lets the backend look on PATH). initial was built for
// initialBin.
func (m *Manager) Rebuilding(spec Spec, initial agent.Backend, initialBin string, rebuild func(binary string) agent.Backend) *Configured {
	c := &Configured{m: m, spec: spec, rebuild: rebuild, cur: initial}
	c.key = c.keyOf(initialBin, AgentSettings{})
	return c
}

// ServerWide marks c's backend as one that takes the settings when its
// shared server starts: a change of environment, model or mode rebuilds it
// (its settings were read when it was built). It returns c.
func (c *Configured) ServerWide(ctx context.Context) *Configured {
	c.serverWide = true
	s, _ := c.m.Settings(ctx, c.spec.Backend)
	c.key = c.keyOf(strings.SplitN(c.key, "\x00", 2)[0], s)
	return c
}

// keyOf is what a backend is built for: the binary and, for server-wide
// backends, the settings (kept in memory only; never logged).
func (c *Configured) keyOf(bin string, s AgentSettings) string {
	if !c.serverWide {
		return bin
	}
	data, _ := json.Marshal([]any{s.Env, s.DefaultModel, s.DefaultMode})
	return bin + "\x00" + string(data)
}

func (c *Configured) current() agent.Backend {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

// Info implements agent.Backend.
func (c *Configured) Info() agent.Info { return c.current().Info() }

// Start implements agent.Backend.
func (c *Configured) Start(ctx context.Context, cfg agent.Config, prompt string) (agent.Session, error) {
	s, err := c.m.Settings(ctx, c.current().Info().Name)
	if err != nil {
		return nil, err
	}
	b := c.current()
	if c.rebuild != nil {
		bin := ""
		if p, src, err := c.m.Resolve(c.spec, s.BinaryPath); err == nil && src != SourcePath {
			bin = p
		}
		key := c.keyOf(bin, s)
		c.mu.Lock()
		if key != c.key {
			c.m.opt.Logger.Info("agentmgr: rebuilding the backend for a new binary or settings", "agent", c.spec.Backend, "binary", bin)
			c.retired = append(c.retired, c.cur)
			c.cur, c.key = c.rebuild(bin), key
		}
		b = c.cur
		c.mu.Unlock()
	}
	return b.Start(ctx, Apply(cfg, s), prompt)
}

// Dispose implements agent.Backend: the current backend and every one it
// replaced.
func (c *Configured) Dispose(ctx context.Context) error {
	c.mu.Lock()
	all := append([]agent.Backend{c.cur}, c.retired...)
	c.retired = nil
	c.mu.Unlock()
	var errs []error
	for _, b := range all {
		if err := b.Dispose(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Apply merges settings into a session config: the task's own values win.
func Apply(cfg agent.Config, s AgentSettings) agent.Config {
	if len(s.Env) > 0 {
		env := maps.Clone(s.Env)
		maps.Copy(env, cfg.Env)
		cfg.Env = env
	}
	if len(s.ExtraArgs) > 0 {
		cfg.ExtraArgs = append(slices.Clone(s.ExtraArgs), cfg.ExtraArgs...)
	}
	if cfg.Model == "" {
		cfg.Model = s.DefaultModel
	}
	if cfg.Mode == "" {
		cfg.Mode = s.DefaultMode
	}
	if s.DisableMCP {
		cfg.MCP = nil
	}
	return cfg
}

// Defaults returns the agent's default model and mode from its settings
// (empty when unset), for whoever creates tasks: a task created without a
// mode or model can take them (the orchestrator always passes the task's
// mode, so Start cannot tell "ask by default" from "ask chosen").
func (c *Configured) Defaults(ctx context.Context) (model string, mode agent.InteractionMode) {
	s, err := c.m.Settings(ctx, c.Info().Name)
	if err != nil {
		return "", ""
	}
	return s.DefaultModel, s.DefaultMode
}

// SecretValues implements agent.SecretSource: the values of the agent's
// secret settings, which the orchestrator keeps out of what it stores.
func (c *Configured) SecretValues(ctx context.Context) []string {
	s, err := c.m.Settings(ctx, c.current().Info().Name)
	if err != nil {
		return nil
	}
	var out []string
	for k, v := range s.Env {
		if s.IsSecret(k, v) {
			out = append(out, v)
		}
	}
	for i, a := range s.ExtraArgs {
		if argIsSecret(s.ExtraArgs, i) {
			_, v := splitArg(a)
			out = append(out, v)
		}
	}
	return out
}

var _ agent.ServerKeeper = (*Configured)(nil)

// AdoptServer implements agent.ServerKeeper for a backend that has a
// shared server (OpenCode's); false for the others.
func (c *Configured) AdoptServer(ctx context.Context) bool {
	k, ok := c.current().(agent.ServerKeeper)
	return ok && k.AdoptServer(ctx)
}

var _ agent.MCPAtEachStart = (*Configured)(nil)

// MCPAtEachStart implements agent.MCPAtEachStart for the current backend.
func (c *Configured) MCPAtEachStart() bool {
	m, ok := c.current().(agent.MCPAtEachStart)
	return ok && m.MCPAtEachStart()
}

var _ agent.HostServerKeeper = (*Configured)(nil)

// AdoptHostServer implements agent.HostServerKeeper for a backend that
// has a server on a host (OpenCode's); false for the others.
func (c *Configured) AdoptHostServer(ctx context.Context, t agent.Transport) (bool, error) {
	k, ok := c.current().(agent.HostServerKeeper)
	if !ok {
		return false, nil
	}
	return k.AdoptHostServer(ctx, t)
}

// KeepServer implements agent.ServerKeeper: the current backend's server
// and those of the backends it replaced are left running.
func (c *Configured) KeepServer(ctx context.Context) bool {
	c.mu.Lock()
	all := append([]agent.Backend{c.cur}, c.retired...)
	c.mu.Unlock()
	kept := false
	for _, b := range all {
		if k, ok := b.(agent.ServerKeeper); ok && k.KeepServer(ctx) {
			kept = true
		}
	}
	return kept
}

// Package agents wires every agent backend the app ships: it builds the
// backend registry and the set of raw formats (for the normalize command and
// re-normalization). Each backend package contributes one line here.
package agents

import (
	"slices"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
	"github.com/jean-claude/jean-claude/backend/agent/gemini"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/wtsetup"
)

// Options configure the backends (binary paths, data dir, ...).
type Options struct {
	// DataDir is the app's data directory (installed agents, generated
	// agent configs live under it).
	DataDir string
	// Binaries overrides where a backend's CLI is, by backend name.
	Binaries map[agent.BackendType]string
	// ACPAgents are the user-added ACP agents (settings key acp.SettingsKey,
	// read with acp.ParseConfigs); the presets are always registered.
	ACPAgents []acp.Config
	// OpenCodeEnv is the environment of the shared `opencode serve` (the
	// agent's settings env and OPENCODE_CONFIG): OpenCode sessions share
	// one server, so agent.Config.Env cannot reach it.
	OpenCodeEnv map[string]string
	// Recorder records the processes backends start outside a session (the
	// OpenCode server), to be reaped after a crash (store.ProcessLog).
	Recorder agent.ProcessRecorder
	// Relays, when set (the setting "relays", on by default), runs the
	// OpenCode server behind a relay so that it outlives the app, and
	// makes the backend adopt the one a previous app left (docs/relay.md).
	Relays *relay.Transport
	// HostServers is where the port and password of OpenCode's servers on
	// hosts are recorded (a folder of the data dir; opencode.Options).
	HostServers string
}

// NewRegistry returns a registry holding every backend.
func NewRegistry(opt Options) *agent.Registry {
	r := agent.NewRegistry()
	for _, name := range Names(opt) {
		if b, err := New(opt, name); err == nil { // ACP configs are validated when parsed
			r.Register(b)
		}
	}
	return r
}

// Names lists every backend opt describes: the built-in ones, then the
// ACP presets and the user-added ACP agents.
func Names(opt Options) []agent.BackendType {
	names := []agent.BackendType{agent.BackendClaudeCode, agent.BackendOpenCode, agent.BackendGemini, agent.BackendCodex}
	for _, c := range acpConfigs(opt) {
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	return names
}

// New builds the one backend named name with opt.
func New(opt Options, name agent.BackendType) (agent.Backend, error) {
	bin := opt.Binaries[name]
	switch name {
	case agent.BackendClaudeCode:
		return claude.New(claude.Options{Binary: bin}), nil
	case agent.BackendOpenCode:
		return opencode.New(opencode.Options{Binary: bin, Env: opt.OpenCodeEnv, Recorder: opt.Recorder, Relays: opt.Relays,
			HostServers: opt.HostServers}), nil
	case agent.BackendGemini:
		return gemini.New(gemini.Options{Binary: bin}), nil
	case agent.BackendCodex:
		return codex.New(codex.Options{Binary: bin}), nil
	}
	cs := acpConfigs(opt)
	for i := len(cs) - 1; i >= 0; i-- { // a user-added agent overrides a preset
		c := cs[i]
		if c.Name != name {
			continue
		}
		if bin != "" {
			c.Command = bin
		}
		b, err := acp.New(c)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return nil, &agent.UnknownBackendError{Name: name}
}

func acpConfigs(opt Options) []acp.Config {
	return append(acp.Presets(), opt.ACPAgents...)
}

// Formats returns every raw format the app can normalize.
func Formats() *agent.Formats {
	return agent.NewFormats(
		claude.Format(),
		opencode.Format(),
		acp.Format(),
		gemini.Format(),
		gemini.JSONFormat(),
		codex.ExecFormat(),
		codex.AppServerFormat(),
		wtsetup.Format(), // worktree setup output (issue 18), not an agent
	)
}

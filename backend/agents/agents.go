// Package agents wires every agent backend the app ships: it builds the
// backend registry and the set of raw formats (for the normalize command and
// re-normalization). Each backend package contributes one line here.
package agents

import (
	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
	"github.com/jean-claude/jean-claude/backend/agent/gemini"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
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
}

// NewRegistry returns a registry holding every backend.
func NewRegistry(opt Options) *agent.Registry {
	r := agent.NewRegistry()
	r.Register(claude.New(claude.Options{Binary: opt.Binaries[agent.BackendClaudeCode]}))
	r.Register(opencode.New(opencode.Options{Binary: opt.Binaries[agent.BackendOpenCode], Env: opt.OpenCodeEnv, Recorder: opt.Recorder}))
	r.Register(gemini.New(gemini.Options{Binary: opt.Binaries[agent.BackendGemini]}))
	r.Register(codex.New(codex.Options{Binary: opt.Binaries[agent.BackendCodex]}))
	for _, c := range append(acp.Presets(), opt.ACPAgents...) {
		if bin := opt.Binaries[c.Name]; bin != "" {
			c.Command = bin
		}
		if b, err := acp.New(c); err == nil { // configs are validated when parsed
			r.Register(b)
		}
	}
	return r
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
	)
}

package agentmgr

import (
	"context"
	"fmt"
	"os"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/secrets"
)

// Setup is the agents' side of startup: the manager (data dir next to the
// database), the registry options it implies (the app's own installed CLIs
// when the user has none on PATH, the configured binary paths, user-added
// ACP agents, OpenCode's generated config) and the known agent specs.
// Wrapping the registry's backends is Manager.WrapRegistry.
type Setup struct {
	Manager  *Manager
	Registry agents.Options // what agents.NewRegistry is built with
	Specs    []Spec
}

// NewSetup reads the user's agent settings from settings; nil settings
// (the bindings build, no database) gives a manager without stored
// settings or secrets. warn receives what startup should tell the user
// (stderr); nil drops it.
func NewSetup(ctx context.Context, dataDir string, settings SettingsStore, warn func(string)) *Setup {
	if warn == nil {
		warn = func(string) {}
	}
	var extra []acp.Config
	if settings != nil {
		if v, ok, err := settings.Get(ctx, acp.SettingsKey); err == nil && ok && v != "" {
			if cs, err := acp.ParseConfigs([]byte(v)); err == nil {
				extra = cs
			} else {
				warn(fmt.Sprintf("ignoring the user-added ACP agents: %v", err))
			}
		}
	}
	home, _ := os.UserHomeDir()
	opts := Options{DataDir: dataDir, Settings: settings, Home: home}
	if settings != nil {
		// Secrets go to the OS keyring, else a 0600 file (with a note).
		// The keyring is probed in the background: a few D-Bus round
		// trips, up to seconds if it prompts to be unlocked, which the
		// window does not wait for (issue 20); a secret read waits.
		opts.Secrets = secrets.OpenInBackground(dataDir, nil, warn)
	}
	mgr := New(opts)
	specs := Specs(extra)
	if err := mgr.SealStoredSecrets(ctx, specs); err != nil && opts.Secrets != nil {
		warn(fmt.Sprintf("moving stored secrets to %s: %v", opts.Secrets.Where(), err))
	}
	reg := agents.Options{DataDir: dataDir, ACPAgents: extra}
	if settings != nil {
		reg.Binaries = mgr.Binaries(ctx, specs)
		reg.OpenCodeEnv = mgr.OpenCodeEnv(ctx)
	}
	return &Setup{Manager: mgr, Registry: reg, Specs: specs}
}

// SpecList returns the known specs (what the services take).
func (s *Setup) SpecList() []Spec { return s.Specs }

// Resolver finds a backend's CLI the way the backends do: the Agents
// page's path, then PATH, then the app's own install.
func (s *Setup) Resolver() func(context.Context, agent.BackendType) (string, error) {
	return func(ctx context.Context, b agent.BackendType) (string, error) {
		for _, spec := range s.Specs {
			if spec.Backend != b {
				continue
			}
			set, err := s.Manager.Settings(ctx, b)
			if err != nil {
				return "", err
			}
			p, _, err := s.Manager.Resolve(spec, set.BinaryPath)
			return p, err
		}
		return "", fmt.Errorf("%s: %w", b, agent.ErrBinaryNotFound)
	}
}

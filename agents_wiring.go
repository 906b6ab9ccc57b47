package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/secrets"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
)

// agentsWiring is the Agents page's side of startup: the agent manager
// (data dir next to the database), the registry options it implies (the
// app's own installed CLIs when the user has none on PATH, the configured
// binary paths, user-added ACP agents, OpenCode's generated config) and the
// known agent specs. Wrapping the registry's backends is
// agentmgr.Manager.WrapRegistry.
type agentsWiring struct {
	mgr   *agentmgr.Manager
	opt   agents.Options
	specs []agentmgr.Spec
}

func newAgentsWiring(ctx context.Context, db *store.DB, dbPath string) *agentsWiring {
	dataDir := filepath.Dir(dbPath)
	var settings agentmgr.SettingsStore
	var extra []acp.Config
	if db != nil {
		s := store.NewSettings(db)
		settings = s
		if v, ok, err := s.Get(ctx, acp.SettingsKey); err == nil && ok && v != "" {
			if cs, err := acp.ParseConfigs([]byte(v)); err == nil {
				extra = cs
			} else {
				fmt.Fprintf(os.Stderr, "jean-claude: ignoring the user-added ACP agents: %v\n", err)
			}
		}
	}
	home, _ := os.UserHomeDir()
	opts := agentmgr.Options{DataDir: dataDir, Settings: settings, Home: home}
	if db != nil {
		// Secrets go to the OS keyring, else a 0600 file (with a note).
		opts.Secrets, opts.SecretsNote = secrets.Open(dataDir, nil)
		if opts.SecretsNote != "" {
			fmt.Fprintf(os.Stderr, "jean-claude: %s\n", opts.SecretsNote)
		}
	}
	mgr := agentmgr.New(opts)
	specs := agentmgr.Specs(extra)
	if err := mgr.SealStoredSecrets(ctx, specs); err != nil {
		fmt.Fprintf(os.Stderr, "jean-claude: moving stored secrets to %s: %v\n", opts.Secrets.Where(), err)
	}
	opt := agents.Options{DataDir: dataDir, ACPAgents: extra}
	if db != nil {
		opt.Binaries = mgr.Binaries(ctx, specs)
		opt.OpenCodeEnv = mgr.OpenCodeEnv(ctx)
	}
	return &agentsWiring{mgr: mgr, opt: opt, specs: specs}
}

// resolver finds a backend's CLI the way the backends do: the Agents
// page's path, then PATH, then the app's own install.
func (aw *agentsWiring) resolver() services.BinaryResolver {
	return func(ctx context.Context, b agent.BackendType) (string, error) {
		for _, spec := range aw.specs {
			if spec.Backend != b {
				continue
			}
			set, err := aw.mgr.Settings(ctx, b)
			if err != nil {
				return "", err
			}
			p, _, err := aw.mgr.Resolve(spec, set.BinaryPath)
			return p, err
		}
		return "", fmt.Errorf("%s: %w", b, agent.ErrBinaryNotFound)
	}
}

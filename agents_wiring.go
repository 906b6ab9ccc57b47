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
	"github.com/jean-claude/jean-claude/backend/store"
)

// agentsWiring is the Agents page's side of startup: the agent manager
// (data dir next to the database), the registry options it implies (the
// app's own installed CLIs when the user has none on PATH, the configured
// binary paths, user-added ACP agents, OpenCode's generated config) and the
// known agent specs.
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
		opt.OpenCodeEnv = openCodeEnv(ctx, mgr)
	}
	return &agentsWiring{mgr: mgr, opt: opt, specs: specs}
}

// openCodeEnv is the shared OpenCode server's environment (see
// agentmgr.Manager.OpenCodeServerEnv); a failure is reported and the
// server starts with what could be made.
func openCodeEnv(ctx context.Context, mgr *agentmgr.Manager) map[string]string {
	env, err := mgr.OpenCodeServerEnv(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "jean-claude: opencode config: %v\n", err)
	}
	return env
}

// wrap replaces every registered backend with one that applies the
// agent's settings (env, extra args, default model and mode) at Start and
// follows its binary: an agent installed from the Agents page, or a new
// configured path, is used by the next session without a restart.
func (w *agentsWiring) wrap(reg *agent.Registry) {
	specs := map[agent.BackendType]agentmgr.Spec{}
	for _, s := range w.specs {
		specs[s.Backend] = s
	}
	for _, info := range reg.List() {
		b, err := reg.Get(info.Name)
		if err != nil {
			continue
		}
		spec, ok := specs[info.Name]
		if !ok {
			reg.Register(w.mgr.Wrap(b))
			continue
		}
		name := info.Name
		rebuild := func(bin string) agent.Backend {
			opt := w.opt
			opt.Binaries = map[agent.BackendType]string{name: bin}
			if name == agent.BackendOpenCode {
				opt.OpenCodeEnv = openCodeEnv(context.Background(), w.mgr)
			}
			nb, err := agents.NewRegistry(opt).Get(name)
			if err != nil {
				return b
			}
			return nb
		}
		c := w.mgr.Rebuilding(spec, b, w.opt.Binaries[name], rebuild)
		if name == agent.BackendOpenCode {
			// One shared server takes the settings when it starts.
			c.ServerWide(context.Background())
		}
		reg.Register(c)
	}
}

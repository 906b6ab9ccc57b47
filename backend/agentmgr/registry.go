package agentmgr

import (
	"context"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agents"
)

// WrapRegistry replaces every backend in reg with one that applies the
// agent's settings (env, extra args, default model and mode) at Start. A
// backend with a spec also follows its binary: an agent installed from
// the Agents page, or a new configured path, is used by the next session
// without a restart (that one backend is rebuilt with agents.New from
// opt, the options reg was built with).
func (m *Manager) WrapRegistry(ctx context.Context, reg *agent.Registry, specs []Spec, opt agents.Options) {
	byName := map[agent.BackendType]Spec{}
	for _, s := range specs {
		byName[s.Backend] = s
	}
	for _, info := range reg.List() {
		b, err := reg.Get(info.Name)
		if err != nil {
			continue
		}
		spec, ok := byName[info.Name]
		if !ok {
			reg.Register(m.Wrap(b))
			continue
		}
		c := m.Rebuilding(spec, b, opt.Binaries[info.Name], m.rebuilder(info.Name, b, opt))
		if info.Name == agent.BackendOpenCode {
			// One shared server takes the settings when it starts.
			c.ServerWide(ctx)
		}
		reg.Register(c)
	}
}

// rebuilder builds backend name anew for a binary; on failure the
// current backend b stays.
func (m *Manager) rebuilder(name agent.BackendType, b agent.Backend, opt agents.Options) func(bin string) agent.Backend {
	return func(bin string) agent.Backend {
		o := opt
		o.Binaries = map[agent.BackendType]string{name: bin}
		if name == agent.BackendOpenCode {
			o.OpenCodeEnv = m.OpenCodeEnv(context.Background())
		}
		nb, err := agents.New(o, name)
		if err != nil {
			return b
		}
		return nb
	}
}

// OpenCodeEnv is the shared OpenCode server's environment
// (OpenCodeServerEnv); a failure is logged and the server starts with
// what could be made.
func (m *Manager) OpenCodeEnv(ctx context.Context) map[string]string {
	env, err := m.OpenCodeServerEnv(ctx)
	if err != nil {
		m.opt.Logger.Warn("agentmgr: opencode config", "err", err)
	}
	return env
}

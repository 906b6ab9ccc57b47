package agentmgr

import (
	"context"
	"encoding/json"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Model is one model an agent offers, for the new-task form's picker.
type Model struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

func modelsKey(b agent.BackendType) string { return "agents.models." + string(b) }

// claudeModels reads the models of Claude Code's initialize answer.
func claudeModels(line []byte) []Model {
	var f struct {
		Response struct {
			Response struct {
				Models []struct {
					Value       string `json:"value"`
					DisplayName string `json:"displayName"`
				} `json:"models"`
			} `json:"response"`
		} `json:"response"`
	}
	if json.Unmarshal(line, &f) != nil {
		return nil
	}
	var out []Model
	for _, m := range f.Response.Response.Models {
		if m.Value != "" {
			out = append(out, Model{ID: m.Value, Name: m.DisplayName})
		}
	}
	return out
}

// rememberModels caches what an agent said it offers (settings table).
func (m *Manager) rememberModels(ctx context.Context, b agent.BackendType, ms []Model) {
	if m.opt.Settings == nil || len(ms) == 0 {
		return
	}
	if data, err := json.Marshal(ms); err == nil {
		_ = m.opt.Settings.Set(ctx, modelsKey(b), string(data))
	}
}

// Models returns the models spec's agent offered when last asked (its
// health check asks Claude Code's initialize); without a cache and with
// the agent installed, it asks now. Nil when the agent cannot tell.
func (m *Manager) Models(ctx context.Context, spec Spec) []Model {
	if got := m.cachedModels(ctx, spec.Backend); got != nil {
		return got
	}
	if spec.Probe != ProbeClaude {
		return nil
	}
	if h := m.Health(ctx, spec); !h.OK && !h.NotSignedIn {
		return nil
	}
	return m.cachedModels(ctx, spec.Backend)
}

func (m *Manager) cachedModels(ctx context.Context, b agent.BackendType) []Model {
	if m.opt.Settings == nil {
		return nil
	}
	v, ok, err := m.opt.Settings.Get(ctx, modelsKey(b))
	if err != nil || !ok || v == "" {
		return nil
	}
	var out []Model
	if json.Unmarshal([]byte(v), &out) != nil {
		return nil
	}
	return out
}

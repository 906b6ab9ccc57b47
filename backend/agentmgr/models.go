package agentmgr

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"

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

// codexModels reads app-server's model/list answer (id 2): its visible
// models, the default first. ok is false for any other line.
func codexModels(line []byte) (ms []Model, ok bool) {
	var f struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			Data []struct {
				ID          string `json:"id"`
				Model       string `json:"model"`
				DisplayName string `json:"displayName"`
				Hidden      bool   `json:"hidden"`
				IsDefault   bool   `json:"isDefault"`
			} `json:"data"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &f) != nil || string(f.ID) != "2" {
		return nil, false
	}
	for _, d := range f.Result.Data {
		id := cmp.Or(d.Model, d.ID)
		if id == "" || d.Hidden {
			continue
		}
		mm := Model{ID: id, Name: d.DisplayName}
		if d.IsDefault {
			ms = append([]Model{mm}, ms...)
		} else {
			ms = append(ms, mm)
		}
	}
	return ms, true
}

// acpModels reads session/new's answer (id 2): the session's models
// (models.availableModels, ACP's unstable model selection) or else the
// options of a config option of category "model" (codex-acp). An error
// answer lists none. ok is false for any other line.
func acpModels(line []byte) (ms []Model, ok bool) {
	var f struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			Models *struct {
				Available []struct {
					ModelID string `json:"modelId"`
					Name    string `json:"name"`
				} `json:"availableModels"`
			} `json:"models"`
			ConfigOptions []struct {
				Category string `json:"category"`
				Options  []struct {
					Value string `json:"value"`
					Name  string `json:"name"`
				} `json:"options"`
			} `json:"configOptions"`
		} `json:"result"`
	}
	if _, err := agent.Decode(line, &f); err != nil || string(f.ID) != "2" {
		return nil, false
	}
	if f.Result == nil {
		return nil, true
	}
	if f.Result.Models != nil {
		for _, a := range f.Result.Models.Available {
			if a.ModelID != "" {
				ms = append(ms, Model{ID: a.ModelID, Name: a.Name})
			}
		}
	}
	for _, c := range f.Result.ConfigOptions {
		if len(ms) > 0 || c.Category != "model" {
			continue
		}
		for _, o := range c.Options {
			if o.Value != "" {
				ms = append(ms, Model{ID: o.Value, Name: o.Name})
			}
		}
	}
	return ms, true
}

// openCodeModels reads GET /config/providers: every provider's models as
// "provider/model", the providers' defaults first.
func openCodeModels(body []byte) []Model {
	var f struct {
		Providers []struct {
			ID     string `json:"id"`
			Name   string `json:"name"`
			Models map[string]struct {
				Name string `json:"name"`
			} `json:"models"`
		} `json:"providers"`
		Default map[string]string `json:"default"`
	}
	if json.Unmarshal(body, &f) != nil {
		return nil
	}
	var first, rest []Model
	for _, p := range f.Providers {
		ids := slices.Sorted(maps.Keys(p.Models))
		for _, id := range ids {
			mm := Model{ID: p.ID + "/" + id, Name: cmp.Or(p.Models[id].Name, id)}
			if p.Name != "" {
				mm.Name += " (" + p.Name + ")"
			}
			if f.Default[p.ID] == id {
				first = append(first, mm)
			} else {
				rest = append(rest, mm)
			}
		}
	}
	return append(first, rest...)
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
// health check asks: Claude Code's initialize, Codex's model/list,
// OpenCode's /config/providers, an ACP agent's session/new); without a cache and with
// the agent installed, it asks now. Nil when the agent cannot tell.
func (m *Manager) Models(ctx context.Context, spec Spec) []Model {
	if got := m.cachedModels(ctx, spec.Backend); got != nil {
		return got
	}
	if !slices.Contains([]Probe{ProbeClaude, ProbeCodex, ProbeOpenCode, ProbeACP}, spec.Probe) {
		return nil // its probe lists no models
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

package agentmgr

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// View is one agent as the Agents page shows it: its Status (binary,
// version), what its registered backend says of itself, its settings with
// the secrets masked, and how it signs in.
type View struct {
	Status
	Registered   bool               `json:"registered"`
	Capabilities agent.Capabilities `json:"capabilities"`
	Notes        string             `json:"notes,omitempty"`
	Settings     AgentSettings      `json:"settings"` // secrets masked
	// SignIn is how the agent signs in; SignedIn is "signed-in",
	// "not-signed-in" or "" (the app cannot tell).
	SignIn   SignIn `json:"signIn"`
	SignedIn string `json:"signedIn"`
}

// View detects spec now (its binary, version and sign-in state) and
// describes it with reg's backend of the same name, if any.
func (m *Manager) View(ctx context.Context, reg *agent.Registry, spec Spec) View {
	v := View{Status: m.Status(ctx, spec), SignIn: SignInOf(spec)}
	if v.Found {
		v.SignedIn = m.SignedInState(ctx, spec)
	}
	if b, err := reg.Get(spec.Backend); err == nil {
		info := b.Info()
		v.Registered, v.Capabilities, v.Notes = true, info.Capabilities, info.Notes
		if info.DisplayName != "" {
			v.DisplayName = info.DisplayName
		}
	}
	if set, err := m.Settings(ctx, spec.Backend); err == nil {
		v.Settings = set.Masked()
	} else if v.Error == "" {
		v.Error = err.Error()
	}
	if v.Settings.Env == nil {
		v.Settings.Env = map[string]string{}
	}
	if v.Settings.ExtraArgs == nil {
		v.Settings.ExtraArgs = []string{}
	}
	return v
}

// Views detects every spec reg has a backend for, in parallel (each
// `--version` is bounded by a timeout), in the order of specs, and keeps
// them as the last known state (LastKnownViews).
func (m *Manager) Views(ctx context.Context, reg *agent.Registry, specs []Spec) []View {
	var known []Spec
	for _, sp := range specs {
		if reg.Has(sp.Backend) {
			known = append(known, sp)
		}
	}
	out := make([]View, len(known))
	var wg sync.WaitGroup
	for i, sp := range known {
		wg.Go(func() { out[i] = m.View(ctx, reg, sp) })
	}
	wg.Wait()
	if data, err := json.Marshal(out); err == nil {
		_ = m.SaveLastKnown(ctx, string(data))
	}
	return out
}

// LastKnownViews returns the agents as Views last found them, at once
// (empty before the first Views, or when what was kept cannot be read).
// Their settings are masked again with the names marked secret then and
// now: a variable marked secret after that Views was kept in clear.
func (m *Manager) LastKnownViews(ctx context.Context) []View {
	out := []View{}
	if v := m.LastKnown(ctx); v != "" {
		if err := json.Unmarshal([]byte(v), &out); err != nil {
			return []View{}
		}
	}
	for i := range out {
		out[i].Settings = m.remask(ctx, out[i])
	}
	return out
}

// remask masks a kept view's settings with the names marked secret then
// and now; the names it lists stay those it was kept with.
func (m *Manager) remask(ctx context.Context, v View) AgentSettings {
	set := v.Settings
	set.Secrets = slices.Clone(set.Secrets)
	if cur, err := m.Settings(ctx, v.Backend); err == nil {
		set.Secrets = append(set.Secrets, cur.Secrets...)
	}
	masked := set.Masked()
	masked.Secrets = v.Settings.Secrets
	return masked
}

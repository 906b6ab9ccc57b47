package agentmgr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/secrets"
)

// sealedRef stands in the stored settings for a value kept in the secret
// store: the database never holds a secret in clear.
const sealedRef = "jc-secret:stored"

func secretName(b agent.BackendType, k string) string { return "agent/" + string(b) + "/env/" + k }

// seal returns s as it is stored: every secret env value moved to the
// secret store and replaced by sealedRef; secrets of old no longer set
// are removed from the store. Without a secret store (tests), s is kept
// as is.
func (m *Manager) seal(b agent.BackendType, s, old AgentSettings) (AgentSettings, error) {
	if m.opt.Secrets == nil {
		return s, nil
	}
	out := s
	out.Env = maps.Clone(s.Env)
	for k, v := range s.Env {
		if !s.IsSecret(k, v) {
			if old.IsSecret(k, old.Env[k]) {
				_ = m.opt.Secrets.Delete(secretName(b, k))
			}
			continue
		}
		if err := m.opt.Secrets.Set(secretName(b, k), v); err != nil {
			return AgentSettings{}, fmt.Errorf("agentmgr: keep %s of %s in %s: %w", k, b, m.opt.Secrets.Where(), err)
		}
		out.Env[k] = sealedRef
	}
	for k, v := range old.Env {
		if _, still := s.Env[k]; !still && old.IsSecret(k, v) {
			_ = m.opt.Secrets.Delete(secretName(b, k))
		}
	}
	out.ExtraArgs = slices.Clone(s.ExtraArgs)
	for i, a := range s.ExtraArgs {
		if !argIsSecret(s.ExtraArgs, i) {
			continue
		}
		prefix, v := splitArg(a)
		if err := m.opt.Secrets.Set(argSecretName(b, i), v); err != nil {
			return AgentSettings{}, fmt.Errorf("agentmgr: keep extra argument %d of %s in %s: %w", i+1, b, m.opt.Secrets.Where(), err)
		}
		out.ExtraArgs[i] = prefix + sealedRef
	}
	for i := range old.ExtraArgs {
		if argIsSecret(old.ExtraArgs, i) && (i >= len(s.ExtraArgs) || !argIsSecret(s.ExtraArgs, i)) {
			_ = m.opt.Secrets.Delete(argSecretName(b, i))
		}
	}
	return out, nil
}

// unseal returns stored settings with their secrets read back from the
// secret store. A secret that cannot be read is left empty (the agent
// then says it is not signed in) rather than failing every read.
func (m *Manager) unseal(b agent.BackendType, s AgentSettings) (AgentSettings, error) {
	for k, v := range s.Env {
		if v != sealedRef {
			continue
		}
		if m.opt.Secrets == nil {
			s.Env[k] = ""
			continue
		}
		got, err := m.opt.Secrets.Get(secretName(b, k))
		if err != nil && !errors.Is(err, secrets.ErrNotFound) {
			m.opt.Logger.Warn("agentmgr: a secret could not be read", "agent", b, "name", k, "err", err)
		}
		s.Env[k] = got
	}
	s.ExtraArgs = slices.Clone(s.ExtraArgs)
	for i, a := range s.ExtraArgs {
		prefix, v := splitArg(a)
		if v != sealedRef {
			continue
		}
		var got string
		if m.opt.Secrets != nil {
			var err error
			if got, err = m.opt.Secrets.Get(argSecretName(b, i)); err != nil && !errors.Is(err, secrets.ErrNotFound) {
				m.opt.Logger.Warn("agentmgr: a secret could not be read", "agent", b, "argument", i+1, "err", err)
			}
		}
		s.ExtraArgs[i] = prefix + got
	}
	return s, nil
}

// SealStoredSecrets moves secrets an older version stored in clear into
// the secret store (run once at startup).
func (m *Manager) SealStoredSecrets(ctx context.Context, specs []Spec) error {
	if m.opt.Secrets == nil || m.opt.Settings == nil {
		return nil
	}
	var errs []error
	for _, sp := range specs {
		v, ok, err := m.opt.Settings.Get(ctx, SettingsKey(sp.Backend))
		if err != nil || !ok || v == "" {
			continue
		}
		var raw AgentSettings
		if json.Unmarshal([]byte(v), &raw) != nil {
			continue
		}
		clear := false
		for k, val := range raw.Env {
			if val != sealedRef && raw.IsSecret(k, val) {
				clear = true
			}
		}
		for i, a := range raw.ExtraArgs {
			if _, val := splitArg(a); val != sealedRef && argIsSecret(raw.ExtraArgs, i) {
				clear = true
			}
		}
		if !clear {
			continue
		}
		s, err := m.Settings(ctx, sp.Backend)
		if err == nil {
			err = m.SetSettings(ctx, sp.Backend, s)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// SecretsNote is shown to the user when no system keyring runs ("" when
// secrets are in the keyring).
func (m *Manager) SecretsNote() string {
	if n, ok := m.opt.Secrets.(secrets.Noter); ok && m.opt.SecretsNote == "" {
		return n.Note()
	}
	return m.opt.SecretsNote
}

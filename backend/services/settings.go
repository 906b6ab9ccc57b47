package services

import (
	"context"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/history/oneshot"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/tasks"
)

// SettingsService holds the app-wide settings.
type SettingsService struct {
	ctx context.Context
	db  *store.DB
	reg *agent.Registry
}

// NewSettingsService returns the settings service.
func NewSettingsService(ctx context.Context, db *store.DB, reg *agent.Registry) *SettingsService {
	return &SettingsService{ctx: ctx, db: db, reg: reg}
}

// GetDefaultBackend returns the backend new projects start with: the saved
// choice when it is still registered, else the first registered backend.
func (s *SettingsService) GetDefaultBackend() (string, error) {
	b, err := tasks.DefaultBackend(s.ctx, s.db, s.reg)
	return string(b), err
}

// SetDefaultBackend saves the global default backend; it must be registered.
func (s *SettingsService) SetDefaultBackend(backend string) error {
	b, err := tasks.CheckBackend(s.reg, backend)
	if err != nil {
		return err
	}
	return store.SetSetting(s.ctx, s.db.W, store.SettingDefaultBackend, string(b))
}

// ListBackends describes every registered backend, capabilities included,
// in registration order.
func (s *SettingsService) ListBackends() ([]agent.Info, error) {
	return s.reg.List(), nil
}

// GetSummaryAgent returns the backend whose CLI writes a finished task's
// one-line summary ("" = none, the default: each summary is a model call).
func (s *SettingsService) GetSummaryAgent() (string, error) {
	v, _, err := store.SettingValue(s.ctx, s.db.R, store.SettingSummaryAgent)
	return v, err
}

// SetSummaryAgent chooses it: "" turns summaries off; else a registered
// backend with a one-shot mode (Claude Code, Codex).
func (s *SettingsService) SetSummaryAgent(backend string) error {
	if backend != "" {
		b, err := tasks.CheckBackend(s.reg, backend)
		if err != nil {
			return err
		}
		if _, err := oneshot.CommandFor(b, "x", ""); err != nil {
			return invalid("summaryAgent", err, "%v", err)
		}
	}
	return store.SetSetting(s.ctx, s.db.W, store.SettingSummaryAgent, backend)
}

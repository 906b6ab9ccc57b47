package services

import (
	"context"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// SettingsService holds the app-wide settings.
type SettingsService struct {
	ctx      context.Context
	settings *store.Settings
	reg      *agent.Registry
}

// NewSettingsService returns the settings service.
func NewSettingsService(ctx context.Context, db *store.DB, reg *agent.Registry) *SettingsService {
	return &SettingsService{ctx: ctx, settings: store.NewSettings(db), reg: reg}
}

// GetDefaultBackend returns the backend new projects start with: the saved
// choice when it is still registered, else the first registered backend.
func (s *SettingsService) GetDefaultBackend() (string, error) {
	b, err := defaultBackend(s.ctx, s.settings, s.reg)
	return string(b), err
}

// SetDefaultBackend saves the global default backend; it must be registered.
func (s *SettingsService) SetDefaultBackend(backend string) error {
	b, err := checkBackend(s.reg, backend)
	if err != nil {
		return err
	}
	return s.settings.Set(s.ctx, store.SettingDefaultBackend, string(b))
}

// ListBackends describes every registered backend, capabilities included,
// in registration order.
func (s *SettingsService) ListBackends() ([]agent.Info, error) {
	return s.reg.List(), nil
}

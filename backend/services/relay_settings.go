package services

import (
	"fmt"

	"github.com/jean-claude/jean-claude/backend/store"
)

// TaskLifetime is the "Keep tasks running when the app closes" settings
// (docs/relay.md): KeepRunning runs agents behind relays (from the next
// start of the app); OnQuit is what quitting does to running tasks:
// "ask", "keep" or "stop".
type TaskLifetime struct {
	KeepRunning bool   `json:"keepRunning"`
	OnQuit      string `json:"onQuit"`
}

// QuitChoices are the valid TaskLifetime.OnQuit values.
var QuitChoices = []string{"ask", "keep", "stop"}

// GetTaskLifetime returns the settings (defaults: relays on, stop).
func (s *SettingsService) GetTaskLifetime() (TaskLifetime, error) {
	relays, _, err := store.SettingValue(s.ctx, s.db.R, store.SettingRelays)
	if err != nil {
		return TaskLifetime{}, err
	}
	quit, _, err := store.SettingValue(s.ctx, s.db.R, store.SettingQuitRunning)
	if err != nil {
		return TaskLifetime{}, err
	}
	if quit == "" {
		quit = "stop"
	}
	return TaskLifetime{KeepRunning: relays != "off", OnQuit: quit}, nil
}

// SetTaskLifetime saves them.
func (s *SettingsService) SetTaskLifetime(t TaskLifetime) error {
	ok := false
	for _, c := range QuitChoices {
		ok = ok || c == t.OnQuit
	}
	if !ok {
		return invalid("onQuit", nil, "on quit must be one of %v, not %q", QuitChoices, t.OnQuit)
	}
	relays := "off"
	if t.KeepRunning {
		relays = "on"
	}
	if err := store.SetSetting(s.ctx, s.db.W, store.SettingRelays, relays); err != nil {
		return fmt.Errorf("save relays: %w", err)
	}
	return store.SetSetting(s.ctx, s.db.W, store.SettingQuitRunning, t.OnQuit)
}

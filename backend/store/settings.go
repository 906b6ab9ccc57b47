package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Setting keys.
const (
	// SettingDefaultBackend is the backend new projects start with.
	SettingDefaultBackend = "defaultAgentBackend"
	// SettingRelays runs agents behind relays so tasks outlive the app:
	// "on" (default: unset means on) or "off" (docs/relay.md).
	SettingRelays = "relays"
	// SettingQuitRunning says what quitting does to running relayed tasks:
	// "keep" them running, "stop" them (default), or "ask" each time.
	SettingQuitRunning = "quitRunningTasks"
	// SettingSummaryAgent is the backend whose CLI writes a task's one-line
	// summary when it finishes ("" or absent = no summary: it costs a
	// model call).
	SettingSummaryAgent = "summaryAgent"
	// SettingRelayIdleStop is how long a relay whose agent waits for input
	// keeps it running with no app attached (a Go duration, default 30m).
	SettingRelayIdleStop = "relayIdleStop"
)

// Settings is the key/value settings table.
type Settings struct{ db *DB }

// NewSettings returns the settings repository of db.
func NewSettings(db *DB) *Settings { return &Settings{db: db} }

// Get returns the value of key and whether it is set.
func (r *Settings) Get(ctx context.Context, key string) (string, bool, error) {
	return SettingValue(ctx, r.db.R, key)
}

// Set stores value under key, replacing any previous value.
func (r *Settings) Set(ctx context.Context, key, value string) error {
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
			key, value)
		if err != nil {
			return fmt.Errorf("store: set setting %s: %w", key, err)
		}
		return nil
	})
}

// Delete removes key (no error when it was not set).
func (r *Settings) Delete(ctx context.Context, key string) error {
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, key); err != nil {
			return fmt.Errorf("store: delete setting %s: %w", key, err)
		}
		return nil
	})
}

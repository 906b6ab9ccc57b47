package store

import (
	"context"
	"database/sql"
	"errors"
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

// The key/value settings table.

// SettingValue returns the settings row key, or ok=false when unset.
func SettingValue(ctx context.Context, q SQLRunner, key string) (value string, ok bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: setting %s: %w", key, err)
	}
	return value, true, nil
}

// SetSetting stores value under key, replacing any previous value.
func SetSetting(ctx context.Context, q SQLRunner, key, value string) error {
	_, err := q.ExecContext(ctx,
		`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		key, value)
	if err != nil {
		return fmt.Errorf("store: set setting %s: %w", key, err)
	}
	return nil
}

// DeleteSetting removes key (no error when it was not set).
func DeleteSetting(ctx context.Context, q SQLRunner, key string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, key); err != nil {
		return fmt.Errorf("store: delete setting %s: %w", key, err)
	}
	return nil
}

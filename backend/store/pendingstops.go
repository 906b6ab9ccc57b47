package store

import (
	"context"
	"fmt"
)

// PendingStop is a stop asked while the host of a relay was unreachable
// (docs/remote.md): it is delivered when the host answers again, after a
// restart too. TaskID is "" for a server's relay (OpenCode's).
type PendingStop struct {
	RelayID     string `json:"relayId"`
	Host        string `json:"host"`
	TaskID      string `json:"taskId"`
	Reason      string `json:"reason"`
	RequestedAt int64  `json:"requestedAt"`
}

// PendingStops is the remote_pending_stops table.
type PendingStops struct{ db *DB }

// NewPendingStops returns the pending stops repository of db.
func NewPendingStops(db *DB) *PendingStops { return &PendingStops{db: db} }

// Add records s (again: its reason and time are updated).
func (r *PendingStops) Add(ctx context.Context, s PendingStop) error {
	if s.RequestedAt == 0 {
		s.RequestedAt = Now()
	}
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO remote_pending_stops (relayId, host, taskId, reason, requestedAt)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT(relayId) DO UPDATE SET reason = excluded.reason, requestedAt = excluded.requestedAt`,
		s.RelayID, s.Host, s.TaskID, s.Reason, s.RequestedAt)
	if err != nil {
		return fmt.Errorf("store: pending stop of relay %s: %w", s.RelayID, err)
	}
	return nil
}

// Remove forgets the pending stop of relayID (none: nothing happens).
func (r *PendingStops) Remove(ctx context.Context, relayID string) error {
	if _, err := r.db.W.ExecContext(ctx, `DELETE FROM remote_pending_stops WHERE relayId = ?`, relayID); err != nil {
		return fmt.Errorf("store: forget pending stop of relay %s: %w", relayID, err)
	}
	return nil
}

// List returns every pending stop, oldest first.
func (r *PendingStops) List(ctx context.Context) ([]PendingStop, error) {
	rows, err := r.db.R.QueryContext(ctx, `SELECT relayId, host, taskId, reason, requestedAt FROM remote_pending_stops ORDER BY requestedAt, relayId`)
	if err != nil {
		return nil, fmt.Errorf("store: pending stops: %w", err)
	}
	defer rows.Close()
	var out []PendingStop
	for rows.Next() {
		var s PendingStop
		if err := rows.Scan(&s.RelayID, &s.Host, &s.TaskID, &s.Reason, &s.RequestedAt); err != nil {
			return nil, fmt.Errorf("store: pending stops: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

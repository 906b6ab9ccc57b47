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

// AddPendingStop records s in remote_pending_stops (again: its reason and
// time are updated).
func AddPendingStop(ctx context.Context, q SQLRunner, s PendingStop) error {
	if s.RequestedAt == 0 {
		s.RequestedAt = Now()
	}
	_, err := q.ExecContext(ctx, `INSERT INTO remote_pending_stops (relayId, host, taskId, reason, requestedAt)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT(relayId) DO UPDATE SET reason = excluded.reason, requestedAt = excluded.requestedAt`,
		s.RelayID, s.Host, s.TaskID, s.Reason, s.RequestedAt)
	if err != nil {
		return fmt.Errorf("store: pending stop of relay %s: %w", s.RelayID, err)
	}
	return nil
}

// RemovePendingStop forgets the pending stop of relayID (none: nothing
// happens).
func RemovePendingStop(ctx context.Context, q SQLRunner, relayID string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM remote_pending_stops WHERE relayId = ?`, relayID); err != nil {
		return fmt.Errorf("store: forget pending stop of relay %s: %w", relayID, err)
	}
	return nil
}

// PendingStops returns every pending stop, oldest first.
func PendingStops(ctx context.Context, q SQLRunner) ([]PendingStop, error) {
	rows, err := q.QueryContext(ctx, `SELECT relayId, host, taskId, reason, requestedAt FROM remote_pending_stops ORDER BY requestedAt, relayId`)
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

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SetRelayProgress records that the frames of relay relayID up to seq are
// stored (in the transaction that stored them).
func SetRelayProgress(ctx context.Context, q SQLRunner, relayID, taskID string, seq uint64, now int64) error {
	if _, err := q.ExecContext(ctx, `INSERT INTO relay_progress (relayId, taskId, seq, updatedAt) VALUES (?, ?, ?, ?)
		ON CONFLICT(relayId) DO UPDATE SET seq = excluded.seq, updatedAt = excluded.updatedAt WHERE excluded.seq > relay_progress.seq`,
		relayID, taskID, int64(seq), now); err != nil {
		return fmt.Errorf("store: relay progress %s: %w", relayID, err)
	}
	return nil
}

// RelayProgress is the last stored sequence of relay relayID (0: none).
func RelayProgress(ctx context.Context, q SQLRunner, relayID string) (uint64, error) {
	var seq int64
	err := q.QueryRowContext(ctx, `SELECT seq FROM relay_progress WHERE relayId = ?`, relayID).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: relay progress %s: %w", relayID, err)
	}
	return uint64(seq), nil
}

// ForgetRelayProgress removes a relay that is gone.
func ForgetRelayProgress(ctx context.Context, q SQLRunner, relayID string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM relay_progress WHERE relayId = ?`, relayID); err != nil {
		return fmt.Errorf("store: forget relay %s: %w", relayID, err)
	}
	return nil
}

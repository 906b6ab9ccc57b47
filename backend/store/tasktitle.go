package store

import (
	"context"
	"fmt"
)

// RenameTaskIf sets task id's name to name only while it is still from:
// a one-shot title must not overwrite a name the user chose meanwhile.
// It reports whether the name changed.
func RenameTaskIf(ctx context.Context, q SQLRunner, id, from, name string) (bool, error) {
	res, err := q.ExecContext(ctx, `UPDATE tasks SET name = ? WHERE id = ? AND name = ?`, name, id, from)
	if err != nil {
		return false, fmt.Errorf("store: title of task %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: title of task %s: %w", id, err)
	}
	return n == 1, nil
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// AppendMessageRaw appends one chunk to message messageID's raw data (see
// migration 0030): a streamed message's raw data grows by chunks instead of
// being rewritten whole, so its storage is linear in its length.
func AppendMessageRaw(ctx context.Context, q SQLRunner, taskID, messageID string, idx int, data []byte) error {
	if _, err := q.ExecContext(ctx, `INSERT OR REPLACE INTO message_raw_chunks (taskId, messageId, idx, data) VALUES (?, ?, ?, ?)`,
		taskID, messageID, idx, data); err != nil {
		return fmt.Errorf("store: append raw of message %s of task %s: %w", messageID, taskID, err)
	}
	return nil
}

// ClearMessageRaw removes message messageID's chunks (its rawData was
// rewritten whole).
func ClearMessageRaw(ctx context.Context, q SQLRunner, taskID, messageID string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM message_raw_chunks WHERE taskId = ? AND messageId = ?`, taskID, messageID); err != nil {
		return fmt.Errorf("store: clear raw of message %s of task %s: %w", messageID, taskID, err)
	}
	return nil
}

// MessageRaw returns message messageID's whole raw data (its head: rawData
// or rawRefs expanded, then its chunks) and how many chunks it has.
func MessageRaw(ctx context.Context, q SQLRunner, taskID, messageID string) ([]byte, int, error) {
	var data, refs sql.NullString
	err := q.QueryRowContext(ctx, `SELECT rawData, rawRefs FROM agent_messages WHERE taskId = ? AND messageId = ?`,
		taskID, messageID).Scan(&data, &refs)
	if err != nil {
		return nil, 0, fmt.Errorf("store: raw of message %s of task %s: %w", messageID, taskID, err)
	}
	raw, err := messageRawHead(ctx, q, taskID, data, refs)
	if err != nil {
		return nil, 0, err
	}
	return messageRawTail(ctx, q, taskID, messageID, raw)
}

// AppProcess is one recorded process the app started.
type AppProcess struct {
	PID        int
	StartTicks uint64
	Role       string
}

// RecordAppProcess records a started process (replacing a stale row of a
// reused pid).
func RecordAppProcess(ctx context.Context, q SQLRunner, p AppProcess, now int64) error {
	if _, err := q.ExecContext(ctx, `INSERT OR REPLACE INTO app_processes (pid, startTicks, role, createdAt) VALUES (?, ?, ?, ?)`,
		p.PID, int64(p.StartTicks), p.Role, now); err != nil {
		return fmt.Errorf("store: record process %d: %w", p.PID, err)
	}
	return nil
}

// ForgetAppProcess removes a process that has ended.
func ForgetAppProcess(ctx context.Context, q SQLRunner, pid int) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM app_processes WHERE pid = ?`, pid); err != nil {
		return fmt.Errorf("store: forget process %d: %w", pid, err)
	}
	return nil
}

// AppProcesses lists the recorded processes.
func AppProcesses(ctx context.Context, q SQLRunner) ([]AppProcess, error) {
	rows, err := q.QueryContext(ctx, `SELECT pid, startTicks, role FROM app_processes ORDER BY createdAt`)
	if err != nil {
		return nil, fmt.Errorf("store: app processes: %w", err)
	}
	defer rows.Close()
	var out []AppProcess
	for rows.Next() {
		var p AppProcess
		var ticks int64
		if err := rows.Scan(&p.PID, &ticks, &p.Role); err != nil {
			return nil, fmt.Errorf("store: app processes: %w", err)
		}
		p.StartTicks = uint64(ticks)
		out = append(out, p)
	}
	return out, rows.Err()
}

// QuickCheck runs PRAGMA quick_check and returns its problems (nil when
// the database is sound). It reads the whole file: run it in the
// background.
func QuickCheck(ctx context.Context, q SQLRunner) ([]string, error) {
	rows, err := q.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return nil, fmt.Errorf("store: quick_check: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("store: quick_check: %w", err)
		}
		if s != "ok" {
			out = append(out, s)
		}
	}
	return out, rows.Err()
}

// MessageIDs returns the ids of task taskID's stored messages.
func MessageIDs(ctx context.Context, q SQLRunner, taskID string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT messageId FROM agent_messages WHERE taskId = ?`, taskID)
	if err != nil {
		return nil, fmt.Errorf("store: message ids of task %s: %w", taskID, err)
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: message ids of task %s: %w", taskID, err)
		}
		ids[id] = true
	}
	return ids, rows.Err()
}

// MessageByID returns one stored message and its row's createdAt; ok is
// false when the task has no message with that id.
func MessageByID(ctx context.Context, q SQLRunner, taskID, messageID string) (m agent.Message, created int64, ok bool, err error) {
	var data string
	err = q.QueryRowContext(ctx, `SELECT normalizedData, createdAt FROM agent_messages WHERE taskId = ? AND messageId = ?`,
		taskID, messageID).Scan(&data, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return m, 0, false, nil
	}
	if err != nil {
		return m, 0, false, fmt.Errorf("store: message %s of task %s: %w", messageID, taskID, err)
	}
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		return m, 0, false, fmt.Errorf("store: message %s: decode: %w", messageID, err)
	}
	return m, created, true, nil
}

// ProcessLog is an agent.ProcessRecorder over the app_processes table: it
// records every process the runtime starts and forgets it when it ended.
// A write that fails is logged (the process still runs; at worst the next
// start after a crash misses it).
type ProcessLog struct {
	DB  *DB
	Log func(msg string, args ...any)
}

var _ agent.ProcessRecorder = (*ProcessLog)(nil)

// ProcessStarted implements agent.ProcessRecorder.
func (l *ProcessLog) ProcessStarted(pid int, role string) {
	ctx := context.Background()
	err := l.DB.TxDeferIndex(ctx, func(tx *sql.Tx) error { // no message: the search index is the orchestrator's to bring up to date
		return RecordAppProcess(ctx, tx, AppProcess{PID: pid, StartTicks: proc.StartTicks(pid), Role: role}, Now())
	})
	if err != nil && l.Log != nil {
		l.Log("store: record started process", "pid", pid, "role", role, "err", err)
	}
}

// ProcessEnded implements agent.ProcessRecorder.
func (l *ProcessLog) ProcessEnded(pid int) {
	ctx := context.Background()
	err := l.DB.TxDeferIndex(ctx, func(tx *sql.Tx) error { return ForgetAppProcess(ctx, tx, pid) })
	if err != nil && l.Log != nil {
		l.Log("store: forget ended process", "pid", pid, "err", err)
	}
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// SQLRunner is what both *sql.DB and *sql.Tx offer; every store function
// takes one so it runs on a pool or inside a caller's transaction.
type SQLRunner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

const taskRunCols = taskCols + `, p.name, p.path`

func scanTaskRun(sc interface{ Scan(...any) error }) (TaskRun, error) {
	var t TaskRun
	var err error
	t.Task, err = scanTask(sc, &t.ProjectName, &t.ProjectPath)
	return t, err
}

// LoadTaskRun reads task id with its project.
func LoadTaskRun(ctx context.Context, q SQLRunner, id string) (TaskRun, error) {
	row := q.QueryRowContext(ctx, `SELECT `+taskRunCols+` FROM tasks t JOIN projects p ON p.id = t.projectId WHERE t.id = ?`, id)
	t, err := scanTaskRun(row)
	if errors.Is(err, sql.ErrNoRows) {
		return TaskRun{}, fmt.Errorf("store: task %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return TaskRun{}, fmt.Errorf("store: task %s: %w", id, err)
	}
	return t, nil
}

// TasksWithStatus lists the tasks whose status is one of statuses.
func TasksWithStatus(ctx context.Context, q SQLRunner, statuses ...TaskStatus) ([]TaskRun, error) {
	var out []TaskRun
	for _, s := range statuses {
		rows, err := q.QueryContext(ctx, `SELECT `+taskRunCols+` FROM tasks t JOIN projects p ON p.id = t.projectId WHERE t.status = ? ORDER BY t.createdAt`, s)
		if err != nil {
			return nil, fmt.Errorf("store: tasks with status %s: %w", s, err)
		}
		for rows.Next() {
			t, err := scanTaskRun(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: tasks with status %s: %w", s, err)
			}
			out = append(out, t)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("store: tasks with status %s: %w", s, err)
		}
	}
	return out, nil
}

// SetTaskStatus stores a status transition. Entering running stamps startedAt
// (first time only) and clears endedAt; entering completed, errored or
// interrupted stamps endedAt.
func SetTaskStatus(ctx context.Context, q SQLRunner, id string, status TaskStatus, reason string, now int64) error {
	var res sql.Result
	var err error
	switch status {
	case StatusRunning, StatusWaiting:
		res, err = q.ExecContext(ctx, `UPDATE tasks SET status = ?, statusReason = ?, updatedAt = ?,
			startedAt = coalesce(startedAt, ?), endedAt = NULL WHERE id = ?`, status, reason, now, now, id)
	case StatusCompleted, StatusErrored, StatusInterrupted:
		res, err = q.ExecContext(ctx, `UPDATE tasks SET status = ?, statusReason = ?, updatedAt = ?, endedAt = ?
			WHERE id = ?`, status, reason, now, now, id)
	default:
		res, err = q.ExecContext(ctx, `UPDATE tasks SET status = ?, statusReason = ?, updatedAt = ? WHERE id = ?`,
			status, reason, now, id)
	}
	return checkOne(res, err, "set status of task", id)
}

// SetTaskSessionID stores the agent's session id for resuming.
func SetTaskSessionID(ctx context.Context, q SQLRunner, id, sessionID string, now int64) error {
	res, err := q.ExecContext(ctx, `UPDATE tasks SET sessionId = ?, updatedAt = ? WHERE id = ?`, sessionID, now, id)
	return checkOne(res, err, "set session id of task", id)
}

// SetTaskMode stores the task's interaction mode.
func SetTaskMode(ctx context.Context, q SQLRunner, id, mode string, now int64) error {
	res, err := q.ExecContext(ctx, `UPDATE tasks SET interactionMode = ?, updatedAt = ? WHERE id = ?`, mode, now, id)
	return checkOne(res, err, "set mode of task", id)
}

// TaskMode returns the task's stored interaction mode.
func TaskMode(ctx context.Context, q SQLRunner, id string) (agent.InteractionMode, error) {
	var m string
	if err := q.QueryRowContext(ctx, `SELECT interactionMode FROM tasks WHERE id = ?`, id).Scan(&m); err != nil {
		return "", fmt.Errorf("store: mode of task %s: %w", id, err)
	}
	return agent.InteractionMode(m), nil
}

// SetTaskModel stores the task's model.
func SetTaskModel(ctx context.Context, q SQLRunner, id, model string, now int64) error {
	res, err := q.ExecContext(ctx, `UPDATE tasks SET model = ?, updatedAt = ? WHERE id = ?`, model, now, id)
	return checkOne(res, err, "set model of task", id)
}

// SetTaskUnread sets or clears the task's unread flag. Reading a task is
// not activity: clearing the flag keeps updatedAt.
func SetTaskUnread(ctx context.Context, q SQLRunner, id string, unread bool, now int64) error {
	res, err := q.ExecContext(ctx, `UPDATE tasks SET hasUnread = ?, updatedAt = CASE WHEN ? THEN ? ELSE updatedAt END WHERE id = ?`,
		unread, unread, now, id)
	return checkOne(res, err, "set unread of task", id)
}

func checkOne(res sql.Result, err error, what, id string) error {
	if err != nil {
		return fmt.Errorf("store: %s %s: %w", what, id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: %s %s: %w", what, id, err)
	}
	if n == 0 {
		return fmt.Errorf("store: %s %s: %w", what, id, ErrNotFound)
	}
	return nil
}

// Prepared keeps statements prepared once on a pool (the writer: a single
// connection) and runs them inside transactions without parsing them again.
// A query seen for the first time inside a transaction runs unprepared (the
// transaction holds the only connection) and is prepared by the next Warm.
type Prepared struct {
	db     *sql.DB
	mu     sync.Mutex
	stmts  map[string]*sql.Stmt
	wanted map[string]bool
	runs   []byte // the buffer raw frame runs are encoded into (runBuffer), when not lent
}

// NewPrepared returns an empty statement cache over db.
func NewPrepared(db *sql.DB) *Prepared {
	return &Prepared{db: db, stmts: map[string]*sql.Stmt{}, wanted: map[string]bool{}}
}

func (p *Prepared) stmt(query string) *sql.Stmt {
	p.mu.Lock()
	defer p.mu.Unlock()
	st, ok := p.stmts[query]
	if !ok {
		p.wanted[query] = true
	}
	return st
}

// Warm prepares the queries seen since the last call. Call it outside any
// transaction on the same pool.
func (p *Prepared) Warm(ctx context.Context) error {
	p.mu.Lock()
	var qs []string
	for q := range p.wanted {
		delete(p.wanted, q)
		if _, ok := p.stmts[q]; !ok {
			qs = append(qs, q)
		}
	}
	p.mu.Unlock()
	// Prepare without holding mu: a transaction on the connection may
	// need mu (stmt) before it lets the connection go.
	var errs []error
	for _, q := range qs {
		st, err := p.db.PrepareContext(ctx, q)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.mu.Lock()
		if _, ok := p.stmts[q]; ok {
			st.Close()
		} else {
			p.stmts[q] = st
		}
		p.mu.Unlock()
	}
	return errors.Join(errs...)
}

// Close closes every prepared statement.
func (p *Prepared) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for q, st := range p.stmts {
		errs = append(errs, st.Close())
		delete(p.stmts, q)
	}
	return errors.Join(errs...)
}

// In returns a runner that uses the prepared statements inside tx (each
// bound to tx once, at its first use).
func (p *Prepared) In(tx *sql.Tx) SQLRunner { return &preparedTx{p: p, tx: tx} }

type preparedTx struct {
	p     *Prepared
	tx    *sql.Tx
	bound map[*sql.Stmt]*sql.Stmt
}

// takeRunBuffer lends the Prepared's run buffer (nil while it is lent).
func (t *preparedTx) takeRunBuffer() []byte {
	t.p.mu.Lock()
	defer t.p.mu.Unlock()
	b := t.p.runs
	t.p.runs = nil
	return b
}

// putRunBuffer gives a run buffer back, for the next run.
func (t *preparedTx) putRunBuffer(b []byte) {
	t.p.mu.Lock()
	defer t.p.mu.Unlock()
	t.p.runs = b[:0]
}

// stmt returns query's prepared statement bound to the transaction, nil
// when query is not prepared.
func (t *preparedTx) stmt(ctx context.Context, query string) *sql.Stmt {
	st := t.p.stmt(query)
	if st == nil {
		return nil
	}
	if b := t.bound[st]; b != nil {
		return b
	}
	if t.bound == nil {
		t.bound = map[*sql.Stmt]*sql.Stmt{}
	}
	b := t.tx.StmtContext(ctx, st)
	t.bound[st] = b
	return b
}

func (t *preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

func (t *preparedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

func (t *preparedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}

// AgentProcess is the recorded process of a live session.
type AgentProcess struct {
	TaskID     string
	PID        int
	StartTicks uint64
}

// RecordAgentProcess stores the process of task p.TaskID's live session.
func RecordAgentProcess(ctx context.Context, q SQLRunner, p AgentProcess, now int64) error {
	if _, err := q.ExecContext(ctx, `INSERT OR REPLACE INTO agent_processes (taskId, pid, startTicks, createdAt) VALUES (?, ?, ?, ?)`,
		p.TaskID, p.PID, int64(p.StartTicks), now); err != nil {
		return fmt.Errorf("store: record agent process of task %s: %w", p.TaskID, err)
	}
	return nil
}

// ForgetAgentProcess removes task taskID's recorded process.
func ForgetAgentProcess(ctx context.Context, q SQLRunner, taskID string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM agent_processes WHERE taskId = ?`, taskID); err != nil {
		return fmt.Errorf("store: forget agent process of task %s: %w", taskID, err)
	}
	return nil
}

// AgentProcesses lists every recorded agent process.
func AgentProcesses(ctx context.Context, q SQLRunner) ([]AgentProcess, error) {
	rows, err := q.QueryContext(ctx, `SELECT taskId, pid, startTicks FROM agent_processes ORDER BY createdAt`)
	if err != nil {
		return nil, fmt.Errorf("store: agent processes: %w", err)
	}
	defer rows.Close()
	var out []AgentProcess
	for rows.Next() {
		var p AgentProcess
		var ticks int64
		if err := rows.Scan(&p.TaskID, &p.PID, &ticks); err != nil {
			return nil, fmt.Errorf("store: agent processes: %w", err)
		}
		p.StartTicks = uint64(ticks)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: agent processes: %w", err)
	}
	return out, nil
}

// RestoreTaskUpdatedAt sets a task's updatedAt back to at (closing the app
// is not activity). A deleted task is not an error.
func RestoreTaskUpdatedAt(ctx context.Context, q SQLRunner, id string, at int64) error {
	if _, err := q.ExecContext(ctx, `UPDATE tasks SET updatedAt = ? WHERE id = ?`, at, id); err != nil {
		return fmt.Errorf("store: restore updated time of task %s: %w", id, err)
	}
	return nil
}

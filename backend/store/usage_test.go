package store_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// TestUsageOwnCostPerTurn: Claude Code's results carry the session's
// running total (a turn costs the difference; a drop starts a new
// session), other agents' their own cost; rows are per day, project and
// agent, and turns before the period still count for the running total.
func TestUsageOwnCostPerTurn(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.W.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO projects (id, name, path, createdAt, updatedAt) VALUES ('p1', 'alpha', '/a', 0, 0), ('p2', 'beta', '/b', 0, 0)`)
	exec(`INSERT INTO tasks (id, projectId, prompt, agentBackend, createdAt, updatedAt) VALUES
		('c', 'p1', 'x', 'claude-code', 0, 0), ('x', 'p1', 'x', 'codex', 0, 0), ('b', 'p2', 'x', 'claude-code', 0, 0)`)
	day1 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.Local).UnixMilli()
	day2 := day1 + 24*3600*1000
	turn := func(task string, at int64, cost float64, in, out int) {
		exec(`INSERT INTO task_events (taskId, type, data, createdAt) VALUES (?, 'complete', ?, ?)`, task,
			fmt.Sprintf(`{"type":"complete","result":{"isError":false,"cost":{"costUsd":%g},"usage":{"inputTokens":%d,"outputTokens":%d}}}`, cost, in, out), at)
	}
	turn("c", day1-48*3600*1000, 0.01, 1, 1) // before the period
	turn("c", day1, 0.03, 100, 10)           // costs 0.02
	turn("c", day2, 0.005, 50, 5)            // a new session: 0.005
	turn("x", day1, 0.2, 1000, 100)
	turn("x", day1+1000, 0.3, 1000, 100)
	turn("b", day2, 1.5, 7, 7)
	exec(`INSERT INTO task_events (taskId, type, data, createdAt) VALUES ('x', 'error', '{}', ?)`, day1)

	rows, err := store.Usage(ctx, db.R, day1-3600*1000)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s %s %s $%.3f %d/%d %d", r.Day, r.ProjectName, r.Agent, r.CostUSD, r.InputTokens, r.OutputTokens, r.Turns))
	}
	want := []string{
		"2026-11-20 alpha claude-code $0.020 100/10 1",
		"2026-11-20 alpha codex $0.500 2000/200 2",
		"2026-11-21 alpha claude-code $0.005 50/5 1",
		"2026-11-21 beta claude-code $1.500 7/7 1",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Usage =\n%v\nwant\n%v", got, want)
	}
	u, err := store.TaskUsage(ctx, db.R, "c")
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(u.CostUSD-0.035) > 1e-9 || u.Turns != 3 || u.InputTokens != 151 {
		t.Errorf("TaskUsage(c) = %+v", u)
	}
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
)

// CompareGroup is one prompt run on several agents (issue 17).
type CompareGroup struct {
	ID         string   `json:"id"`
	ProjectID  string   `json:"projectId"`
	Prompt     string   `json:"prompt"`
	CreatedAt  int64    `json:"createdAt"`
	KeptTaskID string   `json:"keptTaskId"`
	KeptAt     int64    `json:"keptAt"`
	TaskIDs    []string `json:"taskIds"` // in the order they were chosen
}

// CheckRun is the project's check command run in a task's worktree.
type CheckRun struct {
	TaskID    string `json:"taskId"`
	Command   string `json:"command"`
	Status    string `json:"status"` // running | passed | failed | error
	ExitCode  int    `json:"exitCode"`
	Output    string `json:"output"`
	StartedAt int64  `json:"startedAt"`
	EndedAt   int64  `json:"endedAt"`
}

// Check run statuses.
const (
	CheckRunning = "running"
	CheckPassed  = "passed"
	CheckFailed  = "failed"
	CheckError   = "error"
)

// CreateCompareGroup stores a group and its members.
func CreateCompareGroup(ctx context.Context, q SQLRunner, g CompareGroup) error {
	if _, err := q.ExecContext(ctx, `INSERT INTO compare_groups (id, projectId, prompt, createdAt) VALUES (?, ?, ?, ?)`,
		g.ID, g.ProjectID, g.Prompt, g.CreatedAt); err != nil {
		return fmt.Errorf("store: create compare group: %w", err)
	}
	for i, id := range g.TaskIDs {
		if _, err := q.ExecContext(ctx, `INSERT INTO compare_members (taskId, groupId, position) VALUES (?, ?, ?)`, id, g.ID, i); err != nil {
			return fmt.Errorf("store: add task %s to compare group: %w", id, err)
		}
	}
	return nil
}

// GetCompareGroup returns a group with its members (ErrNotFound).
func GetCompareGroup(ctx context.Context, q SQLRunner, id string) (CompareGroup, error) {
	var g CompareGroup
	err := q.QueryRowContext(ctx, `SELECT id, projectId, prompt, createdAt, keptTaskId, COALESCE(keptAt, 0)
		FROM compare_groups WHERE id = ?`, id).Scan(&g.ID, &g.ProjectID, &g.Prompt, &g.CreatedAt, &g.KeptTaskID, &g.KeptAt)
	if errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("store: compare group %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return g, fmt.Errorf("store: compare group %s: %w", id, err)
	}
	rows, err := q.QueryContext(ctx, `SELECT taskId FROM compare_members WHERE groupId = ? ORDER BY position`, id)
	if err != nil {
		return g, fmt.Errorf("store: compare group %s: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return g, err
		}
		g.TaskIDs = append(g.TaskIDs, t)
	}
	return g, rows.Err()
}

// CompareGroupOf returns the group a task belongs to ("" when none).
func CompareGroupOf(ctx context.Context, q SQLRunner, taskID string) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, `SELECT groupId FROM compare_members WHERE taskId = ?`, taskID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// CompareGroups lists a project's groups, newest first.
func CompareGroups(ctx context.Context, q SQLRunner, projectID string) ([]CompareGroup, error) {
	rows, err := q.QueryContext(ctx, `SELECT id FROM compare_groups WHERE projectId = ? ORDER BY createdAt DESC`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: compare groups: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	out := make([]CompareGroup, 0, len(ids))
	for _, id := range ids {
		g, err := GetCompareGroup(ctx, q, id)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// SetCompareKept records the task kept.
func SetCompareKept(ctx context.Context, q SQLRunner, groupID, taskID string, at int64) error {
	_, err := q.ExecContext(ctx, `UPDATE compare_groups SET keptTaskId = ?, keptAt = ? WHERE id = ?`, taskID, at, groupID)
	if err != nil {
		return fmt.Errorf("store: keep %s in compare group %s: %w", taskID, groupID, err)
	}
	return nil
}

// PutCheckRun stores a task's check run, replacing the previous one.
func PutCheckRun(ctx context.Context, q SQLRunner, c CheckRun) error {
	_, err := q.ExecContext(ctx, `INSERT INTO check_runs (taskId, command, status, exitCode, output, startedAt, endedAt)
		VALUES (?, ?, ?, ?, ?, ?, NULLIF(?, 0))
		ON CONFLICT (taskId) DO UPDATE SET command = excluded.command, status = excluded.status, exitCode = excluded.exitCode,
		output = excluded.output, startedAt = excluded.startedAt, endedAt = excluded.endedAt`,
		c.TaskID, c.Command, c.Status, c.ExitCode, c.Output, c.StartedAt, c.EndedAt)
	if err != nil {
		return fmt.Errorf("store: check run of task %s: %w", c.TaskID, err)
	}
	return nil
}

// GetCheckRun returns a task's check run (ok false when none).
func GetCheckRun(ctx context.Context, q SQLRunner, taskID string) (CheckRun, bool, error) {
	var c CheckRun
	err := q.QueryRowContext(ctx, `SELECT taskId, command, status, exitCode, output, startedAt, COALESCE(endedAt, 0)
		FROM check_runs WHERE taskId = ?`, taskID).Scan(&c.TaskID, &c.Command, &c.Status, &c.ExitCode, &c.Output, &c.StartedAt, &c.EndedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("store: check run of task %s: %w", taskID, err)
	}
	return c, true, nil
}

// ProjectCheck returns a project's check command ("" when none).
func ProjectCheck(ctx context.Context, q SQLRunner, projectID string) (string, error) {
	var cmd string
	err := q.QueryRowContext(ctx, `SELECT command FROM project_checks WHERE projectId = ?`, projectID).Scan(&cmd)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: check command of project %s: %w", projectID, err)
	}
	return cmd, nil
}

// SetProjectCheck stores a project's check command ("" removes it).
func SetProjectCheck(ctx context.Context, q SQLRunner, projectID, command string) error {
	var err error
	if command == "" {
		_, err = q.ExecContext(ctx, `DELETE FROM project_checks WHERE projectId = ?`, projectID)
	} else {
		_, err = q.ExecContext(ctx, `INSERT INTO project_checks (projectId, command) VALUES (?, ?)
			ON CONFLICT (projectId) DO UPDATE SET command = excluded.command`, projectID, command)
	}
	if err != nil {
		return fmt.Errorf("store: set check command of project %s: %w", projectID, err)
	}
	return nil
}

// UsageRow is one project × agent × day of cost and tokens.
type UsageRow struct {
	Day          string  `json:"day"` // YYYY-MM-DD, local time
	ProjectID    string  `json:"projectId"`
	ProjectName  string  `json:"projectName"`
	Agent        string  `json:"agent"`
	CostUSD      float64 `json:"costUsd"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	Turns        int     `json:"turns"`
}

// cumulativeCost: the backends whose turn results carry the session's
// running total (Claude Code's total_cost_usd), not the turn's own cost;
// a turn then costs the difference from the previous total, or its whole
// total when it dropped (a new process). Same rule as timeline/cost.ts.
func cumulativeCost(backend string) bool { return backend == "claude-code" }

// turnCoster turns results' costs into each turn's own cost, per task.
type turnCoster map[string]float64

func (c turnCoster) own(taskID, backend string, cost float64) float64 {
	if !cumulativeCost(backend) {
		return cost
	}
	prev, ok := c[taskID]
	c[taskID] = cost
	if ok && cost >= prev {
		return cost - prev
	}
	return cost
}

const usageSelect = `SELECT e.taskId, e.createdAt, date(e.createdAt / 1000, 'unixepoch', 'localtime'), t.projectId, p.name, t.agentBackend,
	COALESCE(json_extract(e.data, '$.result.cost.costUsd'), 0),
	COALESCE(json_extract(e.data, '$.result.usage.inputTokens'), 0),
	COALESCE(json_extract(e.data, '$.result.usage.outputTokens'), 0)
	FROM task_events e JOIN tasks t ON t.id = e.taskId JOIN projects p ON p.id = t.projectId
	WHERE e.type = 'complete'`

// usageEach calls fn with every finished turn (filtered by where/args), in
// order per task, with the turn's own cost.
func usageEach(ctx context.Context, q SQLRunner, where string, args []any, fn func(createdAt int64, r UsageRow)) error {
	rows, err := q.QueryContext(ctx, usageSelect+where+` ORDER BY e.taskId, e.id`, args...)
	if err != nil {
		return fmt.Errorf("store: usage: %w", err)
	}
	defer rows.Close()
	costs := turnCoster{}
	for rows.Next() {
		var taskID string
		var at int64
		var r UsageRow
		if err := rows.Scan(&taskID, &at, &r.Day, &r.ProjectID, &r.ProjectName, &r.Agent, &r.CostUSD, &r.InputTokens, &r.OutputTokens); err != nil {
			return fmt.Errorf("store: usage: %w", err)
		}
		r.CostUSD = costs.own(taskID, r.Agent, r.CostUSD)
		r.Turns = 1
		fn(at, r)
	}
	return rows.Err()
}

// Usage sums the finished turns' own cost and tokens (the stored "complete"
// events) per project, agent and day since since (ms), by day then project
// name then agent.
func Usage(ctx context.Context, q SQLRunner, since int64) ([]UsageRow, error) {
	type key struct{ day, project, agent string }
	sums := map[key]*UsageRow{}
	var order []key
	err := usageEach(ctx, q, "", nil, func(at int64, r UsageRow) {
		if at < since {
			return // still read: a cumulative total needs the turns before
		}
		k := key{r.Day, r.ProjectID, r.Agent}
		s, ok := sums[k]
		if !ok {
			s = &UsageRow{Day: r.Day, ProjectID: r.ProjectID, ProjectName: r.ProjectName, Agent: r.Agent}
			sums[k] = s
			order = append(order, k)
		}
		s.CostUSD += r.CostUSD
		s.InputTokens += r.InputTokens
		s.OutputTokens += r.OutputTokens
		s.Turns++
	})
	if err != nil {
		return nil, err
	}
	out := make([]UsageRow, 0, len(order))
	for _, k := range order {
		out = append(out, *sums[k])
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Day != b.Day {
			return a.Day < b.Day
		}
		if a.ProjectName != b.ProjectName {
			return a.ProjectName < b.ProjectName
		}
		return a.Agent < b.Agent
	})
	return out, nil
}

// TaskUsage sums one task's finished turns' own cost and tokens.
func TaskUsage(ctx context.Context, q SQLRunner, taskID string) (UsageRow, error) {
	var sum UsageRow
	err := usageEach(ctx, q, " AND e.taskId = ?", []any{taskID}, func(_ int64, r UsageRow) {
		sum.ProjectID, sum.ProjectName, sum.Agent = r.ProjectID, r.ProjectName, r.Agent
		sum.CostUSD += r.CostUSD
		sum.InputTokens += r.InputTokens
		sum.OutputTokens += r.OutputTokens
		sum.Turns++
	})
	return sum, err
}

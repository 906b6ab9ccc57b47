package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Permission rule scopes and match kinds.
const (
	ScopeOnce    = "once"
	ScopeTask    = "task"
	ScopeProject = "project"

	MatchPrefix = "prefix" // a command equal to the pattern or the pattern plus arguments
	MatchExact  = "exact"  // exactly the pattern
	MatchFolder = "folder" // a path inside the pattern folder
)

// Decision sources: who answered a permission request.
const (
	SourceUser = "user" // the user
	SourceRule = "rule" // an "always allow" rule
	SourceMode = "mode" // the task's mode (bypass allows every request)
)

// PermissionRule is an "always allow" rule. The orchestrator decides what a
// request's subject is and how it matches (see orchestrator.MatchRule).
type PermissionRule struct {
	ID        string `json:"id"`
	Scope     string `json:"scope"` // task | project
	ProjectID string `json:"projectId"`
	TaskID    string `json:"taskId,omitempty"`
	ToolName  string `json:"toolName"`
	MatchKind string `json:"matchKind"` // prefix | exact
	Pattern   string `json:"pattern"`
	// SubjectType is what the rule is about: command, path or other
	// (orchestrator.Subject); it decides which kinds an edit may choose.
	SubjectType string `json:"subjectType"`
	CreatedAt   int64  `json:"createdAt"`
}

// InsertRule stores a rule.
func InsertRule(ctx context.Context, q SQLRunner, r PermissionRule) error {
	var task any
	if r.TaskID != "" {
		task = r.TaskID
	}
	st := r.SubjectType
	if st == "" {
		st = "other"
	}
	_, err := q.ExecContext(ctx, `INSERT INTO permission_rules (id, scope, projectId, taskId, toolName, matchKind, pattern, subjectType, createdAt)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, r.Scope, r.ProjectID, task, r.ToolName, r.MatchKind, r.Pattern, st, r.CreatedAt)
	if err != nil {
		return fmt.Errorf("store: insert permission rule: %w", err)
	}
	return nil
}

// RulesFor returns the rules that may apply to a request of toolName in task
// taskID of project projectID: the task's own rules first, then the
// project's, oldest first.
func RulesFor(ctx context.Context, q SQLRunner, projectID, taskID, toolName string) ([]PermissionRule, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, scope, projectId, coalesce(taskId, ''), toolName, matchKind, pattern, subjectType, createdAt
		FROM permission_rules
		WHERE toolName = ? AND ((scope = 'task' AND taskId = ?) OR (scope = 'project' AND projectId = ?))
		ORDER BY scope DESC, createdAt, id`, toolName, taskID, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: permission rules: %w", err)
	}
	return scanRules(rows)
}

// ProjectRules returns every rule of a project (task rules included).
func ProjectRules(ctx context.Context, q SQLRunner, projectID string) ([]PermissionRule, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, scope, projectId, coalesce(taskId, ''), toolName, matchKind, pattern, subjectType, createdAt
		FROM permission_rules WHERE projectId = ? ORDER BY createdAt, id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: permission rules: %w", err)
	}
	return scanRules(rows)
}

// Rule returns one rule.
func Rule(ctx context.Context, q SQLRunner, id string) (PermissionRule, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, scope, projectId, coalesce(taskId, ''), toolName, matchKind, pattern, subjectType, createdAt
		FROM permission_rules WHERE id = ?`, id)
	if err != nil {
		return PermissionRule{}, fmt.Errorf("store: permission rule: %w", err)
	}
	rs, err := scanRules(rows)
	if err != nil {
		return PermissionRule{}, err
	}
	if len(rs) == 0 {
		return PermissionRule{}, fmt.Errorf("store: permission rule %s: %w", id, ErrNotFound)
	}
	return rs[0], nil
}

// UpdateRule changes what a rule covers.
func UpdateRule(ctx context.Context, q SQLRunner, id, matchKind, pattern string) error {
	res, err := q.ExecContext(ctx, `UPDATE permission_rules SET matchKind = ?, pattern = ? WHERE id = ?`, matchKind, pattern, id)
	return checkOne(res, err, "update permission rule", id)
}

// DeleteRule removes a rule.
func DeleteRule(ctx context.Context, q SQLRunner, id string) error {
	res, err := q.ExecContext(ctx, `DELETE FROM permission_rules WHERE id = ?`, id)
	return checkOne(res, err, "delete permission rule", id)
}

func scanRules(rows *sql.Rows) ([]PermissionRule, error) {
	defer rows.Close()
	out := []PermissionRule{}
	for rows.Next() {
		var r PermissionRule
		if err := rows.Scan(&r.ID, &r.Scope, &r.ProjectID, &r.TaskID, &r.ToolName, &r.MatchKind, &r.Pattern, &r.SubjectType, &r.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: permission rules: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: permission rules: %w", err)
	}
	return out, nil
}

// PermissionDecision records one answer to a permission request.
type PermissionDecision struct {
	ID        int64  `json:"id"`
	TaskID    string `json:"taskId"`
	RequestID string `json:"requestId"`
	ToolID    string `json:"toolId,omitempty"`
	ToolName  string `json:"toolName"`
	Input     string `json:"input,omitempty"`
	Behavior  string `json:"behavior"` // allow | deny
	Scope     string `json:"scope"`    // once | task | project
	Source    string `json:"source"`   // SourceUser | SourceRule | SourceMode
	RuleID    string `json:"ruleId,omitempty"`
	// Label says it for the UI: "allowed by rule: Bash(npm test:*) for this project".
	Label     string `json:"label"`
	Message   string `json:"message,omitempty"`
	CreatedAt int64  `json:"createdAt"`
}

// InsertDecision stores a decision and returns it with its id.
func InsertDecision(ctx context.Context, q SQLRunner, d PermissionDecision) (PermissionDecision, error) {
	var rule any
	if d.RuleID != "" {
		rule = d.RuleID
	}
	err := q.QueryRowContext(ctx, `INSERT INTO permission_decisions
		(taskId, requestId, toolId, toolName, input, behavior, scope, source, ruleId, label, message, createdAt)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		d.TaskID, d.RequestID, d.ToolID, d.ToolName, d.Input, d.Behavior, d.Scope, d.Source, rule, d.Label, d.Message, d.CreatedAt).Scan(&d.ID)
	if err != nil {
		return d, fmt.Errorf("store: insert permission decision for %s: %w", d.RequestID, err)
	}
	return d, nil
}

// Decisions returns a task's permission decisions, oldest first.
func Decisions(ctx context.Context, q SQLRunner, taskID string) ([]PermissionDecision, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, requestId, toolId, toolName, coalesce(input, ''), behavior, scope, source,
		coalesce(ruleId, ''), label, message, createdAt FROM permission_decisions WHERE taskId = ? ORDER BY id`, taskID)
	if err != nil {
		return nil, fmt.Errorf("store: permission decisions of task %s: %w", taskID, err)
	}
	defer rows.Close()
	out := []PermissionDecision{}
	for rows.Next() {
		d := PermissionDecision{TaskID: taskID}
		if err := rows.Scan(&d.ID, &d.RequestID, &d.ToolID, &d.ToolName, &d.Input, &d.Behavior, &d.Scope, &d.Source,
			&d.RuleID, &d.Label, &d.Message, &d.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: permission decisions of task %s: %w", taskID, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: permission decisions of task %s: %w", taskID, err)
	}
	return out, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Host is an SSH destination added by hand, with its last health check.
type Host struct {
	Name          string `json:"name"`
	AddedAt       int64  `json:"addedAt"`
	LastHealth    string `json:"lastHealth"` // JSON of remote.Health, "" = never checked
	LastCheckedAt int64  `json:"lastCheckedAt"`
}

// The remote_hosts and project_hosts tables.

// AddHost records a host (the caller validated the name); adding it again is
// ErrDuplicate.
func AddHost(ctx context.Context, q SQLRunner, name string) (Host, error) {
	h := Host{Name: name, AddedAt: Now()}
	_, err := q.ExecContext(ctx, `INSERT INTO remote_hosts (name, addedAt) VALUES (?, ?)`, h.Name, h.AddedAt)
	if isUnique(err) {
		return Host{}, fmt.Errorf("store: host %s: %w", name, ErrDuplicate)
	}
	if err != nil {
		return Host{}, fmt.Errorf("store: add host %s: %w", name, err)
	}
	return h, nil
}

// ListHosts returns the hosts added by hand, by name.
func ListHosts(ctx context.Context, q SQLRunner) ([]Host, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, addedAt, lastHealth, lastCheckedAt FROM remote_hosts ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("store: hosts: %w", err)
	}
	defer rows.Close()
	out := []Host{}
	for rows.Next() {
		var h Host
		if err := rows.Scan(&h.Name, &h.AddedAt, &h.LastHealth, &h.LastCheckedAt); err != nil {
			return nil, fmt.Errorf("store: hosts: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// RemoveHost forgets a host added by hand (projects on it keep their setting).
func RemoveHost(ctx context.Context, q SQLRunner, name string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM remote_hosts WHERE name = ?`, name); err != nil {
		return fmt.Errorf("store: remove host %s: %w", name, err)
	}
	return nil
}

// SaveHostHealth stores a host's last health check (the host row is created if
// it came from ~/.ssh/config).
func SaveHostHealth(ctx context.Context, q SQLRunner, name, healthJSON string) error {
	now := Now()
	_, err := q.ExecContext(ctx, `INSERT INTO remote_hosts (name, addedAt, lastHealth, lastCheckedAt) VALUES (?, 0, ?, ?)
		ON CONFLICT(name) DO UPDATE SET lastHealth = excluded.lastHealth, lastCheckedAt = excluded.lastCheckedAt`,
		name, healthJSON, now)
	if err != nil {
		return fmt.Errorf("store: health of %s: %w", name, err)
	}
	return nil
}

// ProjectHost is where a remote project lives.
type ProjectHost struct {
	ProjectID string `json:"projectId"`
	Host      string `json:"host"`
	Path      string `json:"path"`
}

// SetProjectHost makes project id live on host at path; host "" makes it
// local again.
func SetProjectHost(ctx context.Context, q SQLRunner, id, host, path string) error {
	var err error
	if host == "" {
		_, err = q.ExecContext(ctx, `DELETE FROM project_hosts WHERE projectId = ?`, id)
	} else {
		_, err = q.ExecContext(ctx, `INSERT INTO project_hosts (projectId, host, path) VALUES (?, ?, ?)
			ON CONFLICT(projectId) DO UPDATE SET host = excluded.host, path = excluded.path`, id, host, path)
	}
	if err != nil {
		return fmt.Errorf("store: host of project %s: %w", id, err)
	}
	return nil
}

// GetProjectHost returns where project id lives (ok false: a local project).
func GetProjectHost(ctx context.Context, q SQLRunner, id string) (ProjectHost, bool, error) {
	p := ProjectHost{ProjectID: id}
	err := q.QueryRowContext(ctx, `SELECT host, path FROM project_hosts WHERE projectId = ?`, id).Scan(&p.Host, &p.Path)
	if errors.Is(err, sql.ErrNoRows) {
		return ProjectHost{}, false, nil
	}
	if err != nil {
		return ProjectHost{}, false, fmt.Errorf("store: host of project %s: %w", id, err)
	}
	return p, true, nil
}

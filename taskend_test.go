package main

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Deleting a task through the task service as the app wires it (newSessions,
// sessions.ender) revokes the task's token of the app's MCP server: a
// request with it is refused afterwards, while another task's still works.
func TestDeletingATaskRevokesItsToolsToken(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := agent.NewRegistry()
	sess, err := newSessions(ctx, db, reg, nopEmit{}, nil, nil, func(string) {}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.stop(context.Background())
	if sess.mcp == nil {
		t.Fatal("no MCP server")
	}
	now := store.Now()
	if _, err := db.W.ExecContext(ctx, `INSERT INTO projects (id, name, path, createdAt, updatedAt) VALUES ('p1', 'proj', ?, ?, ?)`,
		t.TempDir(), now, now); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"t1", "t2"} {
		if _, err := db.W.ExecContext(ctx, `INSERT INTO tasks (id, projectId, name, prompt, agentBackend, interactionMode, createdAt, updatedAt)
			VALUES (?, 'p1', ?, 'go', 'fake', 'ask', ?, ?)`, id, id, now, now); err != nil {
			t.Fatal(err)
		}
	}
	m1, err := sess.mcp.Grant("t1")
	if err != nil {
		t.Fatal(err)
	}
	m2, err := sess.mcp.Grant("t2")
	if err != nil {
		t.Fatal(err)
	}
	if got := mcpStatus(t, m1); got == http.StatusUnauthorized {
		t.Fatalf("t1's token before the delete: %d", got)
	}
	svc := services.NewTaskService(ctx, db, reg, nil, nil, sess.ender())
	if err := svc.Delete("t1"); err != nil {
		t.Fatal(err)
	}
	if got := mcpStatus(t, m1); got != http.StatusUnauthorized {
		t.Errorf("a deleted task's token: %d, want 401", got)
	}
	if got := mcpStatus(t, m2); got == http.StatusUnauthorized {
		t.Errorf("another task's token: %d, refused", got)
	}
}

// A stop that fails revokes nothing (the task is kept and its agent may run
// on); a task the orchestrator does not know (store.ErrNotFound, which the
// delete goes on with) is revoked.
func TestTaskEndRevokesOnlyOnceStopped(t *testing.T) {
	failed := errors.New("the agent would not stop")
	for _, c := range []struct {
		stopErr error
		revoked bool
	}{{nil, true}, {store.ErrNotFound, true}, {failed, false}} {
		r := &revokes{}
		err := taskEnd{stop: stopFunc(func(context.Context, string) error { return c.stopErr }), tokens: r}.Stop(context.Background(), "t1")
		if !errors.Is(err, c.stopErr) || (c.stopErr == nil && err != nil) {
			t.Errorf("stop error %v: Stop returned %v", c.stopErr, err)
		}
		if got := len(r.ids) == 1 && r.ids[0] == "t1"; got != c.revoked {
			t.Errorf("stop error %v: revoked %v, want %v", c.stopErr, r.ids, c.revoked)
		}
	}
}

type stopFunc func(context.Context, string) error

func (f stopFunc) Stop(ctx context.Context, id string) error { return f(ctx, id) }

type revokes struct{ ids []string }

func (r *revokes) Revoke(id string) { r.ids = append(r.ids, id) }

type nopEmit struct{}

func (nopEmit) Emit(string, any) {}

// mcpStatus is the HTTP status of a request to m's server with m's token
// (the server answers 401 before it reads the body when the token is not
// valid).
func mcpStatus(t *testing.T, m *agent.MCPServer) int {
	t.Helper()
	req, _ := http.NewRequest("POST", m.URL, strings.NewReader(`{}`))
	req.Header.Set("Authorization", m.Header())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

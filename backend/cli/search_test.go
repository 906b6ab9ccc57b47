package cli_test

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

func TestSearchCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jc.db")
	ctx := t.Context()
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "alpha", Path: "/alpha"})
	if err != nil {
		t.Fatal(err)
	}
	task, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "fix it", Prompt: "x", AgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := store.UpsertMessage(ctx, tx, store.MessageWrite{TaskID: task.ID, Format: "claude-code", Version: 1, Now: 1,
			Message: agent.Message{ID: "m1", Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: "Renamed load_config to loadSettings in café.go"}}}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	r := run(t, "", "--db", path, "search", "load_config")
	if r.code != 0 || !strings.Contains(r.stdout, "alpha / fix it  [assistant]") || !strings.Contains(r.stdout, "**load_config**") {
		t.Errorf("search: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	r = run(t, "", "--db", path, "search", "--json", "--project", "alpha", "--role", "assistant", "cafe")
	var hit store.SearchHit
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &hit) != nil || hit.TaskID != task.ID || hit.MessageID != "m1" {
		t.Errorf("search --json: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if r = run(t, "", "--db", path, "search", "--role", "user", "cafe"); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no match") {
		t.Errorf("search with no match: %+v", r)
	}
	if r = run(t, "", "--db", path, "search"); r.code != 2 {
		t.Errorf("search without a query: %+v", r)
	}
	if r = run(t, "", "--db", path, "search", "--project", "nope", "x"); r.code != 2 {
		t.Errorf("search in an unknown project: %+v", r)
	}
}

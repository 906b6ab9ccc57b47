package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/limits"
	"github.com/jean-claude/jean-claude/backend/store"
)

// TestProcessUsageLimitReportedThenRetried: the fake Claude Code answers the
// first turn with "Claude AI usage limit reached|<epoch>"; OnLimit gets the
// reset time once the frame is stored, and sending the last user message
// again (what limits.Scheduler does at the reset) reaches the still-live
// session, which answers it.
func TestProcessUsageLimitReportedThenRetried(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	reset := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	script := filepath.Join(t.TempDir(), "limit.jsonl")
	body := fmt.Sprintf(`{"type":"system","subtype":"init","cwd":".","session_id":"s-lim","tools":[],"model":"claude-fake","permissionMode":"default","uuid":"l1"}
{"type":"result","subtype":"success","is_error":true,"duration_ms":5,"num_turns":1,"result":"Claude AI usage limit reached|%d","session_id":"s-lim","total_cost_usd":0,"uuid":"l2"}
`, reset.Unix())
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan limits.Limit, 4)
	rec := newRecorder(t, db)
	o, err := New(Options{DB: db, Backends: claudeRegistry(t, "FAKE_CLAUDE_SCRIPT="+script), Emitter: rec,
		Formats: agent.NewFormats(claude.Format()),
		OnLimit: func(id string, l limits.Limit) {
			if id == "t1" {
				got <- l
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	addTask(t, db, "t1", "claude-code", "Finish the report")
	if err := o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-got:
		if !l.ResetAt.Equal(reset) || l.Kind != "usage" {
			t.Fatalf("limit = %+v, want a usage limit resetting at %v", l, reset)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("OnLimit was not called")
	}
	waitStatus(t, db, "t1", store.StatusErrored)
	text, ok, err := store.LastUserText(ctx, db.R, "t1")
	if err != nil || !ok || text != "Finish the report" {
		t.Fatalf("LastUserText = %q, %v, %v", text, ok, err)
	}
	if err := o.SendMessage(ctx, "t1", text); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the retried message answered", answered(t, o, "t1", text))
	waitStatus(t, db, "t1", store.StatusCompleted)
}

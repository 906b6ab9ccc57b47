package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/agent/gemini"
	"github.com/jean-claude/jean-claude/backend/store"
)

// storeFixtureAtVersion1 normalizes a recorded Claude stream as the live loop
// would and stores its messages at normalizedVersion 1 with stale data.
func storeFixtureAtVersion1(t *testing.T, db *store.DB, taskID, file string) map[string]agent.Message {
	t.Helper()
	ctx := context.Background()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]agent.Message{}
	for ev, err := range agent.Normalize(claude.Format(), bytes.NewReader(raw)) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type != agent.EventMessage {
			continue
		}
		if len(ev.Raw) == 0 {
			t.Fatalf("message %s without Raw", ev.Message.ID)
		}
		m, err := store.UpsertMessage(ctx, db.W, store.MessageWrite{TaskID: taskID, Message: *ev.Message, Raw: ev.Raw,
			Format: claude.FormatName, Version: 1, Now: 1700000000000})
		if err != nil {
			t.Fatal(err)
		}
		last[m.ID] = m
	}
	if len(last) < 3 {
		t.Fatalf("fixture %s gave %d messages", file, len(last))
	}
	// What an older normalizer wrote: different data at version 1.
	if _, err := db.W.Exec(`UPDATE agent_messages SET normalizedData = '{"id":"old","role":"assistant","parts":[]}' WHERE taskId = ?`, taskID); err != nil {
		t.Fatal(err)
	}
	return last
}

func TestRenormalizeRewritesOldRowsLikeFreshNormalization(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	addTask(t, db, "t1", "fake", "go")
	addTask(t, db, "t2", "fake", "go")
	want := storeFixtureAtVersion1(t, db, "t1", "testdata/main_print_bypass.jsonl")
	for k, v := range storeFixtureAtVersion1(t, db, "t2", "testdata/bidi_perm_allow.jsonl") {
		want["t2/"+k] = v
	}
	// A follow-up the orchestrator stored itself (no raw data) and a row of
	// a format this build does not know: both keep their data.
	if _, err := store.UpsertMessage(ctx, db.W, store.MessageWrite{TaskID: "t1", Message: userMessage("hi"),
		Format: UserMessageFormat, Version: 1, Now: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.W.Exec(`INSERT INTO agent_messages (taskId, messageId, messageIndex, role, normalizedData, rawData, rawFormat, normalizedVersion, createdAt, updatedAt)
		VALUES ('t1', 'alien', 99, 'assistant', '{"id":"alien"}', 'x', 'martian', 1, 1, 1)`); err != nil {
		t.Fatal(err)
	}
	total, _ := store.CountStaleMessages(ctx, db.R, 2)

	h := newHarness(t, Options{DB: db, NormalizationVersion: 2, RenormalizeBatch: 3,
		Formats: agent.NewFormats(claude.Format())})
	done, err := h.o.Renormalize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if done != total {
		t.Fatalf("done %d of %d", done, total)
	}
	if n, _ := store.CountStaleMessages(ctx, db.R, 2); n != 0 {
		t.Fatalf("%d rows still stale", n)
	}
	for _, task := range []string{"t1", "t2"} {
		rows, err := db.R.Query(`SELECT messageId, normalizedData FROM agent_messages WHERE taskId = ? AND rawFormat = ?`, task, claude.FormatName)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var id, data string
			if err := rows.Scan(&id, &data); err != nil {
				t.Fatal(err)
			}
			key := id
			if task == "t2" {
				key = "t2/" + id
			}
			var got agent.Message
			if err := json.Unmarshal([]byte(data), &got); err != nil {
				t.Fatal(err)
			}
			wantJSON, _ := json.Marshal(want[key])
			if data != string(wantJSON) {
				t.Errorf("%s: re-normalized differs from fresh normalization:\n%s", key, cmp.Diff(string(wantJSON), data))
			}
			n++
		}
		rows.Close()
		if n == 0 {
			t.Fatalf("no rows for %s", task)
		}
	}
	var alien string
	_ = db.R.QueryRow(`SELECT normalizedData FROM agent_messages WHERE messageId = 'alien'`).Scan(&alien)
	if alien != `{"id":"alien"}` {
		t.Fatalf("unknown-format row rewritten: %s", alien)
	}
	var progress []ProgressPayload
	for _, e := range h.rec.all() {
		if p, ok := e.Payload.(ProgressPayload); ok {
			progress = append(progress, p)
		}
	}
	if len(progress) < 3 || progress[len(progress)-1] != (ProgressPayload{Done: total, Total: total}) {
		t.Fatalf("progress %+v", progress)
	}
	// Nothing left: a second run does nothing.
	if done, err := h.o.Renormalize(ctx); done != 0 || err != nil {
		t.Fatalf("second run: %d %v", done, err)
	}
}

func TestRenormalizeStopsOnCancel(t *testing.T) {
	db := openDB(t)
	addTask(t, db, "t1", "fake", "go")
	storeFixtureAtVersion1(t, db, "t1", "testdata/main_print_bypass.jsonl")
	h := newHarness(t, Options{DB: db, NormalizationVersion: 2, RenormalizeBatch: 1,
		Formats: agent.NewFormats(claude.Format())})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.o.Renormalize(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
}

// TestRenormalizeDropsCopiedReplyFromResultRows: a Gemini turn's result row
// as normalization version 1 stored it, with the reply copied into its
// `result`, is rewritten at the current version without it (the reply stays
// in its assistant message).
func TestRenormalizeDropsCopiedReplyFromResultRows(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	addTask(t, db, "t1", "gemini", "go")
	raw, err := os.ReadFile("testdata/gemini_main_yolo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	resultID := ""
	for ev, err := range agent.Normalize(gemini.Format(), bytes.NewReader(raw)) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type != agent.EventMessage {
			continue
		}
		m := *ev.Message
		if m.Role == agent.RoleResult {
			resultID, m.Result = m.ID, "the reply, copied by version 1"
		}
		if _, err := store.UpsertMessage(ctx, db.W, store.MessageWrite{TaskID: "t1", Message: m, Raw: ev.Raw,
			Format: gemini.FormatName, Version: 1, Now: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if resultID == "" {
		t.Fatal("the recording has no result message")
	}
	h := newHarness(t, Options{DB: db, Formats: agent.NewFormats(gemini.Format())})
	if done, err := h.o.Renormalize(ctx); err != nil || done == 0 {
		t.Fatalf("Renormalize: %d rows, %v", done, err)
	}
	var data string
	var version int
	if err := db.R.QueryRow(`SELECT normalizedData, normalizedVersion FROM agent_messages WHERE taskId = 't1' AND messageId = ?`, resultID).
		Scan(&data, &version); err != nil {
		t.Fatal(err)
	}
	var got agent.Message
	if err := json.Unmarshal([]byte(data), &got); err != nil {
		t.Fatal(err)
	}
	if got.Result != "" || got.Role != agent.RoleResult || version != agent.NormalizationVersion {
		t.Fatalf("result row after Renormalize: version %d, %s", version, data)
	}
}

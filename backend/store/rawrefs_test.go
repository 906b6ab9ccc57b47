package store

import (
	"context"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/migrations"
)

// TestRawRefsRebuildRawData: a message whose raw data names its frames
// (head and chunks) reads back as the frames joined by newlines, through
// MessageRaw (live reload) and StaleMessages (re-normalization), gzip'd
// frames included; a missing frame is an error, not a silent gap.
func TestRawRefsRebuildRawData(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	frames := []string{`{"a":1}`, `{"a":2}`, strings.Repeat(`{"big":"xxxxxxxx"}`, 400), `{"a":4}`, `{"a":5}`}
	for i, f := range frames {
		if err := InsertRawFrame(ctx, db.W, RawFrame{TaskID: "t", Seq: int64(i + 1), Format: "claude-code", Data: []byte(f), ReceivedAt: 1}); err != nil {
			t.Fatal(err)
		}
	}
	head := RawRefs{}.Add(1).Add(2).Add(3)
	if head.String() != "[[1,3]]" {
		t.Fatalf("refs %s", head)
	}
	if _, err := UpsertMessage(ctx, db.W, MessageWrite{TaskID: "t", Message: agent.Message{ID: "m", Role: agent.RoleAssistant},
		RawRefs: head, Format: "claude-code", Version: 1, Now: 1}); err != nil {
		t.Fatal(err)
	}
	if err := AppendMessageRawRefs(ctx, db.W, "t", "m", 0, []byte("\n"), RawRefs{}.Add(5)); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{frames[0], frames[1], frames[2], frames[4]}, "\n")
	raw, n, err := MessageRaw(ctx, db.R, "t", "m")
	if err != nil || n != 1 || string(raw) != want {
		t.Fatalf("MessageRaw: %d chunks, err %v, %d bytes (want %d)", n, err, len(raw), len(want))
	}
	stale, err := StaleMessages(ctx, db.R, 2, 0, 10)
	if err != nil || len(stale) != 1 || string(stale[0].Raw) != want {
		t.Fatalf("StaleMessages: %v, %d rows", err, len(stale))
	}
	// KeepRaw keeps the references.
	if _, err := UpsertMessage(ctx, db.W, MessageWrite{TaskID: "t", Message: agent.Message{ID: "m", Role: agent.RoleAssistant},
		KeepRaw: true, Format: "claude-code", Version: 1, Now: 2, Exists: true}); err != nil {
		t.Fatal(err)
	}
	if raw, _, _ := MessageRaw(ctx, db.R, "t", "m"); string(raw) != want {
		t.Fatal("KeepRaw lost the references")
	}
	if _, err := db.W.Exec(`DELETE FROM raw_frames WHERE seq = 2`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := MessageRaw(ctx, db.R, "t", "m"); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing frame: err %v", err)
	}
}

// TestRawRefsDownMigrationExpands: migration 0125's down step turns the
// references back into copies.
func TestRawRefsDownMigrationExpands(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	for i, f := range []string{`{"a":1}`, `{"a":2}`, `{"a":3}`} {
		if err := InsertRawFrame(ctx, db.W, RawFrame{TaskID: "t", Seq: int64(i + 1), Format: "claude-code", Data: []byte(f), ReceivedAt: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := UpsertMessage(ctx, db.W, MessageWrite{TaskID: "t", Message: agent.Message{ID: "m", Role: agent.RoleAssistant},
		RawRefs: RawRefs{}.Add(1).Add(2), Format: "claude-code", Version: 1, Now: 1}); err != nil {
		t.Fatal(err)
	}
	if err := AppendMessageRawRefs(ctx, db.W, "t", "m", 0, []byte("\n"), RawRefs{}.Add(3)); err != nil {
		t.Fatal(err)
	}
	down, err := migrations.FS.ReadFile("0125_raw_refs.down.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.W.Exec(string(down)); err != nil {
		t.Fatal(err)
	}
	var head, chunk string
	if err := db.R.QueryRow(`SELECT rawData, (SELECT CAST(data AS TEXT) FROM message_raw_chunks) FROM agent_messages`).Scan(&head, &chunk); err != nil {
		t.Fatal(err)
	}
	if head != `{"a":1}`+"\n"+`{"a":2}` || chunk != "\n"+`{"a":3}` {
		t.Fatalf("after down: rawData %q, chunk %q", head, chunk)
	}
}

package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

func openOrchTestDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "o.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := Now()
	if _, err := db.W.Exec(`INSERT INTO projects (id, name, path, createdAt, updatedAt) VALUES ('p', 'p', '/p', ?, ?)`, now, now); err != nil {
		t.Fatal(err)
	}
	if _, err := db.W.Exec(`INSERT INTO tasks (id, projectId, prompt, createdAt, updatedAt) VALUES ('t', 'p', 'go', ?, ?)`, now, now); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestRawFramesGzipLargeOnesAndReadBack(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	small := []byte(`{"type":"system"}`)
	big := bytes.Repeat([]byte(`{"type":"assistant","text":"abcdefgh"}`), 500) // > 4 KiB
	for i, f := range [][]byte{small, big} {
		if err := InsertRawFrame(ctx, db.W, RawFrame{TaskID: "t", Seq: int64(i + 1), Format: "claude-code", Data: f, ReceivedAt: 5}); err != nil {
			t.Fatal(err)
		}
	}
	var enc string
	var stored int
	if err := db.R.QueryRow(`SELECT encoding, length(data) FROM raw_frames WHERE seq = 2`).Scan(&enc, &stored); err != nil {
		t.Fatal(err)
	}
	if enc != "gzip" || stored >= len(big) {
		t.Fatalf("big frame stored as %q, %d bytes (raw %d)", enc, stored, len(big))
	}
	var got [][]byte
	for f, err := range RawFrames(ctx, db.R, "t") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, f.Data)
	}
	if len(got) != 2 || !bytes.Equal(got[0], small) || !bytes.Equal(got[1], big) {
		t.Fatal("frames read back differ")
	}
	if n, _ := NextRawSeq(ctx, db.R, "t"); n != 3 {
		t.Fatalf("next seq %d", n)
	}
	if err := InsertRawFrame(ctx, db.W, RawFrame{TaskID: "t", Seq: 2, Format: "x", Data: small}); err == nil {
		t.Fatal("duplicate seq accepted")
	}
}

// TestInsertRawFramesInChunks: frames stored together (in runs, a lone one
// as a row) read back exactly and in order whatever their number (none,
// one, a run, runs of the most frames a run takes and the rest), large
// ones gzip'd; a statement that fails (a seq already stored) names its
// seqs and stores nothing of its rows.
func TestInsertRawFramesInChunks(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	big := bytes.Repeat([]byte(`{"type":"assistant","text":"abcdefgh"}`), 500)
	seq := int64(1)
	var want [][]byte
	for _, n := range []int{0, 1, rawFramesPerInsert, rawFramesPerInsert + 1, 2*rawFramesPerInsert + 31, 2*maxRunFrames + 3} {
		var fs []RawFrame
		for i := 0; i < n; i++ {
			data := []byte(fmt.Sprintf(`{"n":%d}`, seq))
			if seq%10 == 0 {
				data = append(bytes.Clone(big), fmt.Sprint(seq)...)
			}
			fs = append(fs, RawFrame{TaskID: "t", Seq: seq, Format: "claude-code", Data: data, ReceivedAt: seq})
			want = append(want, data)
			seq++
		}
		if err := InsertRawFrames(ctx, db.W, fs); err != nil {
			t.Fatalf("%d frames: %v", n, err)
		}
	}
	var got [][]byte
	var at []int64
	for f, err := range RawFrames(ctx, db.R, "t") {
		if err != nil {
			t.Fatal(err)
		}
		got, at = append(got, f.Data), append(at, f.ReceivedAt)
	}
	if len(got) != len(want) {
		t.Fatalf("%d frames read back, %d stored", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) || at[i] != int64(i+1) {
			t.Fatalf("frame %d differs (received at %d)", i+1, at[i])
		}
	}
	var gz int
	if err := db.R.QueryRow(`SELECT (SELECT count(*) FROM raw_frames WHERE encoding = 'gzip') +
		(SELECT count(*) FROM raw_frame_runs, json_each(meta) m WHERE json_extract(m.value, '$[2]') = 1)`).Scan(&gz); err != nil || gz != len(want)/10 {
		t.Fatalf("%d frames gzip'd (err %v), want %d", gz, err, len(want)/10)
	}
	dup := []RawFrame{{TaskID: "t", Seq: seq, Format: "x", Data: []byte("{}")}, {TaskID: "t", Seq: 3, Format: "x", Data: []byte("{}")}}
	err := InsertRawFrames(ctx, db.W, dup)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("raw frames %d..3", seq)) {
		t.Fatalf("duplicate seq: %v", err)
	}
	if n, _ := NextRawSeq(ctx, db.R, "t"); n != seq {
		t.Fatalf("a failed statement stored a row: next seq %d, want %d", n, seq)
	}
}

func TestUpsertMessageKeepsIndexAndCreatedAt(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	up := func(id, text string, now int64) agent.Message {
		m, err := UpsertMessage(ctx, db.W, MessageWrite{TaskID: "t", Message: agent.Message{ID: id, Role: agent.RoleAssistant,
			Parts: []agent.Part{{Type: agent.PartText, Text: text}}}, Raw: []byte(text), Format: "f", Version: 3, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := up("a", "v1", 1000)
	up("b", "b", 2000)
	again := up("a", "v2", 3000)
	if again.Timestamp != first.Timestamp {
		t.Fatalf("timestamp changed on update: %s -> %s", first.Timestamp, again.Timestamp)
	}
	rows, _ := db.R.Query(`SELECT messageId, messageIndex, createdAt, updatedAt, rawData, normalizedVersion FROM agent_messages ORDER BY messageIndex`)
	defer rows.Close()
	type row struct {
		id        string
		idx, c, u int64
		raw       string
		ver       int
	}
	var got []row
	for rows.Next() {
		var r row
		_ = rows.Scan(&r.id, &r.idx, &r.c, &r.u, &r.raw, &r.ver)
		got = append(got, r)
	}
	want := []row{{"a", 0, 1000, 3000, "v2", 3}, {"b", 1, 2000, 2000, "b", 3}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("rows %+v, want %+v", got, want)
	}
	msgs, _ := Messages(ctx, db.R, "t")
	if len(msgs) != 2 || msgs[0].Parts[0].Text != "v2" {
		t.Fatalf("messages %+v", msgs)
	}
	// A live write at the new version is not overwritten by re-normalization.
	if err := RewriteMessage(ctx, db.W, 1, []byte(`{"id":"a","role":"assistant","parts":[]}`), "assistant", 3); err != nil {
		t.Fatal(err)
	}
	msgs, _ = Messages(ctx, db.R, "t")
	if msgs[0].Parts[0].Text != "v2" {
		t.Fatal("rewrite clobbered a row already at that version")
	}
}

func TestQueueOrderEditRemovePop(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	var ids []string
	for i, txt := range []string{"one", "two", "three"} {
		m, err := Enqueue(ctx, db.W, QueuedMessage{ID: string(rune('a' + i)), TaskID: "t", Text: txt, CreatedAt: 1})
		if err != nil {
			t.Fatal(err)
		}
		if m.Position != int64(i+1) {
			t.Fatalf("position %d", m.Position)
		}
		ids = append(ids, m.ID)
	}
	if err := EditQueued(ctx, db.W, ids[0], "uno", 2); err != nil {
		t.Fatal(err)
	}
	if err := RemoveQueued(ctx, db.W, ids[1]); err != nil {
		t.Fatal(err)
	}
	if err := RemoveQueued(ctx, db.W, ids[1]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("removing twice: %v", err)
	}
	if task, _ := QueuedTask(ctx, db.R, ids[2]); task != "t" {
		t.Fatalf("task %q", task)
	}
	var got []string
	for {
		m, ok, err := PopQueued(ctx, db.W, "t")
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, m.Text)
	}
	if len(got) != 2 || got[0] != "uno" || got[1] != "three" {
		t.Fatalf("popped %v", got)
	}
}

func TestPendingRequestsAndRules(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	req := agent.Request{RequestID: "r1", ToolName: "Bash", Input: []byte(`{"command":"ls"}`)}
	if err := AddPending(ctx, db.W, PendingRequest{TaskID: "t", RequestID: "r1", Kind: RequestPermission, Request: req, CreatedAt: 1}); err != nil {
		t.Fatal(err)
	}
	p, err := GetPending(ctx, db.R, "t", "r1")
	if err != nil || p.Request.ToolName != "Bash" || string(p.Request.Input) != `{"command":"ls"}` {
		t.Fatalf("pending %+v %v", p, err)
	}
	if _, err := GetPending(ctx, db.R, "t", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing request: %v", err)
	}
	if err := ClearPending(ctx, db.W, "t"); err != nil {
		t.Fatal(err)
	}
	if l, _ := ListPending(ctx, db.R, "t"); len(l) != 0 {
		t.Fatalf("after clear %+v", l)
	}
	for _, r := range []PermissionRule{
		{ID: "1", Scope: ScopeProject, ProjectID: "p", ToolName: "Bash", MatchKind: MatchPrefix, Pattern: "npm test", CreatedAt: 1},
		{ID: "2", Scope: ScopeTask, ProjectID: "p", TaskID: "t", ToolName: "Bash", MatchKind: MatchExact, Pattern: "ls", CreatedAt: 2},
		{ID: "3", Scope: ScopeProject, ProjectID: "p", ToolName: "Write", MatchKind: MatchExact, Pattern: "/a", CreatedAt: 3},
	} {
		if err := InsertRule(ctx, db.W, r); err != nil {
			t.Fatal(err)
		}
	}
	rs, _ := RulesFor(ctx, db.R, "p", "t", "Bash")
	if len(rs) != 2 || rs[0].ID != "2" || rs[1].ID != "1" {
		t.Fatalf("rules for Bash (task first): %+v", rs)
	}
	if rs, _ := RulesFor(ctx, db.R, "p", "other-task", "Bash"); len(rs) != 1 || rs[0].ID != "1" {
		t.Fatalf("rules for another task: %+v", rs)
	}
	d, err := InsertDecision(ctx, db.W, PermissionDecision{TaskID: "t", RequestID: "r1", ToolName: "Bash", Behavior: "allow",
		Scope: ScopeProject, Source: "rule", RuleID: "1", Label: "allowed by rule", CreatedAt: 4})
	if err != nil || d.ID == 0 {
		t.Fatal(err)
	}
	ds, _ := Decisions(ctx, db.R, "t")
	if len(ds) != 1 || ds[0].RuleID != "1" || ds[0].Label != "allowed by rule" {
		t.Fatalf("decisions %+v", ds)
	}
}

// TestInsertNewMessagesAsUpsertWould: new messages inserted several rows per
// statement (16, 4, 2 and 1 here) get the rows one UpsertMessage each would
// give them, indexes after the task's last included; one that is stored
// after all is replaced in place (its index and createdAt kept); a write
// that keeps an existing row's raw data is refused.
func TestInsertNewMessagesAsUpsertWould(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	now := Now()
	if _, err := db.W.Exec(`INSERT INTO tasks (id, projectId, prompt, createdAt, updatedAt) VALUES ('u', 'p', 'go', ?, ?)`, now, now); err != nil {
		t.Fatal(err)
	}
	write := func(task string, i int) MessageWrite {
		w := MessageWrite{TaskID: task, Message: agent.Message{ID: fmt.Sprintf("m%02d", i), Role: agent.RoleAssistant,
			Parts: []agent.Part{{Type: agent.PartText, Text: fmt.Sprintf("text %d", i)}}}, Format: "claude-code", Version: 3, Now: 5000, CreatedAt: 5000}
		switch i % 3 {
		case 0:
			w.Raw = []byte(fmt.Sprintf(`{"n":%d}`, i))
		case 1:
			w.RawRefs = RawRefs(nil).Add(int64(i)).Add(int64(i + 1))
		case 2:
			w.Message.Timestamp, w.CreatedAt = "2026-11-28T09:00:00Z", 0
		}
		return w
	}
	var ws []MessageWrite
	for _, task := range []string{"t", "u"} {
		for i := range 2 {
			if _, err := UpsertMessage(ctx, db.W, write(task, 90+i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range 23 {
		if _, _, err := UpsertMessageCreated(ctx, db.W, write("u", i)); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, write("t", i))
	}
	if err := InsertNewMessages(ctx, db.W, "t", ws); err != nil {
		t.Fatal(err)
	}
	rows := func(task string) []string {
		t.Helper()
		rs, err := db.R.Query(`SELECT messageId, messageIndex, role, normalizedData, coalesce(rawData, '-'), coalesce(rawRefs, '-'), rawFormat,
			normalizedVersion, createdAt, updatedAt FROM agent_messages WHERE taskId = ? ORDER BY messageIndex`, task)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		var out []string
		for rs.Next() {
			var id, role, data, raw, refs, format string
			var idx, ver, c, u int64
			if err := rs.Scan(&id, &idx, &role, &data, &raw, &refs, &format, &ver, &c, &u); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(id, idx, role, data, raw, refs, format, ver, c, u))
		}
		return out
	}
	got, want := rows("t"), rows("u")
	if len(got) != 25 || !slices.Equal(got, want) {
		t.Fatalf("rows inserted together:\n%s\nrows upserted one by one:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The insert trigger (migration 0129) queued every row for the search
	// index and put it in its time block.
	var unqueued, unblocked int
	if err := db.R.QueryRow(`SELECT count(*) FROM agent_messages m WHERE NOT EXISTS (SELECT 1 FROM message_search_pending p WHERE p.id = m.id)`).Scan(&unqueued); err != nil {
		t.Fatal(err)
	}
	if err := db.R.QueryRow(`SELECT count(*) FROM agent_messages m WHERE NOT EXISTS (SELECT 1 FROM message_time_blocks b
		WHERE b.block = m.id >> 10 AND b.minAt <= m.createdAt AND m.createdAt <= b.maxAt)`).Scan(&unblocked); err != nil {
		t.Fatal(err)
	}
	if unqueued != 0 || unblocked != 0 {
		t.Fatalf("%d rows not queued for the search index, %d outside their time block", unqueued, unblocked)
	}

	again := write("t", 91)
	again.Message.Parts[0].Text, again.Now = "replaced", 6000
	if err := InsertNewMessages(ctx, db.W, "t", []MessageWrite{write("t", 50), again, write("t", 51)}); err != nil {
		t.Fatal(err)
	}
	var idx, created, updated int64
	var data string
	if err := db.R.QueryRow(`SELECT messageIndex, createdAt, updatedAt, normalizedData FROM agent_messages WHERE taskId = 't' AND messageId = 'm91'`).
		Scan(&idx, &created, &updated, &data); err != nil {
		t.Fatal(err)
	}
	if idx != 1 || created != 5000 || updated != 6000 || !strings.Contains(data, "replaced") {
		t.Fatalf("a stored message inserted again: index %d, createdAt %d, updatedAt %d, %s", idx, created, updated, data)
	}
	msgs, err := Messages(ctx, db.R, "t")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(msgs); n != 27 || msgs[n-2].ID != "m50" || msgs[n-1].ID != "m51" {
		t.Fatalf("%d messages, the last %v", n, msgs[len(msgs)-2:])
	}

	keep := write("t", 60)
	keep.KeepRaw = true
	if err := InsertNewMessages(ctx, db.W, "t", []MessageWrite{write("t", 61), keep}); err == nil {
		t.Fatal("a write keeping raw data was taken as new")
	}
}

package store

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/migrations"
)

// runFrames is n frames of task t from seq on: small ones, every seventh
// over GzipThreshold, received a millisecond apart.
func runFrames(seq int64, n int, format string) []RawFrame {
	big := bytes.Repeat([]byte(`{"type":"assistant","text":"abcdefgh"}`), 200)
	var fs []RawFrame
	for i := range n {
		s := seq + int64(i)
		data := []byte(fmt.Sprintf(`{"n":%d}`, s))
		if s%7 == 0 {
			data = append(bytes.Clone(big), fmt.Sprint(s)...)
		}
		fs = append(fs, RawFrame{TaskID: "t", Seq: s, Format: format, Data: data, ReceivedAt: 1000 + s})
	}
	return fs
}

// storedFrames inserts calls (each one InsertRawFrames) and returns every
// frame in seq order.
func storedFrames(t *testing.T, db *DB, calls ...[]RawFrame) []RawFrame {
	t.Helper()
	ctx := context.Background()
	var all []RawFrame
	for _, c := range calls {
		if err := InsertRawFrames(ctx, db.W, c); err != nil {
			t.Fatal(err)
		}
		all = append(all, c...)
	}
	return all
}

func equalFrames(t *testing.T, what string, got, want []RawFrame) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d frames, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.TaskID != w.TaskID || g.Seq != w.Seq || g.Format != w.Format || g.ReceivedAt != w.ReceivedAt || !bytes.Equal(g.Data, w.Data) {
			t.Fatalf("%s: frame %d: got seq %d %q at %d (%d bytes), want seq %d %q at %d (%d bytes)", what, i,
				g.Seq, g.Format, g.ReceivedAt, len(g.Data), w.Seq, w.Format, w.ReceivedAt, len(w.Data))
		}
	}
}

func readAll(t *testing.T, db *DB) []RawFrame {
	t.Helper()
	var got []RawFrame
	for f, err := range RawFrames(context.Background(), db.R, "t") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, f)
	}
	return got
}

// Frames stored in runs read back as the rows they were: a lone frame
// before them (a row), runs split where the format changes, where a seq
// is skipped and at maxRunFrames, gzip'd frames inside runs; the count,
// the next seq and every range of references (across runs and rows) give
// what the frames give.
func TestRawFrameRunsReadBackAsFrames(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	if err := InsertRawFrame(ctx, db.W, runFrames(1, 1, "claude-code")[0]); err != nil {
		t.Fatal(err)
	}
	head := runFrames(1, 1, "claude-code")
	mixed := append(runFrames(2, 5, "claude-code"), runFrames(7, 3, "wtsetup")...)
	gap := append(runFrames(10, 2, "claude-code"), runFrames(14, 1, "claude-code")...) // 12, 13 skipped
	long := runFrames(15, 2*maxRunFrames+5, "claude-code")
	want := append(head, storedFrames(t, db, mixed, gap, long)...)
	equalFrames(t, "RawFrames", readAll(t, db), want)

	var runs, rows int
	if err := db.R.QueryRow(`SELECT (SELECT count(*) FROM raw_frame_runs), (SELECT count(*) FROM raw_frames)`).Scan(&runs, &rows); err != nil {
		t.Fatal(err)
	}
	if runs != 6 || rows != 2 { // 2..6, 7..9, 10..11, 15.., ..., ...; rows: 1 and 14
		t.Errorf("%d runs and %d rows, want 6 and 2", runs, rows)
	}
	if n, err := CountRawFrames(ctx, db.R, "t"); err != nil || n != len(want) {
		t.Errorf("CountRawFrames: %d, %v; want %d", n, err, len(want))
	}
	last := want[len(want)-1].Seq
	if n, err := NextRawSeq(ctx, db.R, "t"); err != nil || n != last+1 {
		t.Errorf("NextRawSeq: %d, %v; want %d", n, err, last+1)
	}
	bySeq := map[int64][]byte{}
	for _, f := range want {
		bySeq[f.Seq] = f.Data
	}
	for _, r := range []RawRefs{{{1, 1}}, {{1, 9}}, {{4, 8}, {10, 11}}, {{14, 14}, {15, 15 + maxRunFrames}}, {{300, 400}}, {{last, last}}} {
		var parts [][]byte
		for _, fr := range r {
			for s := fr[0]; s <= fr[1]; s++ {
				parts = append(parts, bySeq[s])
			}
		}
		got, err := expandRefs(ctx, db.R, "t", r.String())
		if err != nil || !bytes.Equal(got, bytes.Join(parts, []byte("\n"))) {
			t.Errorf("refs %s: %d bytes, %v; want %d bytes", r.String(), len(got), err, len(bytes.Join(parts, []byte("\n"))))
		}
	}
	if _, err := expandRefs(ctx, db.R, "t", RawRefs{{11, 13}}.String()); err == nil || !strings.Contains(err.Error(), "raw frame 12") {
		t.Errorf("refs over skipped seqs: %v", err)
	}
	if _, err := db.W.Exec(`DELETE FROM tasks WHERE id = 't'`); err != nil {
		t.Fatal(err)
	}
	if err := db.R.QueryRow(`SELECT count(*) FROM raw_frame_runs`).Scan(&runs); err != nil || runs != 0 {
		t.Errorf("a deleted task's runs: %d left (%v)", runs, err)
	}
}

// A run is refused, whole, when a seq of it is stored already or its seqs
// go back: the unique index that refuses a raw_frames row does not see
// inside a run.
func TestRawFrameRunsRefuseStoredSeqs(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	want := storedFrames(t, db, runFrames(1, 10, "claude-code"))
	for _, c := range [][]RawFrame{runFrames(5, 10, "claude-code"), runFrames(10, 3, "claude-code"),
		append(runFrames(11, 3, "claude-code"), runFrames(12, 1, "claude-code")...)} {
		err := InsertRawFrames(ctx, db.W, c)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("raw frames %d..%d", c[0].Seq, c[len(c)-1].Seq)) {
			t.Errorf("frames %d..%d: %v", c[0].Seq, c[len(c)-1].Seq, err)
		}
	}
	equalFrames(t, "after the refused runs", readAll(t, db), want)
}

// A run whose meta or data is damaged is an error when read, not a panic
// nor a wrong frame.
func TestRawFrameRunsDamagedIsAnError(t *testing.T) {
	for _, c := range []struct{ set, want string }{
		{`meta = '[[3,0],[3,0]'`, "meta"},
		{`meta = '[[3,0],[x,0],[3,0]]'`, "meta"},
		{`meta = '[[3,0],[3,0]]'`, "names 2 frames"},
		{`data = substr(data, 1, 5)`, "run's data"},
		{`meta = '[[3,0,1],[3,0],[3,0]]'`, "gunzip"},
	} {
		db := openOrchTestDB(t)
		storedFrames(t, db, []RawFrame{{TaskID: "t", Seq: 1, Format: "x", Data: []byte("abc")},
			{TaskID: "t", Seq: 2, Format: "x", Data: []byte("def")}, {TaskID: "t", Seq: 3, Format: "x", Data: []byte("ghi")}})
		if _, err := db.W.Exec(`UPDATE raw_frame_runs SET ` + c.set); err != nil {
			t.Fatal(err)
		}
		var err error
		for _, e := range RawFrames(context.Background(), db.R, "t") {
			if e != nil {
				err = e
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.set, err, c.want)
		}
	}
}

// Migration 0130's down step puts every frame of every run back as a
// raw_frames row, byte for byte, gzip'd ones included.
func TestRawFrameRunsDownMigrationExpands(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	if err := InsertRawFrame(ctx, db.W, runFrames(1, 1, "claude-code")[0]); err != nil {
		t.Fatal(err)
	}
	want := append(runFrames(1, 1, "claude-code"),
		storedFrames(t, db, runFrames(2, 20, "claude-code"), append(runFrames(22, 2, "x"), runFrames(30, maxRunFrames+1, "claude-code")...))...)
	down, err := migrations.FS.ReadFile("0130_raw_frame_runs.down.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.W.Exec(string(down)); err != nil {
		t.Fatal(err)
	}
	var got []RawFrame
	rows, err := db.R.Query(`SELECT seq, format, encoding, data, receivedAt FROM raw_frames WHERE taskId = 't' ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		f := RawFrame{TaskID: "t"}
		var enc string
		if err := rows.Scan(&f.Seq, &f.Format, &enc, &f.Data, &f.ReceivedAt); err != nil {
			t.Fatal(err)
		}
		if f.Data, err = decodeRaw(f.Data, enc == "gzip"); err != nil {
			t.Fatalf("frame %d: %v", f.Seq, err)
		}
		got = append(got, f)
	}
	equalFrames(t, "raw_frames after the down migration", got, want)
}

// TestRawFrameRunsWithPreparedRunner: the writer's runner (Prepared.In)
// lends one buffer to every run of a transaction; each run is stored as it
// was, not as the next one overwrote the buffer.
func TestRawFrameRunsWithPreparedRunner(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	p := NewPrepared(db.W)
	t.Cleanup(func() { p.Close() })
	long := runFrames(1, maxRunFrames+40, "claude-code") // a run of 256, then one of 40
	short := runFrames(long[len(long)-1].Seq+1, 3, "wtsetup")
	for range 2 { // the second time with the statements prepared
		tx, err := db.W.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		q := p.In(tx)
		if err := InsertRawFrames(ctx, q, long); err != nil {
			t.Fatal(err)
		}
		if err := InsertRawFrames(ctx, q, short); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := p.Warm(ctx); err != nil {
			t.Fatal(err)
		}
		equalFrames(t, "RawFrames", readAll(t, db), append(slices.Clone(long), short...))
		if _, err := db.W.Exec(`DELETE FROM raw_frame_runs`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.W.Exec(`DELETE FROM raw_frames`); err != nil {
			t.Fatal(err)
		}
	}
}

package orchestrator

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

func streamingMsg() *liveMsg {
	return &liveMsg{id: "m", acc: agent.NewAccumulator(agent.Message{ID: "m"})}
}

// countingRunner counts the statements run through it.
type countingRunner struct {
	db *sql.DB
	n  int
}

func (c *countingRunner) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	c.n++
	return c.db.ExecContext(ctx, q, args...)
}

func (c *countingRunner) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	c.n++
	return c.db.QueryContext(ctx, q, args...)
}

func (c *countingRunner) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	c.n++
	return c.db.QueryRowContext(ctx, q, args...)
}

// TestLiveInMemoryMirrorsLiveFor: liveInMemory, which decides which
// batches are handled before the writer's transaction (prehandle), says a
// message is in memory exactly when liveFor reads nothing in the database
// for it, in every case liveFor tells apart.
func TestLiveInMemoryMirrorsLiveFor(t *testing.T) {
	db := openDB(t)
	addTask(t, db, "t1", "fake", "go")
	cases := []struct {
		name     string
		setup    func(r *run, g *group)
		inMemory bool
	}{
		{"streaming in the run", func(r *run, g *group) { r.live["m"] = streamingMsg() }, true},
		{"touched by the group", func(r *run, g *group) { g.live["m"] = streamingMsg() }, true},
		{"removed by the group", func(r *run, g *group) { g.live["m"] = nil }, true},
		{"removed by the group, stored before", func(r *run, g *group) { g.live["m"], r.known["m"] = nil, true }, true},
		{"removed, ids dropped", func(r *run, g *group) { g.live["m"], r.knownDropped = nil, true }, false},
		{"new, ids known", func(r *run, g *group) {}, true},
		{"stored, not streaming", func(r *run, g *group) { r.known["m"] = true }, false},
		{"ids not loaded", func(r *run, g *group) { r.known = nil }, false},
		{"ids dropped by the idle trim", func(r *run, g *group) { r.knownDropped = true }, false},
		{"in the run, removed by the group", func(r *run, g *group) { r.live["m"], g.live["m"] = streamingMsg(), nil }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cr := &countingRunner{db: db.R}
			r := &run{taskID: "t1", live: map[string]*liveMsg{}, known: map[string]bool{}}
			g := &group{r: r, ctx: context.Background(), tx: cr, now: 1, live: map[string]*liveMsg{}}
			c.setup(r, g)
			got := g.liveInMemory("m")
			if _, err := g.liveFor("m", false); err != nil {
				t.Fatal(err)
			}
			if got != c.inMemory || got != (cr.n == 0) {
				t.Fatalf("liveInMemory %v (want %v); liveFor ran %d statements", got, c.inMemory, cr.n)
			}
		})
	}
}

// TestPrehandledStoredAsInTransaction: a stream of new messages and deltas
// is handled before the writer's transactions (prehandle), and what is
// stored and emitted is what handling it in them gave: every message, its
// text, its raw data, re-normalized to what live stored.
func TestPrehandledStoredAsInTransaction(t *testing.T) {
	h, s := startT1(t, Options{Formats: agent.NewFormats(deltaFormat), Coalesce: -1})
	n := &deltaNorm{msgs: map[string]*agent.Message{}, raw: map[string][]byte{}, share: true}
	var frames []string
	for m := range 20 {
		frames = append(frames, fmt.Sprintf(`{"id":"a%d","text":"start %d"}`, m, m))
		for i := range 30 {
			frames = append(frames, fmt.Sprintf(`{"id":"a%d","delta":" %d"}`, m, i))
		}
	}
	streamSession(s, n, append(frames, `{"done":true}`)...)
	waitStatus(t, h.db, "t1", store.StatusCompleted)
	if got := h.o.prehandled.Load(); got == 0 {
		t.Fatal("no batch was handled before its transaction")
	} else {
		t.Logf("%d of %d batches handled before their transaction", got, len(frames)+1)
	}
	msgs, err := store.Messages(context.Background(), h.db.R, "t1")
	if err != nil {
		t.Fatal(err)
	}
	for m := range 20 {
		id := fmt.Sprintf("a%d", m)
		var got *agent.Message
		for i := range msgs {
			if msgs[i].ID == id {
				got = &msgs[i]
			}
		}
		if got == nil {
			t.Fatalf("message %s not stored", id)
		}
		want := fmt.Sprintf("start %d", m)
		for i := range 30 {
			want += fmt.Sprintf(" %d", i)
		}
		if got.Parts[0].Text != want {
			t.Fatalf("message %s: %q, want %q", id, got.Parts[0].Text, want)
		}
		raw, _, err := store.MessageRaw(context.Background(), h.db.R, "t1", id)
		if err != nil {
			t.Fatal(err)
		}
		if w := strings.Join(frames[m*31:(m+1)*31], "\n"); string(raw) != w {
			t.Fatalf("message %s raw data: %d bytes, want %d", id, len(raw), len(w))
		}
	}
	h.rec.checkStored(t)
}

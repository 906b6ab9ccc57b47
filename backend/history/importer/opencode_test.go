package importer_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/history/importer"
	"github.com/jean-claude/jean-claude/backend/store"
)

// openCodeFixture copies the data folder the real OpenCode 1.18.33 wrote
// (TestGenerateFixtures) into a temporary home, so opening it (WAL) never
// touches testdata, and returns that home and the session's folder.
func openCodeFixture(t *testing.T) (home, cwd string) {
	home = t.TempDir()
	src := "testdata/opencode/home/.local/share/opencode"
	dst := filepath.Join(home, ".local", "share", "opencode")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"opencode.db", "opencode.db-wal", "opencode.db-shm"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if f != "opencode.db" && os.IsNotExist(err) {
			continue // checkpointed into opencode.db before it was committed
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home, strings.TrimSpace(readFile(t, "testdata/opencode/cwd.txt"))
}

func TestOpenCodeImport(t *testing.T) {
	home, cwd := openCodeFixture(t)
	ss, err := importer.OpenCode{}.Find(home, cwd)
	if err != nil || len(ss) != 1 {
		t.Fatalf("Find = %+v, %v", ss, err)
	}
	s := ss[0]
	if s.ID != "ses_df4153545ffeEE83fD6Zowh2hn" || s.Cwd != cwd || !strings.Contains(s.FirstPrompt, "Create notes.md with a café note") ||
		s.Model != "fake/fake-basic" || s.Size < 1000 || s.StartedAt == 0 || s.UpdatedAt <= s.StartedAt {
		t.Errorf("session = %+v", s)
	}
	if other, _ := (importer.OpenCode{}).Find(home, "/elsewhere"); len(other) != 0 {
		t.Errorf("another folder: %+v", other)
	}
	if none, err := (importer.OpenCode{}).Find(t.TempDir(), ""); err != nil || len(none) != 0 {
		t.Errorf("no OpenCode data: %+v %v", none, err)
	}
	l, err := importer.OpenCode{}.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []agent.Message
	for _, m := range l.Messages {
		msgs = append(msgs, m.Message)
		n := opencode.NewNormalizer()
		var last *agent.Message
		for _, f := range bytes.Split(m.Raw, []byte("\n")) {
			for _, ev := range n.Feed(f) {
				if ev.Type == agent.EventMessage && ev.Message.ID == m.Message.ID {
					last = ev.Message
				}
			}
		}
		if last == nil || !cmp.Equal(*last, m.Message) {
			t.Errorf("message %s does not rebuild from its raw frames: %s", m.Message.ID, cmp.Diff(m.Message, last))
		}
	}
	golden(t, "testdata/opencode/golden.json", msgs)
	if len(l.Records) != 16 { // 4 messages + 12 parts
		t.Errorf("records kept: %d", len(l.Records))
	}

	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id, err := importer.Import(ctx, db, importer.OpenCode{}, s, "")
	if err != nil {
		t.Fatal(err)
	}
	task, _ := store.GetTask(ctx, db.R, id)
	if task.SessionID != s.ID || task.AgentBackend != agent.BackendOpenCode || task.Status != store.StatusCompleted {
		t.Errorf("task = %+v", task)
	}
	hits, err := store.Search(ctx, db.R, store.SearchQuery{Text: "notes.md lines", Agent: "opencode"})
	if err != nil || len(hits) == 0 || hits[0].TaskID != id {
		t.Errorf("search after import: %+v %v", hits, err)
	}
	again, _ := importer.Find(ctx, db, home, cwd, "")
	if len(again) != 1 || again[0].TaskID != id {
		t.Errorf("Find after import = %+v", again)
	}
}

package importer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/history/importer"
	"github.com/jean-claude/jean-claude/backend/store"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// claudeFixture is the session the real Claude Code 2.1.330 saved
// (TestGenerateFixtures): its home and the folder it ran in.
func claudeFixture(t *testing.T) (home, cwd string) {
	b, err := os.ReadFile("testdata/claude-code/cwd.txt")
	if err != nil {
		t.Fatal(err)
	}
	return "testdata/claude-code/home", strings.TrimSpace(string(b))
}

func golden(t *testing.T, path string, got any) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), string(b)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestClaudeFind(t *testing.T) {
	home, cwd := claudeFixture(t)
	ss, err := importer.Claude{}.Find(home, cwd)
	if err != nil || len(ss) != 1 {
		t.Fatalf("Find = %+v, %v; want one session", ss, err)
	}
	s := ss[0]
	if s.ID != "8ba18d1f-53c1-49bf-b682-16ae46050f8b" || s.Cwd != cwd || s.FirstPrompt != "[scenario:import] Create notes.md with a café note" ||
		s.Model != "claude-sonnet-4-5" || s.Size < 1000 || s.StartedAt == 0 || s.UpdatedAt <= s.StartedAt {
		t.Errorf("session = %+v", s)
	}
	if other, _ := (importer.Claude{}).Find(home, "/elsewhere"); len(other) != 0 {
		t.Errorf("another folder's sessions: %+v", other)
	}
	if all, _ := (importer.Claude{}).Find(home, ""); len(all) != 1 {
		t.Errorf("every folder: %+v", all)
	}
	if file, _ := (importer.Claude{}).Find(home, s.Path); len(file) != 1 || file[0].ID != s.ID {
		t.Errorf("a session file: %+v", file)
	}
}

// TestClaudeLoad is the golden test: the real on-disk session normalized.
// Every message rebuilds from its Raw with a fresh live normalizer (what
// re-normalization does).
func TestClaudeLoad(t *testing.T) {
	home, cwd := claudeFixture(t)
	ss, _ := importer.Claude{}.Find(home, cwd)
	l, err := importer.Claude{}.Load(ss[0])
	if err != nil {
		t.Fatal(err)
	}
	var msgs []agent.Message
	for _, m := range l.Messages {
		msgs = append(msgs, m.Message)
		n := claude.NewNormalizer()
		var last *agent.Message
		for _, line := range bytes.Split(m.Raw, []byte("\n")) {
			for _, ev := range n.Feed(line) {
				if ev.Type == agent.EventMessage && ev.Message.ID == m.Message.ID {
					last = ev.Message
				}
			}
		}
		if last == nil || !cmp.Equal(*last, m.Message) {
			t.Errorf("message %s does not rebuild from its raw lines: %s", m.Message.ID, cmp.Diff(m.Message, last))
		}
	}
	golden(t, "testdata/claude-code/golden.json", msgs)
	if len(l.Records) != strings.Count(readFile(t, ss[0].Path), "\n") {
		t.Errorf("records kept: %d", len(l.Records))
	}
	roles := ""
	for _, m := range msgs {
		roles += string(m.Role)[:1]
	}
	// prompt, assistant (thinking+text+Write), tool result, assistant (text+Bash),
	// tool result, assistant, follow-up prompt, assistant.
	if roles != "uauauaua" {
		t.Errorf("roles = %s", roles)
	}
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestImportClaude(t *testing.T) {
	home, cwd := claudeFixture(t)
	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "demo", Path: cwd})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := importer.Find(ctx, db, home, cwd, "")
	if err != nil || len(ss) != 1 || ss[0].TaskID != "" {
		t.Fatalf("Find = %+v, %v", ss, err)
	}
	id, err := importer.Import(ctx, db, importer.Claude{}, ss[0], "")
	if err != nil {
		t.Fatal(err)
	}
	task, err := store.GetTask(ctx, db.R, id)
	if err != nil {
		t.Fatal(err)
	}
	if task.ProjectID != p.ID || task.SessionID != ss[0].ID || task.Status != store.StatusCompleted ||
		task.AgentBackend != agent.BackendClaudeCode || task.Prompt != ss[0].FirstPrompt || task.CreatedAt != ss[0].StartedAt {
		t.Errorf("task = %+v", task)
	}
	msgs, err := store.Messages(ctx, db.R, id)
	if err != nil || len(msgs) != 8 {
		t.Errorf("messages: %d, %v", len(msgs), err)
	}
	if n, err := store.CountRawFrames(ctx, db.R, id); err != nil || n != strings.Count(readFile(t, ss[0].Path), "\n") {
		t.Errorf("raw frames: %d, %v", n, err)
	}
	// Searchable at once.
	hits, err := store.Search(ctx, db.R, store.SearchQuery{Text: "notes.md lines"})
	if err != nil || len(hits) == 0 || hits[0].TaskID != id {
		t.Errorf("search after import: %+v, %v", hits, err)
	}
	// Recognized as imported.
	again, err := importer.Find(ctx, db, home, cwd, "claude-code")
	if err != nil || len(again) != 1 || again[0].TaskID != id {
		t.Errorf("Find after import = %+v, %v", again, err)
	}
	if got, err := importer.Import(ctx, db, importer.Claude{}, ss[0], ""); !errors.Is(err, importer.ErrImported) || got != id {
		t.Errorf("second import = %q, %v; want ErrImported with task %s", got, err, id)
	}
}

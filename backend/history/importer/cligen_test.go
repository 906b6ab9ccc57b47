package importer_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
	"github.com/jean-claude/jean-claude/backend/agent/gemini"
	"github.com/jean-claude/jean-claude/backend/history/importer"
	"github.com/jean-claude/jean-claude/backend/store"
)

// sourceCase is one CLI's fixture, made by TestGenerateFixtures with the
// real CLI: two turns (a write and a shell command, then a follow-up in
// the same session).
type sourceCase struct {
	dir   string
	src   importer.Source
	fresh func() agent.Normalizer
	id    string
	model string
	roles string // first letter of each message's role, in order
}

var sourceCases = []sourceCase{
	{dir: "codex", src: importer.Codex{}, fresh: func() agent.Normalizer { return codex.NewAppServerNormalizer() },
		id: "01a20c51-cb83-7571-96c4-ec4f6dc980d6", model: "gpt-5.5",
		// prompt, text, patch, text, command, text, result; follow-up, text, result
		roles: "uaaaaaruar"},
	{dir: "gemini", src: importer.Gemini{}, fresh: func() agent.Normalizer { return gemini.NewNormalizer() },
		id: "07e6ffe4-fef7-41c1-acc8-2d5f40e6ec9a", model: "gemini-3.8-flash",
		// prompt, the turn's steps (text and write; text and shell; text), result; follow-up, text, result
		roles: "uaaaruar"},
}

func (c sourceCase) fixture(t *testing.T) (home, cwd string) {
	b, err := os.ReadFile(filepath.Join("testdata", c.dir, "cwd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join("testdata", c.dir, "home"), strings.TrimSpace(string(b))
}

func TestCLISourceFind(t *testing.T) {
	for _, c := range sourceCases {
		t.Run(c.dir, func(t *testing.T) {
			home, cwd := c.fixture(t)
			ss, err := c.src.Find(home, cwd)
			if err != nil || len(ss) != 1 {
				t.Fatalf("Find = %+v, %v; want one session", ss, err)
			}
			s := ss[0]
			if s.ID != c.id || s.Cwd != cwd || s.FirstPrompt != "[scenario:import] Create notes.md with a café note" ||
				s.Model != c.model || s.Size < 1000 || s.StartedAt == 0 || s.UpdatedAt <= s.StartedAt || s.Format != c.src.Format() {
				t.Errorf("session = %+v", s)
			}
			if other, _ := c.src.Find(home, "/elsewhere"); len(other) != 0 {
				t.Errorf("another folder's sessions: %+v", other)
			}
			if all, _ := c.src.Find(home, ""); len(all) != 1 {
				t.Errorf("every folder: %+v", all)
			}
			if file, _ := c.src.Find(home, s.Path); len(file) != 1 || file[0].ID != s.ID {
				t.Errorf("a session file: %+v", file)
			}
		})
	}
}

// TestCLISourceLoad is the golden test of each source: the real on-disk
// session normalized by the live normalizer; every message rebuilds from
// its Raw with a fresh one (what re-normalization does).
func TestCLISourceLoad(t *testing.T) {
	for _, c := range sourceCases {
		t.Run(c.dir, func(t *testing.T) {
			home, cwd := c.fixture(t)
			ss, _ := c.src.Find(home, cwd)
			l, err := c.src.Load(ss[0])
			if err != nil {
				t.Fatal(err)
			}
			var msgs []agent.Message
			roles := ""
			for _, m := range l.Messages {
				msgs = append(msgs, m.Message)
				roles += string(m.Message.Role)[:1]
				n := c.fresh()
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
			golden(t, filepath.Join("testdata", c.dir, "golden.json"), msgs)
			if len(l.Records) != strings.Count(readFile(t, ss[0].Path), "\n") {
				t.Errorf("records kept: %d", len(l.Records))
			}
			if roles != c.roles {
				t.Errorf("roles = %s, want %s", roles, c.roles)
			}
		})
	}
}

func TestCLISourceImport(t *testing.T) {
	for _, c := range sourceCases {
		t.Run(c.dir, func(t *testing.T) {
			home, cwd := c.fixture(t)
			ctx := t.Context()
			db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ss, err := importer.Find(ctx, db, home, cwd, c.src.Format())
			if err != nil || len(ss) != 1 || ss[0].TaskID != "" {
				t.Fatalf("Find = %+v, %v", ss, err)
			}
			id, err := importer.Import(ctx, db, c.src, ss[0], "")
			if err != nil {
				t.Fatal(err)
			}
			task, err := store.GetTask(ctx, db.R, id)
			if err != nil {
				t.Fatal(err)
			}
			if task.SessionID != c.id || task.Status != store.StatusCompleted || task.AgentBackend != c.src.Backend() ||
				task.Prompt != ss[0].FirstPrompt {
				t.Errorf("task = %+v", task)
			}
			if msgs, err := store.Messages(ctx, db.R, id); err != nil || len(msgs) != len(c.roles) {
				t.Errorf("messages: %d, %v", len(msgs), err)
			}
			hits, err := store.Search(ctx, db.R, store.SearchQuery{Text: "notes.md lines"})
			if err != nil || len(hits) == 0 || hits[0].TaskID != id {
				t.Errorf("search after import: %+v, %v", hits, err)
			}
			again, err := importer.Find(ctx, db, home, cwd, "")
			if err != nil || len(again) != 1 || again[0].TaskID != id {
				t.Errorf("Find after import = %+v, %v", again, err)
			}
			if got, err := importer.Import(ctx, db, c.src, ss[0], ""); !errors.Is(err, importer.ErrImported) || got != id {
				t.Errorf("second import = %q, %v; want ErrImported with task %s", got, err, id)
			}
		})
	}
}

// TestSourcesClaimOnlyTheirFiles: given a session file, only its own
// source lists it (jean-claude import FILE asks every source).
func TestSourcesClaimOnlyTheirFiles(t *testing.T) {
	files := map[string]string{"claude-code": "", "codex": "", "gemini": ""}
	for format := range files {
		home := filepath.Join("testdata", format, "home")
		_ = filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) {
				files[format] = p
			}
			return nil
		})
	}
	for format, file := range files {
		for _, src := range importer.Sources() {
			if src.Format() == "opencode" {
				continue
			}
			ss, _ := src.Find("", file)
			if want := src.Format() == format; (len(ss) == 1) != want {
				t.Errorf("%s source on a %s file (%s): %d sessions", src.Format(), format, file, len(ss))
			}
		}
	}
}

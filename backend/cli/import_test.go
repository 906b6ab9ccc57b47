package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCommand imports the session the real Claude Code saved
// (backend/history/importer/testdata), then finds it already imported.
func TestImportCommand(t *testing.T) {
	home, err := filepath.Abs("../history/importer/testdata/claude-code/home")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../history/importer/testdata/claude-code/cwd.txt")
	if err != nil {
		t.Fatal(err)
	}
	cwd := strings.TrimSpace(string(b))
	db := filepath.Join(t.TempDir(), "jc.db")

	r := run(t, "", "--db", db, "import", "--home", home, "--list")
	if r.code != 0 || !strings.Contains(r.stdout, "8ba18d1f-53c1-49bf-b682-16ae46050f8b") || !strings.Contains(r.stdout, "Create notes.md with a café note") {
		t.Fatalf("import --list: %+v", r)
	}
	if strings.Contains(r.stdout, "imported") {
		t.Errorf("--list imported something: %s", r.stdout)
	}
	r = run(t, "", "--db", db, "import", "--from", "claude-code", "--home", home)
	if r.code != 0 || !strings.Contains(r.stdout, "imported: task ") {
		t.Fatalf("import: %+v", r)
	}
	r = run(t, "", "--db", db, "import", "--home", home)
	if r.code != 0 || !strings.Contains(r.stdout, "already imported: task ") {
		t.Errorf("import again: %+v", r)
	}
	// The imported messages are searchable, in the project of the session's folder.
	r = run(t, "", "--db", db, "search", "--project", cwd, "notes.md")
	if r.code != 0 || !strings.Contains(r.stdout, "demo_project / [scenario:import] Create notes.md") {
		t.Errorf("search after import: %+v", r)
	}
	if r = run(t, "", "--db", db, "import", "--from", "nope"); r.code != 2 {
		t.Errorf("unknown --from: %+v", r)
	}
}

// TestImportCommandCodexGemini imports the sessions the real Codex and
// Gemini CLI saved, each by --from and by its session file.
func TestImportCommandCodexGemini(t *testing.T) {
	for _, c := range []struct{ format, id, file string }{
		{"codex", "01a20c51-cb83-7571-96c4-ec4f6dc980d6", ".codex/sessions/2026/11/24/rollout-2026-11-24T06-50-17-01a20c51-cb83-7571-96c4-ec4f6dc980d6.jsonl"},
		{"gemini", "07e6ffe4-fef7-41c1-acc8-2d5f40e6ec9a", ".gemini/tmp/gemini-project/chats/session-2026-11-24T06-51-07e6ffe4.jsonl"},
	} {
		home, err := filepath.Abs("../history/importer/testdata/" + c.format + "/home")
		if err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(t.TempDir(), "jc.db")
		r := run(t, "", "--db", db, "import", "--from", c.format, "--home", home, "--list")
		if r.code != 0 || !strings.Contains(r.stdout, c.id) || !strings.Contains(r.stdout, "Create notes.md with a café note") {
			t.Fatalf("%s: import --list: %+v", c.format, r)
		}
		r = run(t, "", "--db", db, "import", "--home", home, filepath.Join(home, c.file))
		if r.code != 0 || !strings.Contains(r.stdout, "imported: task ") {
			t.Fatalf("%s: import FILE: %+v", c.format, r)
		}
		r = run(t, "", "--db", db, "import", "--from", c.format, "--home", home)
		if r.code != 0 || !strings.Contains(r.stdout, "already imported: task ") {
			t.Errorf("%s: import again: %+v", c.format, r)
		}
		if r = run(t, "", "--db", db, "search", "notes.md", "lines"); r.code != 0 || !strings.Contains(r.stdout, "Create notes.md") {
			t.Errorf("%s: search after import: %+v", c.format, r)
		}
	}
}

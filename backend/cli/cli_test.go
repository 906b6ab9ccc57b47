package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"github.com/google/go-cmp/cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/cli"
	"github.com/jean-claude/jean-claude/backend/store"
)

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	opt, err := cli.Parse(args, &errb)
	if err != nil {
		return result{code: cli.ExitUsage, stderr: errb.String() + err.Error()}
	}
	code := cli.Run(context.Background(), opt, cli.Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Version: "1.2.3-test", Formats: agents.Formats(),
	})
	return result{code, out.String(), errb.String()}
}

func TestParse(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	for _, tc := range []struct {
		args    []string
		want    cli.Command
		wantErr bool
	}{
		{[]string{}, cli.CmdGUI, false},
		{[]string{"--version"}, cli.CmdVersion, false},
		{[]string{"--db", db, "migrate"}, cli.CmdMigrate, false},
		{[]string{"normalize", "--format", "claude-code"}, cli.CmdNormalize, false},
		// The flags a Wails dev build reads itself are accepted.
		{[]string{"-devserver", "127.0.0.1:1234", "-assetdir", "frontend/dist"}, cli.CmdGUI, false},
		{[]string{"frobnicate"}, "", true},
		{[]string{"--no-such-flag"}, "", true},
	} {
		opt, err := cli.Parse(tc.args, &bytes.Buffer{})
		if (err != nil) != tc.wantErr {
			t.Errorf("Parse(%q) error = %v, want error %v", tc.args, err, tc.wantErr)
			continue
		}
		if err == nil && opt.Command != tc.want {
			t.Errorf("Parse(%q) = %q, want %q", tc.args, opt.Command, tc.want)
		}
	}
}

func TestParseDBFlagAndEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(store.EnvDB, filepath.Join(dir, "env.db"))
	opt, err := cli.Parse([]string{"migrate"}, &bytes.Buffer{})
	if err != nil || opt.DB != filepath.Join(dir, "env.db") {
		t.Fatalf("env: DB = %q, %v; want the $%s path", opt.DB, err, store.EnvDB)
	}
	opt, err = cli.Parse([]string{"--db", filepath.Join(dir, "flag.db"), "migrate"}, &bytes.Buffer{})
	if err != nil || opt.DB != filepath.Join(dir, "flag.db") {
		t.Fatalf("flag: DB = %q, %v; --db must win over the env var", opt.DB, err)
	}
}

func TestVersion(t *testing.T) {
	r := run(t, "", "--version")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "1.2.3-test") {
		t.Fatalf("--version = %d %q, want 0 and the version", r.code, r.stdout)
	}
}

func TestMigrate(t *testing.T) {
	db := filepath.Join(t.TempDir(), "sub", "jc.db")
	r := run(t, "", "--db", db, "migrate")
	if r.code != cli.ExitOK {
		t.Fatalf("migrate exit %d: %s", r.code, r.stderr)
	}
	v, dirty, err := store.SchemaVersion(context.Background(), db)
	if err != nil || dirty || v == 0 {
		t.Fatalf("after migrate: version %d dirty %v err %v", v, dirty, err)
	}
	if !strings.Contains(r.stdout, "schema version") {
		t.Errorf("migrate printed %q, want the schema version", r.stdout)
	}
	// Idempotent.
	if r := run(t, "", "--db", db, "migrate"); r.code != cli.ExitOK {
		t.Fatalf("second migrate exit %d: %s", r.code, r.stderr)
	}
	if r := run(t, "", "--db", db, "migrate", "extra"); r.code != cli.ExitUsage {
		t.Errorf("migrate with an argument exit %d, want %d", r.code, cli.ExitUsage)
	}
}

func TestMigrateDirtyFileFailsAndIsUntouched(t *testing.T) {
	db := filepath.Join(t.TempDir(), "jc.db")
	if r := run(t, "", "--db", db, "migrate"); r.code != cli.ExitOK {
		t.Fatalf("migrate: %s", r.stderr)
	}
	h, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Exec(`UPDATE schema_migrations SET dirty = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	h.Close()
	before := fileHash(t, db)
	r := run(t, "", "--db", db, "migrate")
	if r.code != cli.ExitError || !strings.Contains(r.stderr, "dirty") {
		t.Fatalf("dirty migrate = %d %q, want %d and a message saying dirty", r.code, r.stderr, cli.ExitError)
	}
	if after := fileHash(t, db); after != before {
		t.Fatal("a failed migrate changed the database file")
	}
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// events decodes normalize's output, one agent.Event a line.
func events(t *testing.T, out string) []agent.Event {
	t.Helper()
	var evs []agent.Event
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev agent.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("output line is not an event: %v: %s", err, sc.Text())
		}
		evs = append(evs, ev)
	}
	return evs
}

func types(evs []agent.Event) map[agent.EventType]int {
	m := map[agent.EventType]int{}
	for _, e := range evs {
		m[e.Type]++
	}
	return m
}

func TestNormalizeRecordingFileAndStdin(t *testing.T) {
	file := filepath.Join("testdata", "bidi_perm_allow.jsonl")
	fromFile := run(t, "", "normalize", "--format", "claude-code", file)
	if fromFile.code != cli.ExitOK {
		t.Fatalf("normalize exit %d: %s", fromFile.code, fromFile.stderr)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fromStdin := run(t, string(raw), "normalize", "--format", "claude-code")
	if fromStdin.stdout != fromFile.stdout {
		t.Fatal("normalize over stdin and over FILE differ")
	}
	got := types(events(t, fromFile.stdout))
	for _, want := range []agent.EventType{agent.EventSessionID, agent.EventPermissionRequest, agent.EventMessage, agent.EventComplete} {
		if got[want] == 0 {
			t.Errorf("no %s event in the normalized recording (got %v)", want, got)
		}
	}
	if got[agent.EventSessionID] != 1 {
		t.Errorf("%d session-id events, want exactly 1", got[agent.EventSessionID])
	}
	// The output uses the design's names and tags.
	if !strings.Contains(fromFile.stdout, `"type":"permission-request"`) || !strings.Contains(fromFile.stdout, `"toolName":"Bash"`) {
		t.Errorf("output lacks the design's JSON names: %.300s", fromFile.stdout)
	}
}

func TestNormalizeBadLinesAreEventsNotFailures(t *testing.T) {
	in := "this is not json\n{\"type\":\"brand_new_type\",\"x\":1}\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"ok\",\"session_id\":\"s\"}\n"
	r := run(t, in, "normalize", "--format", "claude-code")
	if r.code != cli.ExitOK {
		t.Fatalf("bad lines gave exit %d (%s); only I/O errors may fail", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	got := types(evs)
	if got[agent.EventError] == 0 {
		t.Errorf("a malformed line gave no error event: %v", got)
	}
	unknownKept := false
	for _, e := range evs {
		if e.Type == agent.EventMessage && e.Message != nil && strings.Contains(string(mustJSON(t, e.Message.Metadata)), "brand_new_type") {
			unknownKept = true
		}
	}
	if !unknownKept {
		t.Error("an unknown line type was dropped instead of kept as a system-status message with its raw line")
	}
	if got[agent.EventComplete] != 1 {
		t.Errorf("the line after the bad ones was not normalized: %v", got)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNormalizeErrors(t *testing.T) {
	r := run(t, "", "normalize", "--format", "no-such-format")
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "claude-code") {
		t.Errorf("unknown format = %d %q, want %d and the list of formats", r.code, r.stderr, cli.ExitUsage)
	}
	r = run(t, "", "normalize", "--format", "claude-code", filepath.Join(t.TempDir(), "missing.jsonl"))
	if r.code != cli.ExitError {
		t.Errorf("missing file = %d, want %d (an I/O error)", r.code, cli.ExitError)
	}
	for _, name := range []string{"claude-code", "opencode", "acp", "gemini", "codex"} {
		if _, err := agents.Formats().Get(name); err != nil {
			t.Errorf("format %s not registered: %v", name, err)
		}
	}
}

// A reply streamed in many small deltas is printed as one delta per run
// (bytes about the reply's, not an envelope per delta), and folding the
// joined output gives exactly the messages that folding every delta gives.
func TestNormalizeJoinsAdjacentDeltas(t *testing.T) {
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}` + "\n")
	for i := 0; i < 500; i++ {
		in.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"0123456789abcdefghij"}}}}` + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}` + "\n")
	joined := run(t, in.String(), "normalize", "--format", "acp")
	each := run(t, in.String(), "normalize", "--format", "acp", "--each-delta")
	if joined.code != 0 || each.code != 0 {
		t.Fatalf("exit %d/%d: %s%s", joined.code, each.code, joined.stderr, each.stderr)
	}
	je, ee := events(t, joined.stdout), events(t, each.stdout)
	if n := types(je)[agent.EventDelta]; n != 1 {
		t.Errorf("joined output has %d delta events, want 1", n)
	}
	if n := types(ee)[agent.EventDelta]; n < 400 {
		t.Errorf("--each-delta printed %d delta events, want every one", n)
	}
	if d := cmp.Diff(agent.Fold(ee), agent.Fold(je)); d != "" {
		t.Errorf("folded messages differ (-each +joined):\n%s", d)
	}
	if len(joined.stdout) > 5*500*20 {
		t.Errorf("joined output is %d bytes for a 10000-byte reply", len(joined.stdout))
	}
}

// --help prints the usage once, on stdout (issue 23: it was printed twice).
func TestHelpPrintsUsageOnce(t *testing.T) {
	for _, arg := range []string{"--help", "-h"} {
		r := run(t, "", arg)
		if r.code != cli.ExitOK || strings.Count(r.stdout+r.stderr, "Usage:") != 1 || r.stderr != "" {
			t.Errorf("%s: code %d, stdout %q, stderr %q", arg, r.code, r.stdout, r.stderr)
		}
	}
	r := run(t, "", "--nope")
	if r.code != cli.ExitUsage || strings.Count(r.stderr, "Usage:") != 1 {
		t.Errorf("bad flag: code %d, stderr %q", r.code, r.stderr)
	}
}

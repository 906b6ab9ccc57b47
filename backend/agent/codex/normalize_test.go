package codex

import (
	"flag"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// recordings are Codex CLI 0.169.0's real output: exec-*.jsonl is
// `codex exec --json` (format "codex"), appserver-*.jsonl is `codex
// app-server` stdout, and the -transcript one both directions (format
// "codex-app-server").
func recordings(t testing.TB) map[string]agent.Format {
	return agenttest.Recordings(t, map[string]agent.Format{"exec-*.jsonl": ExecFormat(), "appserver-*.jsonl": AppServerFormat()})
}

func TestGolden(t *testing.T) { agenttest.CheckGoldens(t, recordings(t), *update) }

// TestRebuildFromRaw: a message's Raw fed to a fresh normalizer gives the
// same message, same id.
func TestRebuildFromRaw(t *testing.T) { agenttest.CheckRebuildsFromRaw(t, recordings(t)) }

func TestMalformedAndUnknown(t *testing.T) {
	for _, f := range []agent.Format{ExecFormat(), AppServerFormat()} {
		n := f.New()
		evs := n.Feed([]byte(`{"type":`))
		if len(evs) != 1 || evs[0].Type != agent.EventError || evs[0].Fatal || len(evs[0].Raw) == 0 {
			t.Fatalf("%s malformed: %+v", f.Name, evs)
		}
	}
	frame := []byte(`{"type":"brand.new","x":1}`)
	evs := NewExecNormalizer().Feed(frame)
	if len(evs) != 1 || evs[0].Message == nil || evs[0].Message.Metadata["raw"] != string(frame) {
		t.Fatalf("exec unknown: %+v", evs)
	}
	frame = []byte(`{"method":"brand/new","params":{}}`)
	evs = NewAppServerNormalizer().Feed(frame)
	if len(evs) != 1 || evs[0].Message == nil || evs[0].Message.Metadata["raw"] != string(frame) {
		t.Fatalf("app-server unknown: %+v", evs)
	}
}

func TestParseHunks(t *testing.T) {
	got := parseHunks("--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d\n@@ -10 +11 @@\n z\n")
	want := []agent.PatchHunk{
		{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 3, Lines: []string{" a", "-b", "+c", "+d"}},
		{OldStart: 10, OldLines: 1, NewStart: 11, NewLines: 1, Lines: []string{" z"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestAppServerPlanAndInterrupt(t *testing.T) {
	n := NewAppServerNormalizer()
	n.Feed([]byte(`{"method":"turn/started","params":{"threadId":"th","turn":{"id":"tu","status":"inProgress"}}}`))
	evs := n.Feed([]byte(`{"method":"turn/plan/updated","params":{"threadId":"th","turnId":"tu","plan":[{"step":"a","status":"inProgress"},{"step":"b","status":"pending"}]}}`))
	if len(evs) < 1 || evs[0].Message == nil || evs[0].Message.Parts[1].StructuredResult.NewTodos[0].Status != "in_progress" {
		t.Fatalf("plan: %+v", evs)
	}
	evs = n.Feed([]byte(`{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"tu","status":"interrupted","error":null}}}`))
	last := evs[len(evs)-1]
	if last.Type != agent.EventComplete || !last.Result.Interrupted || last.Result.IsError {
		t.Fatalf("interrupted: %+v", evs)
	}
}

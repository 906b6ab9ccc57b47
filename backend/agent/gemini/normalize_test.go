package gemini

import (
	"path/filepath"
	"slices"

	"flag"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// recordings are Gemini CLI 0.61.0's real output: *.jsonl is stream-json
// (format "gemini"), *.json is --output-format json (format "gemini-json").
func recordings(t testing.TB) map[string]agent.Format {
	return agenttest.Recordings(t, map[string]agent.Format{"*.jsonl": Format(), "*.json": JSONFormat()})
}

func TestGolden(t *testing.T) { agenttest.CheckGoldens(t, recordings(t), *update) }

// TestRebuildFromRaw: a message's Raw fed to a fresh normalizer gives the
// same message, same id.
func TestRebuildFromRaw(t *testing.T) { agenttest.CheckRebuildsFromRaw(t, recordings(t)) }

func TestMalformedAndUnknown(t *testing.T) {
	n := NewNormalizer()
	evs := n.Feed([]byte(`{"type":"message",`))
	if len(evs) != 1 || evs[0].Type != agent.EventError || evs[0].Fatal || len(evs[0].Raw) == 0 {
		t.Fatalf("malformed: %+v", evs)
	}
	frame := []byte(`{"type":"brand_new","x":1}`)
	evs = n.Feed(frame)
	if len(evs) != 1 || evs[0].Message == nil || evs[0].Message.Metadata["raw"] != string(frame) {
		t.Fatalf("unknown: %+v", evs)
	}
}

func TestToolKinds(t *testing.T) {
	for name, want := range map[string]agent.ToolKind{
		"read_file": agent.ToolRead, "write_file": agent.ToolEdit, "replace": agent.ToolEdit,
		"run_shell_command": agent.ToolExecute, "glob": agent.ToolSearch, "search_file_content": agent.ToolSearch,
		"web_fetch": agent.ToolFetch, "google_web_search": agent.ToolFetch, "write_todos": agent.ToolTodo,
		"save_memory": agent.ToolOther,
	} {
		if got := ToolKind(name); got != want {
			t.Errorf("ToolKind(%s) = %s, want %s", name, got, want)
		}
	}
}

// TestLegacyTurnRowRebuilt: before turns were split into steps, a turn was
// one message whose raw data was the init line and every line of the turn.
// Re-normalizing such a stored row gives the whole turn again, as the
// normalizer of then stored it (testdata/legacy: its last version, taken
// from the goldens of then), not only its first step.
func TestLegacyTurnRowRebuilt(t *testing.T) {
	for _, name := range []string{"main_default", "todo_yolo"} {
		t.Run(name, func(t *testing.T) {
			frames := agenttest.ReadFrames(t, Format(), filepath.Join("testdata", name+".jsonl"))
			raw := frames[0] // the init line, then the turn: the lines after the user's
			for i, f := range frames {
				if i > 1 {
					raw = append(append(slices.Clip(raw), '\n'), f...)
				}
			}
			agenttest.CheckRebuiltAs(t, Format(), raw, filepath.Join("testdata", "legacy", name+".turn.json"))
		})
	}
}

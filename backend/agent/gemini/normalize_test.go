package gemini

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jean-claude/jean-claude/backend/agent"
)

var update = flag.Bool("update", false, "rewrite golden files")

// recordings are Gemini CLI 0.61.0's real output: *.jsonl is stream-json
// (format "gemini"), *.json is --output-format json (format "gemini-json").
func recordings(t testing.TB) map[string]agent.Format {
	out := map[string]agent.Format{}
	for pattern, f := range map[string]agent.Format{"*.jsonl": Format(), "*.json": JSONFormat()} {
		files, err := filepath.Glob(filepath.Join("testdata", pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range files {
			out[p] = f
		}
	}
	if len(out) == 0 {
		t.Fatal("no recordings")
	}
	return out
}

func normalizeFile(t testing.TB, path string, f agent.Format) []agent.Event {
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var evs []agent.Event
	for ev, err := range agent.Normalize(f, r) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func render(t testing.TB, evs []agent.Event) []byte {
	var b bytes.Buffer
	for _, ev := range evs {
		line, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	for path, f := range recordings(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			got := render(t, normalizeFile(t, path, f))
			golden := filepath.Join("testdata", "TestGolden", strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Errorf("events differ (-want +got):\n%s", d)
			}
		})
	}
}

// TestRebuildFromRaw: a message's Raw fed to a fresh normalizer gives the
// same message, same id.
func TestRebuildFromRaw(t *testing.T) {
	for path, f := range recordings(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			last := map[string]agent.Event{}
			for _, ev := range normalizeFile(t, path, f) {
				if ev.Type == agent.EventMessage {
					last[ev.Message.ID] = ev
				}
			}
			for id, ev := range last {
				var rebuilt *agent.Message
				for e := range agent.Normalize(f, bytes.NewReader(ev.Raw)) {
					if e.Type == agent.EventMessage && e.Message.ID == id {
						rebuilt = e.Message
					}
				}
				if rebuilt == nil {
					t.Errorf("message %s: not rebuilt from its raw frames", id)
					continue
				}
				if d := cmp.Diff(ev.Message, rebuilt); d != "" {
					t.Errorf("message %s rebuilt differently (-live +rebuilt):\n%s", id, d)
				}
			}
		})
	}
}

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

package opencode

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

// recordings lists every capture copied from the shared fixtures.
func recordings(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"testdata/serve-*.sse", "testdata/run-*.jsonl", "testdata/synthetic-*.sse", "testdata/realcli-*.sse"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 17 {
		t.Fatalf("only %d recordings in testdata", len(out))
	}
	return out
}

// readFrames cuts a recording into frames with the format's splitter.
func readFrames(t testing.TB, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var frames [][]byte
	for fr, err := range Frames(f) {
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, fr)
	}
	return frames
}

// normalizeAll feeds frames to a fresh normalizer, then flushes.
func normalizeAll(frames [][]byte) []agent.Event {
	n := NewNormalizer()
	var evs []agent.Event
	for _, f := range frames {
		evs = append(evs, n.Feed(f)...)
	}
	return append(evs, n.Flush()...)
}

func encodeEvents(t testing.TB, evs []agent.Event) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, ev := range evs {
		js, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(js)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestGolden normalizes every recording and compares with its golden file.
func TestGolden(t *testing.T) {
	for _, path := range recordings(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			got := encodeEvents(t, normalizeAll(readFrames(t, path)))
			golden := filepath.Join("testdata", "TestGolden", name+".golden")
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
			if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); d != "" {
				t.Errorf("%s (-want +got):\n%s", name, d)
			}
		})
	}
}

// TestRawRebuildsMessage checks every message event's Raw: fed to a fresh
// normalizer it must rebuild the very same message.
func TestRawRebuildsMessage(t *testing.T) {
	for _, path := range recordings(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			n := 0
			for _, ev := range normalizeAll(readFrames(t, path)) {
				if ev.Type != agent.EventMessage {
					continue
				}
				n++
				if len(ev.Raw) == 0 {
					t.Fatalf("message %s has no Raw", ev.Message.ID)
				}
				var last *agent.Message
				for _, re := range normalizeAll(bytes.Split(ev.Raw, []byte("\n"))) {
					if re.Type == agent.EventMessage && re.Message.ID == ev.Message.ID {
						last = re.Message
					}
				}
				if last == nil {
					t.Fatalf("Raw of %s rebuilds no message:\n%s", ev.Message.ID, ev.Raw)
				}
				if d := cmp.Diff(ev.Message, last); d != "" {
					t.Fatalf("Raw of %s rebuilds another message (-live +renormalized):\n%s", ev.Message.ID, d)
				}
			}
			if n == 0 {
				t.Fatal("no message events")
			}
		})
	}
}

// TestMalformed: a broken frame is an error event carrying the frame, and the
// normalizer keeps going.
func TestMalformed(t *testing.T) {
	n := NewNormalizer()
	for _, bad := range []string{`{`, `{"type":""}`, `{"type":"message.updated","properties":{"info":{}}}`, `{"type":"message.part.updated","properties":{"part":{"type":"text"}}}`, `[1]`} {
		evs := n.Feed([]byte(bad))
		if len(evs) != 1 || evs[0].Type != agent.EventError || evs[0].Fatal || string(evs[0].Raw) != bad {
			t.Errorf("Feed(%s) = %+v, want one non-fatal error event with Raw", bad, evs)
		}
	}
	evs := n.Feed([]byte(`{"type":"session.created","properties":{"info":{"id":"ses_1"}}}`))
	if len(evs) != 1 || evs[0].SessionID != "ses_1" {
		t.Fatalf("after errors: %+v", evs)
	}
}

// TestUnknownAndNoise: pure noise is ignored, anything else unknown becomes a
// system-status message with the raw frame in metadata.
func TestUnknownAndNoise(t *testing.T) {
	n := NewNormalizer()
	for _, typ := range sortedKeys(noiseTypes) {
		if evs := n.Feed([]byte(`{"id":"evt_1","type":"` + typ + `","properties":{}}`)); len(evs) != 0 {
			t.Errorf("noise %s gave %+v", typ, evs)
		}
	}
	frame := `{"id":"evt_9","type":"workspace.ready","properties":{"name":"w"}}`
	evs := n.Feed([]byte(frame))
	if len(evs) != 1 || evs[0].Type != agent.EventMessage {
		t.Fatalf("unknown: %+v", evs)
	}
	m := evs[0].Message
	if m.Role != agent.RoleSystem || len(m.Parts) != 1 || m.Parts[0].Type != agent.PartSystemStatus || m.Parts[0].Subtype != "workspace.ready" || m.Metadata["raw"] != frame || string(evs[0].Raw) != frame {
		t.Fatalf("unknown message = %+v", m)
	}
}

// TestToolKinds covers the classification table.
func TestToolKinds(t *testing.T) {
	want := map[string]agent.ToolKind{"bash": "execute", "read": "read", "edit": "edit", "write": "edit", "patch": "edit",
		"grep": "search", "glob": "search", "list": "search", "webfetch": "fetch", "todowrite": "todo", "todoread": "todo",
		"question": "ask-user", "task": "sub-agent", "skill": "skill", "mcp_thing": "other"}
	for name, k := range want {
		if got := ToolKind(name); got != k {
			t.Errorf("ToolKind(%s) = %s, want %s", name, got, k)
		}
	}
}

// TestGlobalStreamMatches: the /global/event capture of a scenario gives the
// same events as its /event capture (the envelope is unwrapped, the "sync"
// copies are ignored).
func TestGlobalStreamMatches(t *testing.T) {
	globals, _ := filepath.Glob("testdata/serve-*.global.sse")
	if len(globals) != 6 {
		t.Fatalf("%d global captures", len(globals))
	}
	for _, g := range globals {
		plain := strings.TrimSuffix(g, ".global.sse") + ".sse"
		t.Run(filepath.Base(g), func(t *testing.T) {
			want := normalizeAll(readFrames(t, plain))
			got := normalizeAll(readFrames(t, g))
			strip := func(evs []agent.Event) []agent.Event {
				out := make([]agent.Event, len(evs))
				for i, ev := range evs {
					ev.Raw = nil
					out[i] = ev
				}
				return out
			}
			if d := cmp.Diff(strip(want), strip(got)); d != "" {
				t.Fatalf("(-/event +/global/event):\n%s", d)
			}
		})
	}
}

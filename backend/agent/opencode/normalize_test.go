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
	for _, pat := range []string{"testdata/serve-*.sse", "testdata/run-*.jsonl"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 10 {
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

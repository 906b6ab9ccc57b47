package agenttest

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// PathsOf returns the recordings in recs (path → format) that are of
// format f, sorted.
func PathsOf(recs map[string]agent.Format, f agent.Format) []string {
	var paths []string
	for p, pf := range recs {
		if pf.Name == f.Name {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths
}

// Corpus cuts every recording in paths into frames of f, one slice per
// recording, and returns them with their total size in bytes.
func Corpus(tb testing.TB, f agent.Format, paths []string) ([][][]byte, int) {
	tb.Helper()
	var all [][][]byte
	size := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		size += len(data)
		var frames [][]byte
		for fr, err := range f.Split(bytes.NewReader(data)) {
			if err != nil {
				tb.Fatal(err)
			}
			frames = append(frames, fr)
		}
		all = append(all, frames)
	}
	if len(all) == 0 {
		tb.Fatalf("no %s recordings", f.Name)
	}
	return all, size
}

// BenchNormalize runs every recording in paths through fresh normalizers
// of f and reports bytes/s, frames/s (frames in) and msgs/s (message
// events out).
func BenchNormalize(b *testing.B, f agent.Format, paths []string) {
	recs, size := Corpus(b, f, paths)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	frames, msgs := 0, 0
	for b.Loop() {
		for _, rec := range recs {
			n := f.New()
			for _, fr := range rec {
				frames++
				for _, ev := range n.Feed(fr) {
					if ev.Type == agent.EventMessage {
						msgs++
					}
				}
			}
			n.Flush()
		}
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}

// FuzzNormalize seeds f with the recordings in paths (each whole and its
// first frames) and extra, then feeds arbitrary input to a fresh
// normalizer of format: it must not panic and every event must pass check
// (nil means CheckEvent).
func FuzzNormalize(f *testing.F, format agent.Format, paths []string, check func(*testing.T, agent.Event), extra ...string) {
	if check == nil {
		check = CheckEvent
	}
	recs, _ := Corpus(f, format, paths)
	for _, rec := range recs {
		f.Add(bytes.Join(rec, []byte{'\n'}))
		for _, fr := range rec[:min(len(rec), 6)] {
			f.Add(fr)
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		n := format.New()
		// Cut frames cheaply (agent.Lines allocates a 1 MiB buffer per
		// stream, which would dominate each run); whole-input formats get
		// the input as one frame.
		frames := [][]byte{in}
		if format.Frames == nil {
			frames = bytes.Split(in, []byte{'\n'})
		}
		for _, fr := range frames {
			if len(bytes.TrimSpace(fr)) == 0 {
				continue
			}
			for _, ev := range n.Feed(fr) {
				check(t, ev)
			}
		}
		for _, ev := range n.Flush() {
			check(t, ev)
		}
	})
}

// CheckEvent fails t unless ev marshals, a message event has its message
// and raw frames, and an error event has its text.
func CheckEvent(t *testing.T, ev agent.Event) {
	t.Helper()
	if _, err := json.Marshal(ev); err != nil {
		t.Fatalf("event does not marshal: %v", err)
	}
	if ev.Type == agent.EventMessage && (ev.Message == nil || len(ev.Raw) == 0) {
		t.Fatalf("message event without message or raw: %+v", ev)
	}
	if ev.Type == agent.EventError && ev.Error == "" {
		t.Fatalf("error event without text: %+v", ev)
	}
}

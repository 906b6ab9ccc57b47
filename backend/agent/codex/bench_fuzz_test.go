package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// corpus is the frames of every recording of format f.
func corpus(tb testing.TB, f agent.Format) ([][][]byte, int) {
	var paths []string
	for p, pf := range recordings(tb) {
		if pf.Name == f.Name {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
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
		tb.Fatalf("no %s recordings in %s", f.Name, filepath.Join("testdata"))
	}
	return all, size
}

func benchFormat(b *testing.B, f agent.Format) {
	recs, size := corpus(b, f)
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

// BenchmarkNormalize runs every `codex exec --json` recording through fresh
// normalizers: bytes/s, frames/s (lines in) and msgs/s (message events out).
func BenchmarkNormalize(b *testing.B) { benchFormat(b, ExecFormat()) }

// BenchmarkNormalizeAppServer is the same for the app-server recordings.
func BenchmarkNormalizeAppServer(b *testing.B) { benchFormat(b, AppServerFormat()) }

func fuzzFormat(f *testing.F, format agent.Format, extra ...string) {
	recs, _ := corpus(f, format)
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
				checkEvent(t, ev)
			}
		}
		for _, ev := range n.Flush() {
			checkEvent(t, ev)
		}
	})
}

// FuzzNormalize: arbitrary exec input never panics, every event marshals
// and every message has its raw frames.
func FuzzNormalize(f *testing.F) {
	fuzzFormat(f, ExecFormat(), `{"type":"item.completed","item":{"id":"i","type":"file_change","changes":[{"path":"p","kind":"update"}],"status":"completed"}}`)
}

// FuzzNormalizeAppServer is the same for app-server traffic.
func FuzzNormalizeAppServer(f *testing.F) {
	fuzzFormat(f, AppServerFormat(),
		`{"method":"item/completed","params":{"item":{"type":"fileChange","id":"c","changes":[{"path":"p","kind":{"type":"update"},"diff":"@@ -1 +1 @@\n-a\n+b"}],"status":"completed"}}}`,
		`{"method":"item/fileChange/requestApproval","id":0,"params":{"itemId":"zz"}}`,
		`{"method":"turn/plan/updated","params":{"turnId":"t","plan":[{"step":"s","status":"inProgress"}]}}`)
}

func checkEvent(t *testing.T, ev agent.Event) {
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

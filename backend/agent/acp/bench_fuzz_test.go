package acp

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// corpus is every recording's frames, one slice per recording.
func corpus(tb testing.TB) ([][][]byte, int) {
	var all [][][]byte
	size := 0
	for _, p := range recordings(tb) {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		size += len(data)
		var frames [][]byte
		for l, err := range agent.Lines(bytes.NewReader(data)) {
			if err != nil {
				tb.Fatal(err)
			}
			frames = append(frames, l)
		}
		all = append(all, frames)
	}
	return all, size
}

// BenchmarkNormalize runs every ACP recording (Gemini CLI and codex-acp),
// each through a fresh normalizer: bytes/s of raw frames, frames/s (JSON-RPC
// messages in) and msgs/s (message events out).
func BenchmarkNormalize(b *testing.B) {
	recs, size := corpus(b)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	frames, msgs := 0, 0
	for b.Loop() {
		for _, rec := range recs {
			n := NewNormalizer()
			for _, f := range rec {
				frames++
				for _, ev := range n.Feed(f) {
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

// FuzzNormalize feeds arbitrary line sequences: the normalizer must not
// panic, every event must marshal, every message must have an id, and an
// error about a malformed line must carry that line.
func FuzzNormalize(f *testing.F) {
	recs, _ := corpus(f)
	for _, rec := range recs {
		f.Add(bytes.Join(rec, []byte{'\n'}))
		for _, fr := range rec[:min(len(rec), 6)] {
			f.Add(fr)
		}
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"{\"error\":{}}","data":"x"}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		n := NewNormalizer()
		// bytes.Split, not agent.Lines: Lines allocates a 1 MiB buffer per
		// stream, which would dominate each run.
		for _, line := range bytes.Split(in, []byte{'\n'}) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			for _, ev := range n.Feed(line) {
				checkEvent(t, ev)
			}
		}
		for _, ev := range n.Flush() {
			checkEvent(t, ev)
		}
	})
}

func checkEvent(t *testing.T, ev agent.Event) {
	if _, err := json.Marshal(ev); err != nil {
		t.Fatalf("event does not marshal: %v", err)
	}
	if ev.Type == agent.EventMessage && (ev.Message == nil || ev.Message.ID == "" || len(ev.Raw) == 0) {
		t.Fatalf("message event without message, id or raw: %+v", ev)
	}
	if ev.Type == agent.EventPermissionRequest && (ev.Request == nil || ev.Request.RequestID == "") {
		t.Fatalf("permission request without id: %+v", ev)
	}
}

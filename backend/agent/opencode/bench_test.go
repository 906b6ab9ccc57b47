package opencode

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// BenchmarkNormalize normalizes the largest recording (SSE splitting
// included): MB/s of raw SSE and message events per second.
func BenchmarkNormalize(b *testing.B) {
	paths, _ := filepath.Glob("testdata/serve-*.sse")
	var data []byte
	for _, p := range paths {
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		if len(d) > len(data) {
			data = d
		}
	}
	f := Format()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	msgs := 0
	for b.Loop() {
		for ev, err := range agent.Normalize(f, bytes.NewReader(data)) {
			if err != nil {
				b.Fatal(err)
			}
			if ev.Type == agent.EventMessage {
				msgs++
			}
		}
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "messages/s")
}

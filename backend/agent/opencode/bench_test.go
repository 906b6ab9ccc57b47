package opencode

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// BenchmarkNormalize normalizes the largest recording of each stream kind,
// SSE splitting included: MB/s of raw SSE and message events per second.
// "event" is a GET /event capture (what sessions read), "global" a
// GET /global/event one (each event wrapped, plus its "sync" copy).
func BenchmarkNormalize(b *testing.B) {
	paths, _ := filepath.Glob("testdata/serve-*.sse")
	largest := map[string][]byte{}
	for _, p := range paths {
		kind := "event"
		if strings.HasSuffix(p, ".global.sse") {
			kind = "global"
		}
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		if len(d) > len(largest[kind]) {
			largest[kind] = d
		}
	}
	for _, kind := range []string{"event", "global"} {
		data := largest[kind]
		b.Run(kind, func(b *testing.B) {
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
		})
	}
}

package claude

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// BenchmarkHugeLine sends one 20 MB assistant line through the runtime's
// read loop (agent.ReadLines), the stream (agent.Stream) and the Claude
// normalizer to a consumer that keeps nothing, and reports the peak heap
// above the input held by the benchmark, as a multiple of the line
// ("peak_x_line", goal ≤ 3) and in MB.
func BenchmarkHugeLine(b *testing.B) {
	text := strings.Repeat("lorem ipsum ", 20<<20/12)
	line := []byte(fmt.Sprintf(`{"type":"assistant","message":{"id":"msg_huge","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":%q}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u1"}`+"\n", text))
	text = ""
	var worst float64
	for b.Loop() {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peak atomic.Uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peak.Load() {
					peak.Store(ms.HeapAlloc)
				}
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
			}
		}()
		st := agent.NewStream(FormatName, NewNormalizer())
		go func() {
			for l, err := range agent.ReadLines(bytes.NewReader(line), agent.MaxFrameBytes) {
				if err == nil {
					st.Frame(l, time.Now())
				}
			}
			st.Close()
		}()
		n := 0
		for bt := range st.Events() {
			n += len(bt.Events)
		}
		close(stop)
		<-sampled
		if n == 0 {
			b.Fatal("no events")
		}
		over := float64(peak.Load()-min(peak.Load(), base.HeapAlloc)) / float64(len(line))
		worst = max(worst, over)
	}
	b.ReportMetric(worst, "peak_x_line")
	b.ReportMetric(worst*float64(len(line))/(1<<20), "peak_MB")
}

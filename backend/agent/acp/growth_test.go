package acp

import (
	"math"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// deltaStream is an ACP turn whose reply of size bytes arrives in 20-byte
// agent_message_chunk notifications (and as many thought chunks before it).
func deltaStream(size int) [][]byte {
	const piece = "abcdefghij klmnopqr " // 20 bytes
	frames := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","messageId":"m","prompt":[{"type":"text","text":"go"}]}}`),
	}
	for _, kind := range []string{"agent_thought_chunk", "agent_message_chunk"} {
		for n := 0; n < size; n += len(piece) {
			frames = append(frames, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"`+
				kind+`","content":{"type":"text","text":"`+piece+`"}}}}`))
		}
	}
	return append(frames, []byte(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`))
}

// normalizeStream feeds frames to a fresh normalizer and returns the bytes
// of text its events carry (what `jean-claude normalize` would print, give
// or take the envelope).
func normalizeStream(frames [][]byte) int {
	n := NewNormalizer()
	out := 0
	count := func(evs []agent.Event) {
		for _, ev := range evs {
			switch {
			case ev.Delta != nil:
				out += len(ev.Delta.Text)
			case ev.Message != nil:
				for _, p := range ev.Message.Parts {
					out += len(p.Text)
				}
			}
		}
	}
	for _, f := range frames {
		count(n.Feed(f))
	}
	count(n.Flush())
	return out
}

// BenchmarkGrowth normalizes a reply of 10, 100 and 200 KB streamed in
// 20-byte deltas and reports the CPU ratio per doubling of the reply (from
// 100 to 200 KB, process CPU time; linear is 2×, the limit 2.2×) and the events' text bytes
// per reply byte.
func BenchmarkGrowth(b *testing.B) {
	sizes := []int{10 << 10, 100 << 10, 200 << 10}
	per := make([]time.Duration, len(sizes))
	var amp float64
	for b.Loop() {
		for i, size := range sizes {
			frames := deltaStream(size)
			best := time.Duration(math.MaxInt64)
			for range 5 {
				runtime.GC()
				t0 := cpuTime()
				out := normalizeStream(frames)
				best = min(best, cpuTime()-t0)
				amp = float64(out) / float64(2*size)
			}
			per[i] = best
		}
	}
	ratio := float64(per[2]) / float64(per[1])
	b.ReportMetric(ratio, "cpu-x/doubling")
	b.ReportMetric(amp, "out-bytes/reply-byte")
	b.Logf("ACP reply in 20-byte deltas: 10KB %s, 100KB %s, 200KB %s; CPU per doubling %.2fx (limit 2.2x); events carry %.2f bytes per reply byte",
		per[0], per[1], per[2], ratio, amp)
}

// cpuTime is the process's user+system CPU time: other processes on a
// shared machine do not count, unlike wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestGrowthLinear guards the same property cheaply: the events' text for a
// 200 KB reply stays within 4x the reply (whole messages per delta would be
// ~5000x).
func TestGrowthLinear(t *testing.T) {
	size := 200 << 10
	if out := normalizeStream(deltaStream(size)); out > 4*2*size {
		t.Fatalf("events carry %d bytes for a %d-byte reply (+ as many thought bytes)", out, size)
	}
}

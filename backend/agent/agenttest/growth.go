package agenttest

import (
	"encoding/json"
	"math"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Reply is a generated reply streamed in small deltas: its frames and the
// reply's length in bytes.
type Reply struct {
	Frames [][]byte
	Bytes  int
}

// Chunks returns n chunks of size bytes of plain text for a reply.
func Chunks(total, size int) []string {
	const words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
	w := strings.Repeat(words, size/len(words)+2)
	out := make([]string, total/size)
	for i := range out {
		off := (i * 7) % len(words)
		out[i] = w[off : off+size]
	}
	return out
}

// GrowthSizes are the reply sizes of BenchGrowth, in bytes.
var GrowthSizes = []int{10_000, 100_000, 200_000}

// GrowthDelta is the delta size of BenchGrowth.
const GrowthDelta = 20

// Goals of BenchGrowth: CPU per doubling of the reply, and normalized output
// bytes per reply byte.
const (
	GoalCPUPerDoubling = 2.2
	GoalOutPerReply    = 4.0
	// GoalAllocPerDoubling bounds the bytes normalizing allocates per
	// doubling of the reply (CheckGrowth): linear is 2.0, a copy of
	// everything so far per frame is 4.0. Bytes allocated do not depend on
	// the machine's load, so a test can hold it.
	GoalAllocPerDoubling = 2.4
)

// BenchGrowth normalizes replies of 10, 100 and 200 KB in 20-byte deltas
// (gen makes one) with a fresh normalizer of f each time and reports the
// CPU growth per doubling of the reply (from the 10 KB to the 200 KB time,
// goal ≤ 2.2: linear is 2.0), the output's bytes per reply byte as
// `jean-claude normalize` prints it (goal ≤ 4), and the bytes of every event
// marshalled on its own per reply byte (what the orchestrator receives
// before its emitter coalesces deltas: each 20-byte delta costs its ~56-byte
// envelope, so this is ~4–5× by construction; no goal), next to the
// absolute figures.
func BenchGrowth(b *testing.B, f agent.Format, gen func(total, delta int) Reply) {
	replies := make([]Reply, len(GrowthSizes))
	for i, size := range GrowthSizes {
		replies[i] = gen(size, GrowthDelta)
	}
	spent := make([]time.Duration, len(replies))
	out := make([]Output, len(replies))
	b.ReportAllocs()
	for b.Loop() {
		for i, r := range replies {
			start := cpuTime()
			out[i] = NormalizeOutput(f, r.Frames)
			spent[i] += cpuTime() - start
		}
	}
	first, last := 0, len(replies)-1
	doublings := math.Log2(float64(replies[last].Bytes) / float64(replies[first].Bytes))
	perDoubling := math.Pow(float64(spent[last])/float64(spent[first]), 1/doublings)
	outRatio := float64(out[last].Printed) / float64(replies[last].Bytes)
	evRatio := float64(out[last].Events) / float64(replies[last].Bytes)
	n := float64(b.N)
	b.ReportMetric(perDoubling, "cpu×/doubling")
	b.ReportMetric(outRatio, "out/reply")
	b.ReportMetric(evRatio, "events/reply")
	b.ReportMetric(float64(spent[last].Nanoseconds())/n/1e6, "ms/200KB")
	b.Logf("%s: CPU ×%.2f per doubling (goal ≤ %.1f; %.2f ms CPU for 10 KB, %.2f ms for 200 KB), normalize output %.2f× the reply (goal ≤ %.0f×, %d bytes for 200 KB), every event on its own %.2f×",
		f.Name, perDoubling, GoalCPUPerDoubling, float64(spent[first].Nanoseconds())/n/1e6, float64(spent[last].Nanoseconds())/n/1e6,
		outRatio, GoalOutPerReply, out[last].Printed, evRatio)
}

// CheckGrowth fails t when a 100 KB reply in 20-byte deltas (gen makes it)
// costs more than GoalOutPerReply bytes of `jean-claude normalize` output
// per reply byte: a normalizer that re-emits the message per delta, or
// copies the reply into the turn's result and complete event, fails it.
func CheckGrowth(t testing.TB, f agent.Format, gen func(total, delta int) Reply) {
	t.Helper()
	r := gen(100_000, GrowthDelta)
	out := NormalizeOutput(f, r.Frames)
	if ratio := float64(out.Printed) / float64(r.Bytes); ratio > GoalOutPerReply {
		t.Errorf("%s: a %d-byte reply in %d-byte deltas printed %d bytes (%.2f× the reply, goal ≤ %.0f×)",
			f.Name, r.Bytes, GrowthDelta, out.Printed, ratio, GoalOutPerReply)
	}
	CheckLinear(t, f, gen)
}

// CheckLinear fails t when doubling a reply (100 to 200 KB in 20-byte
// deltas, gen makes it) more than doubles what normalizing it costs: the
// bytes allocated (GoalAllocPerDoubling) or the bytes `jean-claude
// normalize` prints (the same goal). For a stream whose frames carry more
// than the reply (an update of a message before every delta), where the
// output per reply byte of CheckGrowth does not apply.
func CheckLinear(t testing.TB, f agent.Format, gen func(total, delta int) Reply) {
	t.Helper()
	r1, r2 := gen(100_000, GrowthDelta), gen(200_000, GrowthDelta)
	a1, a2 := allocated(f, r1.Frames), allocated(f, r2.Frames)
	ratio := float64(a2) / float64(a1)
	t.Logf("%s: normalizing allocated %d bytes for a %d-byte reply, %d for %d (×%.2f per doubling, goal ≤ %.1f)",
		f.Name, a1, r1.Bytes, a2, r2.Bytes, ratio, GoalAllocPerDoubling)
	if ratio > GoalAllocPerDoubling {
		t.Errorf("%s: normalizing a reply in %d-byte deltas allocated %d bytes for %d bytes and %d bytes for %d bytes (×%.2f per doubling, goal ≤ %.1f)",
			f.Name, GrowthDelta, a1, r1.Bytes, a2, r2.Bytes, ratio, GoalAllocPerDoubling)
	}
	o1, o2 := NormalizeOutput(f, r1.Frames), NormalizeOutput(f, r2.Frames)
	if ratio := float64(o2.Printed) / float64(o1.Printed); ratio > GoalAllocPerDoubling {
		t.Errorf("%s: normalize printed %d bytes for %d bytes of reply and %d for %d (×%.2f per doubling, goal ≤ %.1f)",
			f.Name, o1.Printed, r1.Bytes, o2.Printed, r2.Bytes, ratio, GoalAllocPerDoubling)
	}
}

// allocated is the fewest bytes NormalizeOutput allocated over three runs
// (the least disturbed by anything else the test binary runs).
func allocated(f agent.Format, frames [][]byte) uint64 {
	var least uint64 = math.MaxUint64
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		NormalizeOutput(f, frames)
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// cpuTime is the process's CPU time so far (user + system, every thread:
// the garbage collector's work counts). Wall time would measure the other
// processes sharing the machine as well.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Output is what normalizing a reply printed, in bytes.
type Output struct {
	Printed int // as `jean-claude normalize` prints it (agent.EventWriter)
	Events  int // every event marshalled on its own, one JSON line each
}

// ToolStep is one step of ToolTurn: the agent's sentence, then a tool call
// (its id made from i) with result as its output.
type ToolStep func(i int, text, result string) [][]byte

// ToolTurn is a long autonomous turn for the growth checks: head, then
// total/2000 steps (step makes each one's frames from a sentence and a
// 2 KB tool result), then tail. Its Bytes are the sentences' and results'.
func ToolTurn(total int, head [][]byte, step ToolStep, tail ...[]byte) Reply {
	const text = "Now the next file."
	result := strings.Repeat("a line of the file\n", 105)
	frames, n := head, 0
	for i := range total / 2000 {
		n += len(text) + len(result)
		frames = append(frames, step(i, text, result)...)
	}
	return Reply{Frames: append(frames, tail...), Bytes: n}
}

// NormalizeOutput feeds frames to a fresh normalizer of f and counts the
// bytes of its events, printed both ways.
func NormalizeOutput(f agent.Format, frames [][]byte) Output {
	n := f.New()
	var printed, each byteCounter
	pw, ew := agent.NewEventWriter(&printed, false), agent.NewEventWriter(&each, true)
	write := func(evs []agent.Event) {
		for _, ev := range evs {
			_ = pw.Write(ev)
			_ = ew.Write(ev)
		}
	}
	for _, fr := range frames {
		write(n.Feed(fr))
	}
	write(n.Flush())
	_ = pw.Flush()
	return Output{Printed: int(printed), Events: int(each)}
}

// byteCounter is an io.Writer that only counts.
type byteCounter int

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}

// JSON marshals v for a generated frame.
func JSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

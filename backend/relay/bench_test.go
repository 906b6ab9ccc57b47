package relay

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// benchAgent writes JC_FAKE_BENCH frames of ~200 bytes, each starting with
// its write time in ns, JC_FAKE_EVERY apart (0: as fast as the pipe takes).
func benchAgent() {
	n, _ := strconv.Atoi(os.Getenv("JC_FAKE_BENCH"))
	every, _ := time.ParseDuration(os.Getenv("JC_FAKE_EVERY"))
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	pad := strings.Repeat("x", 160)
	for i := 0; i < n; i++ {
		fmt.Fprintf(out, `{"t":%d,"i":%d,"pad":"%s"}`+"\n", time.Now().UnixNano(), i, pad)
		if every > 0 {
			out.Flush()
			time.Sleep(every)
		}
	}
	out.Flush()
}

type benchRun struct {
	frames      int
	first, last time.Duration // from the start to the first and the last frame
	lat         []time.Duration
	cpu         time.Duration // of the app, the agent and the relay (all reaped: rusage)
}

// cpuUsed is the CPU time of this process and of its reaped descendants
// (the agent; the relay, and the agent it reaped).
func cpuUsed() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	ns := func(ru syscall.Rusage) int64 {
		return syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)
	}
	return time.Duration(ns(self) + ns(kids))
}

// rate is the frames/s from the first frame to the last: the stream's own
// rate, without the start (reported apart: for the relay it includes
// launching the relay process).
func (r benchRun) rate() float64 { return float64(r.frames-1) / (r.last - r.first).Seconds() }

// runBench runs the bench agent directly (tr nil) or behind a relay, through
// a Stream (Bind + Ack after "storing", as the orchestrator does).
func runBench(tb testing.TB, tr agent.Transport, n int, every time.Duration) benchRun {
	exe, _ := os.Executable()
	spec := agent.ProcSpec{Name: "bench", Path: exe, Role: "agent bench", Transport: tr,
		Env: append(os.Environ(), "JC_FAKE_BENCH="+strconv.Itoa(n), "JC_FAKE_EVERY="+every.String())}
	st := agent.NewStream("bench", nopNorm{})
	spec.OnFrame = func(line []byte, at time.Time, err error) { st.Frame(line, at) }
	start := time.Now()
	p, err := agent.StartProcess(context.Background(), spec)
	if err != nil {
		tb.Fatal(err)
	}
	st.Bind(p)
	go func() { <-p.Done(); st.Close() }()
	r := benchRun{lat: make([]time.Duration, 0, n)}
	for b := range st.Events() {
		if b.Frame == nil {
			continue
		}
		now := time.Now()
		if r.frames == 0 {
			r.first = now.Sub(start)
		}
		r.last = now.Sub(start)
		if i := bytes.IndexByte(b.Frame, ','); i > 5 {
			if t, err := strconv.ParseInt(string(b.Frame[5:i]), 10, 64); err == nil {
				r.lat = append(r.lat, now.Sub(time.Unix(0, t)))
			}
		}
		r.frames++
		b.Ack()
	}
	if err := p.Wait(); err != nil {
		tb.Fatal(err)
	}
	if r.frames != n {
		tb.Fatalf("got %d frames of %d", r.frames, n)
	}
	return r
}

func p99(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*99/100]
}

// BenchmarkRelayVsPipe: frames/s (a firehose of 200-byte frames, 100 MB a
// run) and p99 latency (frames every 500µs) through a relay against a
// direct pipe, in the same run, interleaved (pipe then relay, then relay
// then pipe: a drift of the load weighs on both alike), 9 rounds each. The
// headline ratio is of the mean rates (all frames over all the rounds'
// time, start excluded): on this shared 2-core VM one run's rate swings by
// ±20 % either way, so a best-of or a short run measures the machine, not
// the transport. The median of the rounds' own ratios and the ratio of the
// best rounds are reported too. Both go through an agent.Stream and the
// same consumer; the relay's frames are acknowledged after "storing", as
// the orchestrator does. Each run waits until its relay has ended, so that
// no run shares the CPUs with the previous one's relay. frames/s is
// counted from the first frame to the last; the time to the first frame
// (the start: for the relay, launching it, then the agent) is reported
// apart, as is the ratio of whole runs (start included). Goal: ≥ 0.9× the
// frames/s and < 5 ms added at p99.
func BenchmarkRelayVsPipe(b *testing.B) {
	dir, _ := os.MkdirTemp("", "jcrb")
	defer os.RemoveAll(dir)
	tr := &Transport{Dir: filepath.Join(dir, "relays")}
	const firehose, paced, rounds = 500000, 1000, 9
	var dRate, rRate, dWhole, rWhole float64 // the best rounds
	var dSpan, rSpan time.Duration           // first to last frame, all rounds
	var ratios []float64
	dP99, rP99, dStart, rStart := time.Hour, time.Hour, time.Hour, time.Hour
	var dCPU, rCPU time.Duration // CPU of the firehose runs
	run := func(t agent.Transport, n int, every time.Duration) benchRun {
		before := cpuUsed()
		r := runBench(b, t, n, every)
		if t != nil {
			relaysGone(tr.Dir)
		}
		r.cpu = cpuUsed() - before
		return r
	}
	for i := 0; i < b.N*rounds; i++ {
		var d, r benchRun
		if i%2 == 0 {
			d, r = run(nil, firehose, 0), run(tr, firehose, 0)
		} else {
			r, d = run(tr, firehose, 0), run(nil, firehose, 0)
		}
		ratios = append(ratios, r.rate()/d.rate())
		dCPU, rCPU = dCPU+d.cpu, rCPU+r.cpu
		dSpan, rSpan = dSpan+(d.last-d.first), rSpan+(r.last-r.first)
		dRate, rRate = max(dRate, d.rate()), max(rRate, r.rate())
		dWhole = max(dWhole, float64(d.frames)/d.last.Seconds())
		rWhole = max(rWhole, float64(r.frames)/r.last.Seconds())
		dStart, rStart = min(dStart, d.first), min(rStart, r.first)
		dP99 = min(dP99, p99(run(nil, paced, 500*time.Microsecond).lat))
		rP99 = min(rP99, p99(run(tr, paced, 500*time.Microsecond).lat))
	}
	slices.Sort(ratios)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	frames := float64(b.N * rounds * firehose)
	rMean, dMean := frames/rSpan.Seconds(), frames/dSpan.Seconds()
	b.ReportMetric(rMean, "relay-frames/s")
	b.ReportMetric(dMean, "pipe-frames/s")
	b.ReportMetric(rMean/dMean, "ratio(goal>=0.9)")
	b.ReportMetric(rRate/dRate, "ratio-best")
	b.ReportMetric(ratios[len(ratios)/2], "ratio-median")
	b.ReportMetric(rWhole/dWhole, "ratio-with-start")
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 / float64(b.N*rounds*firehose) }
	b.ReportMetric(us(rCPU), "relay-cpu-µs/frame")
	b.ReportMetric(us(dCPU), "pipe-cpu-µs/frame")
	b.ReportMetric(ms(rStart), "relay-start-ms")
	b.ReportMetric(ms(dStart), "pipe-start-ms")
	b.ReportMetric(ms(rP99), "relay-p99-ms")
	b.ReportMetric(ms(dP99), "pipe-p99-ms")
	b.ReportMetric(ms(rP99-dP99), "added-p99-ms(goal<5)")
	b.ReportMetric(0, "ns/op")
	b.Logf("TRANSPORT ALONE (agent stdout -> a consumer that stores nothing): relay %.0f frames/s vs pipe %.0f frames/s (means of %d rounds): ratio %.2f (goal >= 0.9; rounds' median %.2f, from %.2f to %.2f; best rounds %.2f; %.2f with the start: first frame after %.1f ms vs %.1f ms); CPU per frame (app, relay, agent) %.2f µs vs %.2f µs; p99 %.2f ms vs %.2f ms: added %.2f ms (goal < 5)",
		rMean, dMean, b.N*rounds, rMean/dMean, ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1], rRate/dRate, rWhole/dWhole, ms(rStart), ms(dStart), us(rCPU), us(dCPU), ms(rP99), ms(dP99), ms(rP99-dP99))
}

// relaysGone waits (up to 10 s) until no relay of dir runs and every one
// was reaped (its CPU time counts in RUSAGE_CHILDREN): a relay ends once
// its Exit's ack arrived, sent just after Wait returned.
func relaysGone(dir string) {
	ms, _ := List(dir)
	reaped := func(m Meta) bool { return syscall.Kill(m.RelayPID, 0) != nil }
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if left, _ := List(dir); len(left) == 0 && !slices.ContainsFunc(ms, func(m Meta) bool { return !reaped(m) }) {
			return
		}
	}
}

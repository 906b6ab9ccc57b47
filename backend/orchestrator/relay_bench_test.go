package orchestrator

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

// BenchmarkRelayEndToEnd is the relay's cost as a task feels it: one task
// of the fake claude (the synthetic repeat turn, ~300-byte lines) run by
// the orchestrator, its frames normalized, stored in a real SQLite file
// and emitted, once as the app's direct child and once behind a relay
// (the app's default), in the same run, interleaved (direct then relay,
// then relay then direct), 9 rounds each. The headline ratio is of the
// mean rates (all frames over all the rounds' time, start excluded), as
// in BenchmarkRelayVsPipe: one run's rate swings by ±20 % on this shared
// VM. The median of the rounds' own ratios and the ratio of the best
// rounds are reported too. Each run has its own database; a relay run
// waits until its relay ended before the next run starts.
//
//   - frames/s: a firehose of 20,000 lines, counted from the first
//     emitted event to the turn's completion (the start — launching the
//     relay, then the agent — is reported apart, and in the ratio with
//     the start).
//   - latency: a line every 2 ms (1,500 lines); every text line carries
//     its write time (FAKE_CLAUDE_STAMP), and the emitter measures from
//     the agent's write to the emit of its message (emitted only once
//     stored, with the app's coalescing of 16 ms): p50 and p99 per path,
//     and the p99 the relay adds.
//
// Goal (issue #15): ≥ 0.9× the frames/s, < 5 ms added at p99.
// BenchmarkRelayVsPipe (backend/relay) measures the transport alone.
func BenchmarkRelayEndToEnd(b *testing.B) {
	rdir := relayDir(b)
	const firehose, paced, rounds = 20000, 1500, 9
	var d, r e2eBest
	var ratios []float64
	var dFrames, rFrames int
	var dSpan, rSpan time.Duration // first to last event, all rounds
	for i := 0; i < b.N*rounds; i++ {
		var dr, rr e2eRun
		if i%2 == 0 {
			dr, rr = runE2E(b, "", firehose, 0), runE2E(b, rdir, firehose, 0)
		} else {
			rr, dr = runE2E(b, rdir, firehose, 0), runE2E(b, "", firehose, 0)
		}
		ratios = append(ratios, rr.rate()/dr.rate())
		dFrames, dSpan = dFrames+dr.frames-1, dSpan+(dr.last-dr.first)
		rFrames, rSpan = rFrames+rr.frames-1, rSpan+(rr.last-rr.first)
		d.addFirehose(dr)
		r.addFirehose(rr)
		d.addPaced(runE2E(b, "", paced, 2*time.Millisecond))
		r.addPaced(runE2E(b, rdir, paced, 2*time.Millisecond))
	}
	slices.Sort(ratios)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	rMean, dMean := float64(rFrames)/rSpan.Seconds(), float64(dFrames)/dSpan.Seconds()
	b.ReportMetric(rMean, "relay-frames/s")
	b.ReportMetric(dMean, "direct-frames/s")
	b.ReportMetric(rMean/dMean, "ratio(goal>=0.9)")
	b.ReportMetric(r.rate/d.rate, "ratio-best")
	b.ReportMetric(ratios[len(ratios)/2], "ratio-median")
	b.ReportMetric(r.whole/d.whole, "ratio-with-start")
	b.ReportMetric(ms(r.start), "relay-start-ms")
	b.ReportMetric(ms(d.start), "direct-start-ms")
	b.ReportMetric(ms(r.p50), "relay-p50-ms")
	b.ReportMetric(ms(d.p50), "direct-p50-ms")
	b.ReportMetric(ms(r.p99), "relay-p99-ms")
	b.ReportMetric(ms(d.p99), "direct-p99-ms")
	b.ReportMetric(ms(r.p99-d.p99), "added-p99-ms(goal<5)")
	b.ReportMetric(0, "ns/op")
	b.Logf("END TO END (agent stdout -> stored and emitted, one task): relay %.0f frames/s vs direct %.0f frames/s (means of %d rounds): ratio %.2f (goal >= 0.9; rounds' median %.2f, from %.2f to %.2f; best rounds %.2f; %.2f with the start: first event after %.1f ms vs %.1f ms); p99 %.2f ms vs %.2f ms: added %.2f ms (goal < 5; p50 %.2f vs %.2f ms)",
		rMean, dMean, b.N*rounds, rMean/dMean, ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1], r.rate/d.rate, r.whole/d.whole, ms(r.start), ms(d.start),
		ms(r.p99), ms(d.p99), ms(r.p99-d.p99), ms(r.p50), ms(d.p50))
}

// e2eRun is one task's run.
type e2eRun struct {
	frames      int
	first, last time.Duration // from Start to the first emitted event and to the turn's completion
	lat         []time.Duration
}

func (r e2eRun) rate() float64 { return float64(r.frames-1) / (r.last - r.first).Seconds() }

// e2eBest is the best of a path's rounds.
type e2eBest struct {
	rate, whole float64
	start       time.Duration
	p50, p99    time.Duration
	paced       int
}

func (b *e2eBest) addFirehose(r e2eRun) {
	b.rate = max(b.rate, r.rate())
	b.whole = max(b.whole, float64(r.frames)/r.last.Seconds())
	if b.start == 0 || r.first < b.start {
		b.start = r.first
	}
}

func (b *e2eBest) addPaced(r e2eRun) {
	s := slices.Clone(r.lat)
	slices.Sort(s)
	p50, p99 := s[len(s)/2], s[len(s)*99/100]
	if b.paced == 0 || p99 < b.p99 {
		b.p50, b.p99 = p50, p99
	}
	b.paced++
}

// runE2E runs one task of lines repeat lines (every apart, 0: as fast as
// it can) directly (rdir "") or behind a relay in rdir, and checks that
// every line was stored and every event emitted once, in order.
func runE2E(b *testing.B, rdir string, lines int, every time.Duration) e2eRun {
	b.Helper()
	ctx := context.Background()
	db := openDB(b)
	env := []string{"FAKE_CLAUDE_REPEAT=" + strconv.Itoa(lines), "FAKE_CLAUDE_STAMP=1"}
	if every > 0 {
		env = append(env, "FAKE_CLAUDE_LINE_DELAY="+every.String())
	}
	em := &e2eEmitter{seen: map[string]bool{}, done: make(chan time.Time, 1)}
	opt := Options{DB: db, Backends: claudeRegistry(b, env...), Emitter: em}
	if rdir != "" {
		opt.Relays = &relay.Transport{Dir: rdir}
	}
	o, err := New(opt)
	if err != nil {
		b.Fatal(err)
	}
	addTask(b, db, "t1", "claude-code", "go")
	start := time.Now()
	if err := o.Start(ctx, "t1"); err != nil {
		b.Fatal(err)
	}
	var end time.Time
	select {
	case end = <-em.done:
	case <-time.After(5 * time.Minute):
		b.Fatal("the task did not complete")
	}
	if err := o.Close(ctx); err != nil {
		b.Fatal(err)
	}
	if rdir != "" {
		waitRelaysGone(b, rdir)
	}
	n, _ := store.CountRawFrames(ctx, db.R, "t1")
	em.mu.Lock()
	defer em.mu.Unlock()
	for _, e := range em.errs {
		b.Error(e)
	}
	if n < lines+2 || len(em.lat) < lines/3 {
		b.Fatalf("%d frames stored, %d stamped messages emitted, of %d lines", n, len(em.lat), lines)
	}
	return e2eRun{frames: n, first: em.first.Sub(start), last: end.Sub(start), lat: em.lat}
}

// waitRelaysGone waits until rdir's relays ended (their files removed and
// their processes gone), so that the next run does not share the CPUs
// with one.
func waitRelaysGone(b *testing.B, rdir string) {
	ms, _ := relay.List(rdir)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		left, _ := relay.List(rdir)
		if len(left) == 0 && !slices.ContainsFunc(ms, func(m relay.Meta) bool { return syscall.Kill(m.RelayPID, 0) == nil }) {
			return
		}
	}
	b.Fatalf("relays of %s still running 10 s after their task ended", rdir)
}

// e2eEmitter measures the latency from a text line's write (its stamp) to
// the first emit of its message, and checks the emitted sequence.
type e2eEmitter struct {
	mu      sync.Mutex
	lastSeq int64
	first   time.Time
	seen    map[string]bool
	lat     []time.Duration
	errs    []string
	done    chan time.Time
}

func (e *e2eEmitter) Emit(name string, payload any) {
	p, ok := payload.(AgentEventPayload)
	if !ok {
		return
	}
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if p.Seq != e.lastSeq+1 {
		e.errs = append(e.errs, fmt.Sprintf("seq %d after %d", p.Seq, e.lastSeq))
	}
	e.lastSeq = p.Seq
	if e.first.IsZero() {
		e.first = now
	}
	switch p.Event.Type {
	case agent.EventMessage:
		m := p.Event.Message
		if m == nil || e.seen[m.ID] || len(m.Parts) == 0 {
			return
		}
		e.seen[m.ID] = true
		if t, ok := stampOf(m.Parts[0].Text); ok {
			e.lat = append(e.lat, now.Sub(t))
		}
	case agent.EventComplete:
		select {
		case e.done <- now:
		default:
		}
	}
}

// stampOf is the write time a stamped text carries ("t=" and 19 digits).
func stampOf(text string) (time.Time, bool) {
	i := strings.Index(text, "t=")
	if i < 0 || len(text) < i+21 {
		return time.Time{}, false
	}
	ns, err := strconv.ParseInt(text[i+2:i+21], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}

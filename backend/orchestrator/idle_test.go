package orchestrator

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// fakeTimers is an injected clock: timers fire only when the test says.
type fakeTimers struct {
	mu     sync.Mutex
	armed  []*fakeTimer
	delays []time.Duration
}

type fakeTimer struct {
	f       func()
	stopped bool
}

func (c *fakeTimers) after(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{f: f}
	c.armed = append(c.armed, t)
	c.delays = append(c.delays, d)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// count is how many timers were armed so far.
func (c *fakeTimers) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.armed)
}

// fire runs timer i as if its time had come, stopped or not (a timer may
// fire just as it is stopped: the watch must ignore a stale one).
func (c *fakeTimers) fire(i int) {
	c.mu.Lock()
	f := c.armed[i].f
	c.mu.Unlock()
	f()
}

func (c *fakeTimers) stopped(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.armed[i].stopped
}

type trimCount struct {
	mu sync.Mutex
	n  int
}

func (t *trimCount) trim(context.Context) { t.mu.Lock(); t.n++; t.mu.Unlock() }
func (t *trimCount) get() int             { t.mu.Lock(); defer t.mu.Unlock(); return t.n }

func TestIdleWatchTrimsOnceAfterTheLastTurn(t *testing.T) {
	clk := &fakeTimers{}
	var tc trimCount
	w := newIdleWatch(7*time.Second, tc.trim, clk.after)
	w.mark("a", true)
	w.mark("b", true)
	w.mark("a", false)
	if n := clk.count(); n != 0 {
		t.Fatalf("a timer was armed while task b still has a turn under way (%d)", n)
	}
	w.mark("b", false)
	if n := clk.count(); n != 1 || clk.delays[0] != 7*time.Second {
		t.Fatalf("armed %d timers (delays %v), want one of 7s", n, clk.delays)
	}
	clk.fire(0)
	if n := tc.get(); n != 1 {
		t.Fatalf("trims = %d, want 1", n)
	}
	clk.fire(0) // fired twice, or marked quiet again: still one per quiet period
	w.mark("b", false)
	if n := tc.get(); n != 1 || clk.count() != 1 {
		t.Fatalf("trims = %d, timers = %d, want 1 and 1", n, clk.count())
	}
	// The next busy period owes the next trim.
	w.mark("a", true)
	w.mark("a", false)
	clk.fire(1)
	if n := tc.get(); n != 2 {
		t.Fatalf("trims after a second busy period = %d, want 2", n)
	}
}

func TestIdleWatchNotWhileATurnIsUnderWay(t *testing.T) {
	clk := &fakeTimers{}
	var tc trimCount
	w := newIdleWatch(time.Second, tc.trim, clk.after)
	w.mark("a", false) // never busy: nothing is owed
	if clk.count() != 0 {
		t.Fatal("a timer was armed although no turn ever ran")
	}
	w.mark("a", true)
	w.mark("a", false)
	w.mark("b", true) // a turn starts before the quiet period is over
	if !clk.stopped(0) {
		t.Fatal("the timer was not stopped when a turn started")
	}
	clk.fire(0) // it fires anyway (the stop came too late)
	if n := tc.get(); n != 0 {
		t.Fatalf("trimmed %d times while task b had a turn under way", n)
	}
	w.mark("b", false)
	clk.fire(1)
	if n := tc.get(); n != 1 {
		t.Fatalf("trims = %d, want 1 once b went quiet", n)
	}
}

// The app's start owes a trim of its own, after its own delay; a turn
// under way when it settles takes it over (trimmed once it ends).
func TestIdleWatchSettleOwesOneTrim(t *testing.T) {
	clk := &fakeTimers{}
	var tc trimCount
	w := newIdleWatch(time.Minute, tc.trim, clk.after)
	w.settle(3 * time.Second)
	if n := clk.count(); n != 1 || clk.delays[0] != 3*time.Second {
		t.Fatalf("armed %d timers (delays %v), want one of 3s", n, clk.delays)
	}
	clk.fire(0)
	clk.fire(0)
	if n := tc.get(); n != 1 {
		t.Fatalf("trims = %d, want 1", n)
	}

	w.mark("a", true)
	w.settle(3 * time.Second) // a turn is under way: no timer of its own
	if n := clk.count(); n != 1 {
		t.Fatalf("settle armed a timer while a turn was under way (%d timers)", n)
	}
	w.mark("a", false)
	if n := clk.count(); n != 2 || clk.delays[1] != time.Minute {
		t.Fatalf("armed %d timers (delays %v), want a second one of 1m", n, clk.delays)
	}
	w.settle(3 * time.Second) // settles again before that fired: one trim, the later timer
	if !clk.stopped(1) {
		t.Fatal("the earlier timer still runs: two trims would be owed for one quiet period")
	}
	clk.fire(1)
	clk.fire(2)
	if n := tc.get(); n != 2 {
		t.Fatalf("trims = %d, want 2", n)
	}
	w.close()
	w.settle(time.Second)
	if clk.count() != 3 {
		t.Fatal("a timer was armed after close")
	}
}

func TestIdleWatchCancelsATrimWhenATurnStarts(t *testing.T) {
	clk := &fakeTimers{}
	started, done := make(chan context.Context), make(chan error)
	w := newIdleWatch(time.Second, func(ctx context.Context) {
		started <- ctx
		select {
		case <-ctx.Done():
			done <- nil
		case <-time.After(10 * time.Second):
			done <- context.DeadlineExceeded
		}
	}, clk.after)
	w.mark("a", true)
	w.mark("a", false)
	go clk.fire(0)
	<-started
	w.mark("a", true) // must not wait for the trim
	if err := <-done; err != nil {
		t.Fatal("the trim's context was not cancelled when a turn started")
	}
	w.close()
	w.mark("a", false)
	if clk.count() != 1 {
		t.Fatal("a timer was armed after close")
	}
}

// The orchestrator marks turns: the trim runs once after the last turn
// ends, and a trim under way blocks neither the store nor the sessions.
func TestIdleTrimAfterTheLastRun(t *testing.T) {
	clk := &fakeTimers{}
	entered, release := make(chan struct{}, 4), make(chan struct{})
	var tc trimCount
	h := newHarness(t, Options{Coalesce: -1, IdleDelay: 5 * time.Second, idleAfter: clk.after,
		IdleTrim: func(ctx context.Context) {
			tc.trim(ctx)
			entered <- struct{}{}
			<-release
		}})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "one")
	addTask(t, h.db, "t2", "fake", "two")
	if err := h.o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s1 := h.be.next(t)
	if err := h.o.Start(ctx, "t2"); err != nil {
		t.Fatal(err)
	}
	s2 := h.be.next(t)
	s1.send(msgEv("a1", agent.RoleAssistant, "hi"), completeEv("ok"))
	waitStatus(t, h.db, "t1", store.StatusCompleted)
	if n := clk.count(); n != 0 {
		t.Fatalf("%d idle timers armed while t2's turn is under way", n)
	}
	s2.end(nil) // t2's session ends mid-turn: no turn is under way any more
	waitFor(t, "t2's run to end", func() bool { return h.o.getRun("t2") == nil })
	if n := clk.count(); n != 1 {
		t.Fatalf("idle timers armed = %d, want 1", n)
	}
	if tc.get() != 0 {
		t.Fatal("trimmed before the idle delay passed")
	}
	unlock := h.o.lock("t1")
	r1 := h.o.getRun("t1")
	known, recent := len(r1.known), len(r1.recent)
	unlock()
	if known == 0 || recent == 0 {
		t.Fatalf("before the trim t1's run knows %d message ids and %d recent frames: want some of each", known, recent)
	}
	go clk.fire(0)
	<-entered
	unlock = h.o.lock("t1")
	kept, known, recent := len(r1.live), len(r1.known), len(r1.recent)
	unlock()
	if kept != 0 || known != 0 || recent != 0 {
		t.Fatalf("t1's idle run still keeps %d streaming messages, %d message ids and %d recent frames after the trim", kept, known, recent)
	}
	// The trim holds no lock: t1's idle session takes a follow-up, which
	// is stored and answered while the trim still runs.
	if err := h.o.SendMessage(ctx, "t1", "again"); err != nil {
		t.Fatal(err)
	}
	// a1, dropped from memory by the trim, streams again: reloaded from
	// the store and updated.
	s1.send(msgEv("a1", agent.RoleAssistant, "hi again"), msgEv("a2", agent.RoleAssistant, "again"), completeEv("ok"))
	waitFor(t, "the follow-up's reply stored during the trim", func() bool {
		return loadTask(t, h.db, "t1").Status == store.StatusCompleted && messageText(t, h.db, "t1", "a2") == "again"
	})
	if got := messageText(t, h.db, "t1", "a1"); got != "hi again" {
		t.Fatalf("a1 after the trim = %q, want %q", got, "hi again")
	}
	unlock = h.o.lock("t1")
	reloaded := r1.known["a1"] && r1.known["a2"]
	unlock()
	if !reloaded {
		t.Fatal("the follow-up's messages did not load the dropped message ids again")
	}
	close(release)
	if n := tc.get(); n != 1 {
		t.Fatalf("trims = %d, want 1", n)
	}
	// The follow-up was a new busy period: its end arms one more timer.
	if n := clk.count(); n != 2 {
		t.Fatalf("idle timers armed = %d, want 2", n)
	}
	clk.fire(1)
	<-entered
	if n := tc.get(); n != 2 {
		t.Fatalf("trims = %d, want 2", n)
	}
}

// messageText is the text of stored message id ("" when not stored).
func messageText(t testing.TB, db *store.DB, taskID, id string) string {
	t.Helper()
	m, _, ok, err := store.MessageByID(context.Background(), db.R, taskID, id)
	if err != nil {
		t.Fatal(err)
	}
	if !ok || len(m.Parts) == 0 {
		return ""
	}
	return m.Parts[0].Text
}

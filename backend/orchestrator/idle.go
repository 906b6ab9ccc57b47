package orchestrator

import (
	"context"
	"sync"
	"time"
)

// DefaultIdleDelay is how long the app must stay quiet after its last turn
// before Options.IdleTrim runs.
const DefaultIdleDelay = 20 * time.Second

// afterFunc is time.AfterFunc as the idle watch uses it (tests inject a
// clock): it calls f once d has passed, unless the returned stop is called
// first.
type afterFunc func(d time.Duration, f func()) (stop func() bool)

func realAfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// idleWatch runs trim once the app has been quiet for delay after a busy
// period: no task has a turn under way (a session waiting for the user's
// next message is quiet). It runs at most once per quiet period, on a
// timer goroutine of its own, never under the orchestrator's locks; a turn
// that starts meanwhile cancels the timer, and ctx of a trim under way.
type idleWatch struct {
	delay time.Duration
	trim  func(context.Context)
	after afterFunc

	mu     sync.Mutex
	busy   map[string]bool // tasks with a turn under way
	owed   bool            // a busy period ended since the last trim
	gen    int             // bumped on every change: a stale timer does nothing
	stop   func() bool     // the armed timer (nil: none)
	cancel context.CancelFunc
	closed bool
}

func newIdleWatch(delay time.Duration, trim func(context.Context), after afterFunc) *idleWatch {
	if delay <= 0 {
		delay = DefaultIdleDelay
	}
	if after == nil {
		after = realAfterFunc
	}
	return &idleWatch{delay: delay, trim: trim, after: after, busy: map[string]bool{}}
}

// mark records whether task id has a turn under way. The last busy task
// going quiet arms the timer; any task turning busy disarms it.
func (w *idleWatch) mark(id string, busy bool) {
	if w == nil || w.trim == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || busy == w.busy[id] {
		return
	}
	w.gen++
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	if busy {
		w.busy[id] = true
		w.owed = true
		if w.cancel != nil {
			w.cancel() // a trim under way stops early: the app is busy again
			w.cancel = nil
		}
		return
	}
	delete(w.busy, id)
	if len(w.busy) == 0 && w.owed {
		gen := w.gen
		w.stop = w.after(w.delay, func() { w.fire(gen) })
	}
}

// settle owes a trim for a busy period that was not a turn (the app's own
// start: migrations, the window's page and its first data) and arms the
// timer for d, unless a turn is under way (its end arms the usual delay).
func (w *idleWatch) settle(d time.Duration) {
	if w == nil || w.trim == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.owed = true
	if len(w.busy) > 0 {
		return
	}
	w.gen++
	if w.stop != nil {
		w.stop()
	}
	gen := w.gen
	w.stop = w.after(d, func() { w.fire(gen) })
}

// fire runs the trim if nothing changed since the timer was armed.
func (w *idleWatch) fire(gen int) {
	w.mu.Lock()
	if gen != w.gen || len(w.busy) > 0 || !w.owed {
		w.mu.Unlock()
		return
	}
	w.owed, w.stop = false, nil
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	w.mu.Unlock()
	w.trim(ctx)
	w.mu.Lock()
	if gen == w.gen { // else mark or close took (and cancelled) it
		w.cancel = nil
	}
	w.mu.Unlock()
	cancel()
}

// close disarms the timer and cancels a trim under way (Orchestrator.Close).
func (w *idleWatch) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen++
	w.owed, w.closed = false, true
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	if w.cancel != nil {
		w.cancel()
		w.cancel = nil
	}
}

// TrimWhenSettled runs Options.IdleTrim once after d, unless a turn starts
// first (then after the usual delay once it ends). The app calls it when
// its window has loaded: what the start allocated (the migrations, the
// page's assets and first data) is garbage by then, and an app that
// starts and idles would otherwise keep it until its first turn ends.
func (o *Orchestrator) TrimWhenSettled(d time.Duration) { o.idle.settle(d) }

// idleTrim is the idle watch's trim: the orchestrator drops what its runs
// and emitters keep for speed while a turn streams, then Options.IdleTrim
// runs (nil: no idle trim at all).
func (o *Orchestrator) idleTrim() func(context.Context) {
	if o.opt.IdleTrim == nil {
		return nil
	}
	return func(ctx context.Context) {
		o.releaseIdle()
		if ctx.Err() == nil {
			o.opt.IdleTrim(ctx)
		}
	}
}

// releaseIdle forgets, for every run whose turn has ended, the streaming
// messages it keeps in memory (reloaded from the store if they stream
// again, as after maxLive evictions), its recent raw frames (a relayed
// frame is a slice of the 64 KB array it was read into: one kept frame
// keeps the array) and the ids of its stored messages (a set that grows
// with the task, loaded again by the next turn's first message), and
// gives every emitter fresh, empty coalescing buffers (Go maps and slices
// keep the size they grew to).
func (o *Orchestrator) releaseIdle() {
	o.mu.Lock()
	runs := make([]*run, 0, len(o.runs))
	for _, r := range o.runs {
		runs = append(runs, r)
	}
	ems := make([]*taskEmitter, 0, len(o.emitters))
	for _, e := range o.emitters {
		ems = append(ems, e)
	}
	o.mu.Unlock()
	for _, r := range runs {
		unlock := o.lock(r.taskID)
		if r.idle && !r.anyDirty() {
			r.live, r.liveOrder = map[string]*liveMsg{}, nil
			r.recent, r.leads = nil, [maxLeads]leadFrame{}
			if r.known != nil {
				r.known, r.knownDropped = nil, true
			}
		}
		unlock()
	}
	for _, e := range ems {
		e.release()
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"
)

// How events reach the page (README, "make soak"). Wails v2 hands every
// event to the WebKit window as a script whose source holds the payload,
// and the window's web process kept memory in proportion to the payload
// bytes so delivered (~10x, not given back when idle; batching the same
// bytes into fewer scripts kept as much). A notice per batch without data
// (the script the same every time) and a fetch of the batch still grew the
// web process by the number of notices, wanted or not (a soak of five
// streaming tasks: 720-960 a minute, of which the page listened to ~55).
// So no script runs per batch at all: the events of one batch window go
// into an eventFeed, and the page keeps one fetch of FeedPath open, whose
// answer streams a line whenever a batch holds an event of a name it
// listens to (frontend/src/bridge/feed.ts). One fetch per batch (a long
// poll) grew both processes by the number of fetches (serveStream).
const (
	// FeedPath serves the feed's events after a cursor: GET
	// FeedPath?after=N answers a feedPage; with &names=["a","b"] (a JSON
	// array) only the events of those names: a page asks for the names
	// it has listeners for, so a window that shows no task is not sent
	// every task's messages (issue 20). With &wait=MS, when no such event
	// came after the cursor, the answer waits up to MS (at most maxWait)
	// for one. With &page=ID&v=K (the page's count of names it began to
	// listen to), a wait asked with an older K than the page's last wake
	// answers at once. With &stream (and &page=ID&v=K) the answer is a
	// stream of such pages, one JSON line each, until a wake makes K old
	// (serveStream).
	//
	// GET FeedPath?wake=ID&v=K tells the feed that page ID listens to new
	// names (its K-th): its waits asked with older names answer at once,
	// and it asks again with the new ones.
	FeedPath = "/_jc/events"
)

// streamBeat is how long a streamed answer goes without a line (see
// serveStream); maxStream is how long one lasts before the page asks
// again (a page that reloaded leaves a handler no longer than a beat).
const (
	streamBeat = 15 * time.Second
	maxStream  = 5 * time.Minute
)

// maxWait bounds a long poll's wait: a page whose fetch is lost (it
// reloaded) leaves a handler waiting no longer than this.
const maxWait = 25 * time.Second

// batchWindow is how long the first event of a batch waits for others.
// The orchestrator already holds each task's message events for 16 ms;
// this joins the emits of every task (and the rest) into one batch: one
// answer to the page's waiting fetch.
const batchWindow = 30 * time.Millisecond

// feedKeep is how long the feed holds a batch for pages that have not
// fetched it yet: a page's fetch waits at the end of the feed and is
// renewed at least every maxWait (less than this), so it is rarely more
// than one batch behind; one further behind than this is told of the gap. When
// nothing is emitted the feed empties: it holds nothing for good.
const feedKeep = 30 * time.Second

// batchedEvent is one event of the feed: its name and payload.
type batchedEvent struct {
	Name string `json:"name"`
	Data any    `json:"data"`
}

// eventBatcher gathers emitted events and hands them on as one batch per
// window, in order.
type eventBatcher struct {
	window time.Duration
	send   func([]batchedEvent)

	sendMu  sync.Mutex // one send at a time: batches go out in order
	mu      sync.Mutex
	pending []batchedEvent
	timer   *time.Timer
}

func newEventBatcher(window time.Duration, send func([]batchedEvent)) *eventBatcher {
	return &eventBatcher{window: window, send: send}
}

// add queues an event; the batch goes out when the window of its first
// event ends.
func (b *eventBatcher) add(name string, payload any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = append(b.pending, batchedEvent{Name: name, Data: payload})
	if b.timer == nil {
		b.timer = time.AfterFunc(b.window, b.flush)
	}
}

// flush sends what is pending now, if anything.
func (b *eventBatcher) flush() {
	b.sendMu.Lock()
	defer b.sendMu.Unlock()
	b.mu.Lock()
	batch := b.pending
	b.pending = nil
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.mu.Unlock()
	if len(batch) > 0 {
		b.send(batch)
	}
}

// feedPage is FeedPath's answer: the events after the asked cursor, in
// order, and the cursor to ask from next. Gap is set when events after
// the cursor were already dropped (the page was too far behind).
type feedPage struct {
	Last   int64          `json:"last"`
	Gap    bool           `json:"gap"`
	Events []batchedEvent `json:"events"`
}

// feedBatch is one batch of the feed, numbered from 1.
type feedBatch struct {
	seq    int64
	at     time.Time
	events []batchedEvent
}

// eventFeed holds the batches of the last keep for the pages to fetch.
type eventFeed struct {
	keep time.Duration
	beat time.Duration // a stream's longest silence (streamBeat)
	now  func() time.Time

	mu      sync.Mutex
	last    int64
	batches []feedBatch   // oldest first
	pruning *time.Timer   // drops old batches while the feed holds any
	changed chan struct{} // closed at the next push or wake (nil: nobody waits)
	woken   []pageCount   // per page, its count of names at its last wake (the newest pages)
}

// pageCount is a page's count of the names it began to listen to.
type pageCount struct {
	page string
	v    int64
}

// maxPages bounds the pages whose wakes the feed keeps (a page reloaded
// is a new one; the window and, in development, a browser are two).
const maxPages = 8

func newEventFeed(keep time.Duration) *eventFeed {
	return &eventFeed{keep: keep, beat: streamBeat, now: time.Now}
}

// push appends a batch and returns its number.
func (f *eventFeed) push(events []batchedEvent) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last++
	f.batches = append(f.batches, feedBatch{seq: f.last, at: f.now(), events: events})
	f.pruneLocked()
	f.wakeLocked()
	if f.pruning == nil {
		f.pruning = time.AfterFunc(f.keep, f.prune)
	}
	return f.last
}

// wakeLocked wakes every wait.
func (f *eventFeed) wakeLocked() {
	if f.changed != nil {
		close(f.changed)
		f.changed = nil
	}
}

// wake records that page id listens to new names (its v-th) and wakes
// its waits, which answer at once if asked with older names.
func (f *eventFeed) wake(id string, v int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := slices.IndexFunc(f.woken, func(p pageCount) bool { return p.page == id })
	if i >= 0 {
		v = max(v, f.woken[i].v)
		f.woken = slices.Delete(f.woken, i, i+1)
	}
	f.woken = append(f.woken, pageCount{id, v})
	if len(f.woken) > maxPages {
		f.woken = slices.Delete(f.woken, 0, 1)
	}
	f.wakeLocked()
}

// waiter is one long poll: its page and its count of names.
type waiter = pageCount

// staleLocked reports whether w was asked with older names than its page
// has said it listens to since.
func (f *eventFeed) staleLocked(w waiter) bool {
	return w.page != "" && slices.ContainsFunc(f.woken, func(p pageCount) bool { return p.page == w.page && w.v < p.v })
}

// wait answers as since does, but when nothing wanted came after the
// cursor it waits up to d for a batch that holds something wanted (or for
// w's names to go stale, or ctx). A first fetch (a negative cursor) and a
// gap answer at once.
func (f *eventFeed) wait(ctx context.Context, after int64, want func(string) bool, w waiter, d time.Duration) feedPage {
	timer := time.NewTimer(min(d, maxWait))
	defer timer.Stop()
	from := after // batches up to from hold nothing wanted
	for {
		page, ch := f.sinceOrWait(from, want, w)
		if ch == nil {
			if from != after && len(page.Events) == 0 && !page.Gap {
				return f.since(after, want) // as asked (stale: nothing to hand over)
			}
			return page
		}
		select {
		case <-ch:
			from = page.Last
		case <-timer.C:
			return page
		case <-ctx.Done():
			return page
		}
	}
}

// sinceOrWait is since, and the channel to wait on when that holds no
// event and no gap (nil otherwise, or when w went stale).
func (f *eventFeed) sinceOrWait(after int64, want func(string) bool, w waiter) (feedPage, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	page := f.sinceLocked(after, want)
	if after < 0 || len(page.Events) > 0 || page.Gap || f.staleLocked(w) {
		return page, nil
	}
	if f.changed == nil {
		f.changed = make(chan struct{})
	}
	return page, f.changed
}

// prune drops the batches older than keep, and comes back while any stay.
func (f *eventFeed) prune() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pruneLocked()
	f.pruning = nil
	if len(f.batches) > 0 {
		f.pruning = time.AfterFunc(f.keep, f.prune)
	}
}

func (f *eventFeed) pruneLocked() {
	cut := f.now().Add(-f.keep)
	n := 0
	for n < len(f.batches) && !f.batches[n].at.After(cut) {
		n++
	}
	if n > 0 {
		f.batches = append([]feedBatch(nil), f.batches[n:]...)
	}
}

// since returns the events after batch number after whose name want
// accepts (nil: every event). A negative cursor (a page that has not
// fetched yet) gets no events, only the cursor; a cursor ahead of the
// feed (the app restarted) gets all it holds.
func (f *eventFeed) since(after int64, want func(name string) bool) feedPage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sinceLocked(after, want)
}

func (f *eventFeed) sinceLocked(after int64, want func(name string) bool) feedPage {
	page := feedPage{Last: f.last, Events: []batchedEvent{}}
	if after < 0 || after == f.last {
		return page
	}
	if after > f.last {
		after = 0
	}
	if len(f.batches) == 0 || f.batches[0].seq > after+1 {
		page.Gap = true // batches after the cursor were dropped
	}
	for _, b := range f.batches {
		if b.seq <= after {
			continue
		}
		for _, e := range b.events {
			if want == nil || want(e.Name) {
				page.Events = append(page.Events, e)
			}
		}
	}
	return page
}

// wantedNames reads the optional names parameter (a JSON array of event
// names): nil without it (every event), else whether a name is in it.
func wantedNames(q url.Values) (func(string) bool, error) {
	if !q.Has("names") {
		return nil, nil
	}
	var names []string
	if err := json.Unmarshal([]byte(q.Get("names")), &names); err != nil {
		return nil, fmt.Errorf("names: want a JSON array of event names: %w", err)
	}
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return func(name string) bool { return set[name] }, nil
}

// ServeHTTP answers GET FeedPath?after=N[&names=[...]][&wait=MS&page=ID&v=K]
// with a feedPage, and GET FeedPath?wake=ID&v=K with 204 (FeedPath).
func (f *eventFeed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Has("wake") {
		v, err := strconv.ParseInt(q.Get("v"), 10, 64)
		if err != nil {
			http.Error(w, "v: want a count", http.StatusBadRequest)
			return
		}
		f.wake(q.Get("wake"), v)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	after, err := strconv.ParseInt(q.Get("after"), 10, 64)
	if err != nil {
		http.Error(w, "after: want a batch number", http.StatusBadRequest)
		return
	}
	want, err := wantedNames(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	wait, wr, err := waitParams(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if q.Has("stream") {
		f.serveStream(w, r, after, want, wr)
		return
	}
	var page feedPage
	if wait > 0 {
		page = f.wait(r.Context(), after, want, wr, wait)
	} else {
		page = f.since(after, want)
	}
	body, err := json.Marshal(page)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(body)
}

// serveStream answers a streamed fetch (&stream): one line of JSON per
// feedPage, each written when a batch holds an event the page wants, or
// after streamBeat without one (no events: where the feed stands, so the
// page's cursor never falls behind feedKeep and a page gone is noticed
// by the failed write). It ends when the page's names go stale (a wake:
// the page asks again with the new ones), after maxStream, or when the
// page is gone. Each fetch is a resource load that WebKit's web process
// and the window's request handling keep memory for (~0.4 KB each, never
// given back: README, "make soak"); a page that watches a streaming task
// would make several a second, a stream makes one a few minutes.
func (f *eventFeed) serveStream(w http.ResponseWriter, r *http.Request, after int64, want func(string) bool, wr waiter) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	rc := http.NewResponseController(w)
	end := time.Now().Add(maxStream)
	for left := maxStream; left > 0; left = time.Until(end) {
		page := f.wait(r.Context(), after, want, wr, min(left, f.beat))
		if r.Context().Err() != nil {
			return
		}
		line, err := json.Marshal(page)
		if err != nil {
			return
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return // the page is gone
		}
		_ = rc.Flush() // the window's writer has no buffer to flush
		after = page.Last
		if f.stale(wr) {
			return
		}
	}
}

// stale reports whether w was asked with older names than its page has
// said it listens to since.
func (f *eventFeed) stale(w waiter) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.staleLocked(w)
}

// waitParams reads the optional wait (milliseconds), page and v (a
// stream's page and v too).
func waitParams(q url.Values) (time.Duration, waiter, error) {
	w := waiter{page: q.Get("page")}
	if q.Has("v") {
		v, err := strconv.ParseInt(q.Get("v"), 10, 64)
		if err != nil {
			return 0, w, fmt.Errorf("v: want a count")
		}
		w.v = v
	}
	if !q.Has("wait") {
		return 0, w, nil
	}
	ms, err := strconv.ParseInt(q.Get("wait"), 10, 64)
	if err != nil || ms < 0 {
		return 0, w, fmt.Errorf("wait: want milliseconds")
	}
	return time.Duration(ms) * time.Millisecond, w, nil
}

// Middleware serves FeedPath from the feed and passes every other request
// on (the asset server's chain).
func (f *eventFeed) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == FeedPath && r.Method == http.MethodGet {
			f.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// How events reach the page (README, "make soak"). Wails v2 hands every
// event to the WebKit window as a script whose source holds the payload,
// and the window's web process kept memory in proportion to the payload
// bytes so delivered (~10x, not given back when idle; batching the same
// bytes into fewer scripts kept as much). So the payloads do not travel
// in scripts: the events of one batch window go into an eventFeed, the
// page is told with EventReady, whose script is the same every time, and
// fetches them from FeedPath, where they arrive as a response body
// (frontend/src/bridge/feed.ts).
const (
	// EventReady says the feed has new events; it carries no data.
	EventReady = "events:ready"
	// FeedPath serves the feed's events after a cursor: GET
	// FeedPath?after=N answers a feedPage; with &names=["a","b"] (a JSON
	// array) only the events of those names: a page asks for the names
	// it has listeners for, so a window that shows no task is not sent
	// every task's messages (issue 20).
	FeedPath = "/_jc/events"
)

// batchWindow is how long the first event of a batch waits for others.
// The orchestrator already holds each task's message events for 16 ms;
// this joins the emits of every task (and the rest) into one notice.
const batchWindow = 30 * time.Millisecond

// feedKeep is how long the feed holds a batch for pages that have not
// fetched it yet: a page fetches on each notice and is rarely more than
// one batch behind; one further behind than this is told of the gap. When
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
	now  func() time.Time

	mu      sync.Mutex
	last    int64
	batches []feedBatch // oldest first
	pruning *time.Timer // drops old batches while the feed holds any
}

func newEventFeed(keep time.Duration) *eventFeed { return &eventFeed{keep: keep, now: time.Now} }

// push appends a batch and returns its number.
func (f *eventFeed) push(events []batchedEvent) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last++
	f.batches = append(f.batches, feedBatch{seq: f.last, at: f.now(), events: events})
	f.pruneLocked()
	if f.pruning == nil {
		f.pruning = time.AfterFunc(f.keep, f.prune)
	}
	return f.last
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

// ServeHTTP answers GET FeedPath?after=N[&names=[...]] with a feedPage.
func (f *eventFeed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
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
	body, err := json.Marshal(f.since(after, want))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(body)
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

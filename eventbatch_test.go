package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// recorder collects the batches an eventBatcher sends.
type recorder struct {
	mu      sync.Mutex
	batches [][]batchedEvent
}

func (r *recorder) send(b []batchedEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, b)
}

func (r *recorder) take() [][]batchedEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.batches
	r.batches = nil
	return b
}

func TestEventBatcherJoinsOneWindowInOrder(t *testing.T) {
	var r recorder
	b := newEventBatcher(time.Hour, r.send) // only an explicit flush sends
	for i := range 5 {
		b.add(fmt.Sprintf("e%d", i), i)
	}
	if got := r.take(); len(got) != 0 {
		t.Fatalf("sent before the window ended: %v", got)
	}
	b.flush()
	got := r.take()
	if len(got) != 1 || len(got[0]) != 5 {
		t.Fatalf("want one batch of 5 events, got %v", got)
	}
	for i, ev := range got[0] {
		if ev.Name != fmt.Sprintf("e%d", i) || ev.Data != i {
			t.Fatalf("event %d is %+v: order lost", i, ev)
		}
	}
	b.flush()
	if got := r.take(); len(got) != 0 {
		t.Fatalf("an empty window sent %v", got)
	}
}

func TestEventBatcherSendsWhenTheWindowEnds(t *testing.T) {
	var r recorder
	b := newEventBatcher(time.Millisecond, r.send)
	b.add("a", 1)
	b.add("b", 2)
	deadline := time.Now().Add(10 * time.Second)
	var got [][]batchedEvent
	for len(got) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		got = r.take()
	}
	if len(got) != 1 || len(got[0]) != 2 || got[0][0].Name != "a" || got[0][1].Name != "b" {
		t.Fatalf("want one batch [a b] once the window ended, got %v", got)
	}
	b.add("c", 3) // a new window starts with the next event
	for len(got) < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		got = append(got, r.take()...)
	}
	if len(got) != 2 || len(got[1]) != 1 || got[1][0].Name != "c" {
		t.Fatalf("want a second batch [c], got %v", got)
	}
}

func names(evs []batchedEvent) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

func TestEventFeedAnswersWhatCameAfterTheCursor(t *testing.T) {
	clock := time.Unix(0, 0)
	f := newEventFeed(time.Hour)
	f.now = func() time.Time { return clock }
	if p := f.since(-1, nil); p.Last != 0 || len(p.Events) != 0 {
		t.Fatalf("empty feed: %+v", p)
	}
	f.push([]batchedEvent{{Name: "a"}, {Name: "b"}})
	clock = clock.Add(20 * time.Minute)
	f.push([]batchedEvent{{Name: "c"}})
	if p := f.since(-1, nil); p.Last != 2 || len(p.Events) != 0 {
		t.Fatalf("a first fetch takes only the cursor, got %+v", p)
	}
	if p := f.since(0, nil); p.Last != 2 || p.Gap || fmt.Sprint(names(p.Events)) != "[a b c]" {
		t.Fatalf("since 0: %+v", p)
	}
	if p := f.since(1, nil); fmt.Sprint(names(p.Events)) != "[c]" {
		t.Fatalf("since 1: %+v", p)
	}
	if p := f.since(2, nil); len(p.Events) != 0 || p.Gap {
		t.Fatalf("up to date: %+v", p)
	}
	clock = clock.Add(10 * time.Minute)
	f.push([]batchedEvent{{Name: "d"}})
	clock = clock.Add(31 * time.Minute)
	f.push([]batchedEvent{{Name: "e"}}) // keeps an hour: batch 1 (a b) is dropped
	if p := f.since(0, nil); !p.Gap || fmt.Sprint(names(p.Events)) != "[c d e]" {
		t.Fatalf("a cursor behind what is kept must be told of the gap: %+v", p)
	}
	if p := f.since(1, nil); p.Gap || fmt.Sprint(names(p.Events)) != "[c d e]" {
		t.Fatalf("since 1 misses nothing: %+v", p)
	}
	if p := f.since(99, nil); p.Last != 4 || fmt.Sprint(names(p.Events)) != "[c d e]" {
		t.Fatalf("a cursor ahead (the app restarted) gets all that is kept: %+v", p)
	}
}

func TestEventFeedServesItsPathOnly(t *testing.T) {
	f := newEventFeed(time.Hour)
	f.push([]batchedEvent{{Name: "task:updated", Data: map[string]string{"id": "t1"}}})
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := f.Middleware(next)

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, FeedPath+"?after=0", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("status %d, headers %v", rec.Code, rec.Header())
	}
	var page struct {
		Last   int64 `json:"last"`
		Gap    bool  `json:"gap"`
		Events []struct {
			Name string            `json:"name"`
			Data map[string]string `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	if page.Last != 1 || len(page.Events) != 1 || page.Events[0].Name != "task:updated" || page.Events[0].Data["id"] != "t1" {
		t.Fatalf("page %s", rec.Body.String())
	}

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, FeedPath+"?after=x", nil))
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("a bad cursor: status %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/index.html", nil))
	if rec.Code != http.StatusTeapot {
		t.Fatalf("other paths must pass on: status %d", rec.Code)
	}
}

func TestEventFeedServesOnlyTheNamesAsked(t *testing.T) {
	f := newEventFeed(time.Hour)
	f.push([]batchedEvent{{Name: "agent:event"}, {Name: "task:updated"}, {Name: "agent:event"}})
	f.push([]batchedEvent{{Name: "inbox:updated"}, {Name: "agent:event"}})
	get := func(query string) (int, feedPage) {
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, FeedPath+"?after=0"+query, nil))
		var p feedPage
		if rec.Code == http.StatusOK {
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
		}
		return rec.Code, p
	}
	if _, p := get(""); fmt.Sprint(names(p.Events)) != "[agent:event task:updated agent:event inbox:updated agent:event]" {
		t.Fatalf("without names every event: %+v", p)
	}
	_, p := get("&names=" + url.QueryEscape(`["task:updated","inbox:updated"]`))
	if p.Last != 2 || fmt.Sprint(names(p.Events)) != "[task:updated inbox:updated]" {
		t.Fatalf("names task:updated, inbox:updated: %+v", p)
	}
	if _, p := get("&names=" + url.QueryEscape(`[]`)); p.Last != 2 || len(p.Events) != 0 || p.Gap {
		t.Fatalf("no names: no events, the cursor still moves: %+v", p)
	}
	if code, _ := get("&names=task:updated"); code != http.StatusBadRequest {
		t.Fatalf("names not a JSON array: status %d", code)
	}
}

func TestEventFeedEmptiesWhenNothingIsEmitted(t *testing.T) {
	f := newEventFeed(5 * time.Millisecond)
	f.push([]batchedEvent{{Name: "a"}})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		n, timer := len(f.batches), f.pruning
		f.mu.Unlock()
		if n == 0 && timer == nil {
			if p := f.since(0, nil); p.Last != 1 || !p.Gap || len(p.Events) != 0 {
				t.Fatalf("after pruning: %+v", p)
			}
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the feed still holds its batch long after keep")
}

// poll runs one long poll of f in the background: its answer arrives on
// the channel.
func poll(f *eventFeed, after int64, want []string, w waiter, d time.Duration) <-chan feedPage {
	ch := make(chan feedPage, 1)
	set := map[string]bool{}
	for _, n := range want {
		set[n] = true
	}
	go func() { ch <- f.wait(context.Background(), after, func(n string) bool { return set[n] }, w, d) }()
	return ch
}

// answer is the poll's answer; t fails if none comes within 10 s.
func answer(t *testing.T, ch <-chan feedPage) feedPage {
	t.Helper()
	select {
	case p := <-ch:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("no answer in 10 s: the poll still waits")
		return feedPage{}
	}
}

// waiting fails t if the poll answers within a moment.
func waiting(t *testing.T, ch <-chan feedPage) {
	t.Helper()
	select {
	case p := <-ch:
		t.Fatalf("answered, want still waiting: %+v", p)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestEventFeedWaitsForAnEventItsPageListensTo(t *testing.T) {
	if maxWait >= feedKeep {
		t.Fatalf("a wait (%v) must end before the feed drops what it waited past (%v)", maxWait, feedKeep)
	}
	f := newEventFeed(time.Hour)
	f.push([]batchedEvent{{Name: "x"}})
	if p := answer(t, poll(f, -1, []string{"x"}, waiter{}, time.Hour)); p.Last != 1 || len(p.Events) != 0 {
		t.Fatalf("a first fetch takes the cursor at once: %+v", p)
	}
	if p := answer(t, poll(f, 0, []string{"x"}, waiter{}, time.Hour)); p.Last != 1 || fmt.Sprint(names(p.Events)) != "[x]" {
		t.Fatalf("what is there is answered at once: %+v", p)
	}
	ch := poll(f, 1, []string{"x"}, waiter{}, time.Hour)
	waiting(t, ch)
	f.push([]batchedEvent{{Name: "y"}}) // not listened to: no answer
	waiting(t, ch)
	f.push([]batchedEvent{{Name: "y"}, {Name: "x", Data: 3}})
	p := answer(t, ch)
	if p.Last != 3 || p.Gap || fmt.Sprint(names(p.Events)) != "[x]" || p.Events[0].Data != 3 {
		t.Fatalf("the batch with x answers the wait: %+v", p)
	}
	f.push([]batchedEvent{{Name: "y"}})
	start := time.Now()
	if p := answer(t, poll(f, 3, []string{"x"}, waiter{}, 30*time.Millisecond)); p.Last != 4 || len(p.Events) != 0 || p.Gap {
		t.Fatalf("at the end of the wait the cursor moves past what was not wanted: %+v", p)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Fatalf("answered after %v, before the wait ended", d)
	}
}

func TestEventFeedWakeAnswersWaitsAskedWithOlderNames(t *testing.T) {
	f := newEventFeed(time.Hour)
	f.push([]batchedEvent{{Name: "x"}})
	old := poll(f, 1, []string{"x"}, waiter{page: "p1", v: 1}, time.Hour)
	other := poll(f, 1, []string{"x"}, waiter{page: "p0", v: 1}, time.Hour)
	waiting(t, old)
	f.push([]batchedEvent{{Name: "y"}}) // the old names do not want it
	waiting(t, old)
	f.wake("p1", 2) // page p1 now listens to y too
	if p := answer(t, old); p.Last != 2 || len(p.Events) != 0 {
		t.Fatalf("a wait asked with older names answers at once: %+v", p)
	}
	waiting(t, other) // another page's wait goes on
	// A wait asked with older names that arrives after the wake (requests
	// may be served out of order) answers at once too; the new names wait.
	if p := answer(t, poll(f, 2, []string{"x"}, waiter{page: "p1", v: 1}, time.Hour)); p.Last != 2 {
		t.Fatalf("late stale wait: %+v", p)
	}
	cur := poll(f, 2, []string{"x", "y"}, waiter{page: "p1", v: 2}, time.Hour)
	waiting(t, cur)
	f.wake("p1", 1) // an older wake changes nothing
	waiting(t, cur)
	f.push([]batchedEvent{{Name: "y", Data: 1}})
	if p := answer(t, cur); fmt.Sprint(names(p.Events)) != "[y]" {
		t.Fatalf("the new names' event: %+v", p)
	}
	f.push([]batchedEvent{{Name: "x"}})
	if p := answer(t, other); p.Last != 4 || fmt.Sprint(names(p.Events)) != "[x]" {
		t.Fatalf("the other page's wait: %+v", p)
	}
}

func TestEventFeedWaitOverHTTP(t *testing.T) {
	f := newEventFeed(time.Hour)
	get := func(query string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, FeedPath+"?"+query, nil))
		return rec
	}
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- get("after=0&wait=60000&page=p&v=1&names=" + url.QueryEscape(`["a"]`)) }()
	time.Sleep(20 * time.Millisecond)
	if rec := get("wake=p&v=2"); rec.Code != http.StatusNoContent {
		t.Fatalf("wake: status %d", rec.Code)
	}
	select {
	case rec := <-done:
		if rec.Code != http.StatusOK || rec.Body.String() != `{"last":0,"gap":false,"events":[]}` {
			t.Fatalf("woken: %d %s", rec.Code, rec.Body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wake did not answer the wait")
	}
	for _, q := range []string{"wake=p&v=x", "after=0&wait=-1", "after=0&wait=1&v=x"} {
		if rec := get(q); rec.Code != http.StatusBadRequest {
			t.Fatalf("%s: status %d", q, rec.Code)
		}
	}
}

func TestEventFeedKeepsEachPagesWakeApart(t *testing.T) {
	f := newEventFeed(time.Hour)
	f.wake("window", 3)
	f.wake("browser", 1) // another page's wake does not forget the window's
	if p := answer(t, poll(f, 0, nil, waiter{page: "window", v: 2}, time.Hour)); p.Last != 0 {
		t.Fatalf("%+v", p)
	}
	waiting(t, poll(f, 0, nil, waiter{page: "window", v: 3}, time.Hour))
	for i := range maxPages {
		f.wake(fmt.Sprint("reloaded", i), 1) // a page reloaded is a new one: the oldest go
	}
	waiting(t, poll(f, 0, nil, waiter{page: "window", v: 2}, time.Hour))
}

// streamLines reads a streamed answer's lines as feedPages, in order.
func streamLines(t *testing.T, body io.Reader) <-chan feedPage {
	t.Helper()
	out := make(chan feedPage, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(body)
		for sc.Scan() {
			var p feedPage
			if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
				t.Errorf("line %q: %v", sc.Text(), err)
				return
			}
			out <- p
		}
	}()
	return out
}

func nextLine(t *testing.T, lines <-chan feedPage) (feedPage, bool) {
	t.Helper()
	select {
	case p, ok := <-lines:
		return p, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no line within 10 s")
		return feedPage{}, false
	}
}

// streamServer serves f over HTTP with a beat of beat; ended is closed
// when the (one) request's handler has returned.
func streamServer(t *testing.T, beat time.Duration) (f *eventFeed, srv *httptest.Server, ended <-chan struct{}) {
	f = newEventFeed(time.Hour)
	f.beat = beat
	done := make(chan struct{})
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		f.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return f, srv, done
}

func TestEventFeedStreamsAPagePerWantedBatchUntilWoken(t *testing.T) {
	f, srv, ended := streamServer(t, 100*time.Millisecond)
	res, err := http.Get(srv.URL + FeedPath + "?after=-1&stream=1&page=p&v=1&names=" + url.QueryEscape(`["a"]`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Fatalf("content type %q", ct)
	}
	lines := streamLines(t, res.Body)
	if p, _ := nextLine(t, lines); p.Last != 0 || len(p.Events) != 0 {
		t.Fatalf("the first line only gives the cursor: %+v", p)
	}
	f.push([]batchedEvent{{Name: "b"}}) // not wanted: no line for it
	f.push([]batchedEvent{{Name: "a", Data: 1}, {Name: "b"}})
	if p, _ := nextLine(t, lines); p.Last != 2 || fmt.Sprint(names(p.Events)) != "[a]" {
		t.Fatalf("a wanted batch: %+v", p)
	}
	f.push([]batchedEvent{{Name: "b"}})
	// Silence (nothing wanted) for a beat: a line says where the feed is.
	if p, _ := nextLine(t, lines); p.Last != 3 || len(p.Events) != 0 || p.Gap {
		t.Fatalf("a beat: %+v", p)
	}
	f.push([]batchedEvent{{Name: "a", Data: 2}})
	f.push([]batchedEvent{{Name: "a", Data: 3}})
	var got []any
	for len(got) < 2 {
		p, ok := nextLine(t, lines)
		if !ok {
			t.Fatal("the stream ended")
		}
		for _, e := range p.Events {
			got = append(got, e.Data)
		}
	}
	if fmt.Sprint(got) != "[2 3]" {
		t.Fatalf("in order, each once: %v", got)
	}
	f.wake("p", 2) // the page listens to new names: the stream ends, it asks again
	for stop := time.Now().Add(5 * time.Second); ; {
		if _, ok := nextLine(t, lines); !ok {
			break
		}
		if time.Now().After(stop) {
			t.Fatal("the stream goes on after the wake")
		}
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler goes on after the wake")
	}
}

func TestEventFeedStreamEndsWhenThePageIsGone(t *testing.T) {
	_, srv, ended := streamServer(t, 50*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+FeedPath+"?after=-1&stream=1", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := nextLine(t, streamLines(t, res.Body)); !ok {
		t.Fatal("no first line")
	}
	cancel() // the page reloaded
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler outlives its page")
	}
}

package main

import (
	"encoding/json"
	"fmt"
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

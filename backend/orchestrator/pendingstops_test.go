package orchestrator

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// stopHosts is fakeHosts with stored stops (PendingStopper): DeliverStop
// fails while failing > 0.
type stopHosts struct {
	*fakeHosts
	mu        sync.Mutex
	pending   []store.PendingStop
	failing   int
	delivered map[string]int // relay id → calls
	remember  []string       // task ids of RememberTaskStop
}

func (h *stopHosts) PendingStops(context.Context) ([]store.PendingStop, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]store.PendingStop(nil), h.pending...), nil
}

func (h *stopHosts) DeliverStop(_ context.Context, s store.PendingStop) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.delivered[s.RelayID]++
	if h.failing > 0 {
		h.failing--
		return refused
	}
	return nil
}

func (h *stopHosts) RememberTaskStop(_ context.Context, _, taskID, _ string) (store.PendingStop, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.remember = append(h.remember, taskID)
	return store.PendingStop{RelayID: "task:" + taskID, Host: "box", TaskID: taskID}, true, nil
}

func (h *stopHosts) calls(relayID string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.delivered[relayID]
}

// Stops stored by a previous app: a task that still exists (whatever its
// status) is adopted and stopped right after; the stops of a deleted task
// and of a server's relay are delivered by the host retry, again after a
// failure, and the retry ends once they are.
func TestStoredStopsAtStart(t *testing.T) {
	hosts := &stopHosts{fakeHosts: &fakeHosts{relays: map[string]bool{"done": true}, calls: map[string]int{}},
		failing: 2, delivered: map[string]int{}, pending: []store.PendingStop{
			{RelayID: "r-done", Host: "box", TaskID: "done"},
			{RelayID: "r-deleted", Host: "box", TaskID: "deleted"},
			{RelayID: "r-server", Host: "box"},
		}}
	h := newHarness(t, Options{Hosts: hosts, HostRetry: HostRetry{Min: 50 * time.Millisecond, Max: 100 * time.Millisecond, For: time.Minute}})
	ctx := context.Background()
	addTask(t, h.db, "done", "fake", "work")
	setStatus(t, h.db, "done", store.StatusInterrupted, ReasonAppClosed) // the quit could not stop it
	if _, err := h.o.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	s := h.be.next(t) // "done" adopted
	waitFor(t, "the adopted session stopped", func() bool { return len(s.callsOf("Stop")) == 1 })
	if tr := waitStatus(t, h.db, "done", store.StatusInterrupted); tr.StatusReason != ReasonStopped {
		t.Fatalf("adopted then stopped: %q", tr.StatusReason)
	}
	waitFor(t, "the other stops delivered", func() bool { return hosts.calls("r-deleted") >= 1 && hosts.calls("r-server") >= 1 })
	waitFor(t, "each delivered after the failures", func() bool {
		return hosts.calls("r-deleted")+hosts.calls("r-server") == 4
	})
	if n := hosts.calls("r-done"); n != 0 {
		t.Fatalf("the adopted task's stop was also delivered by the retry (%d)", n)
	}
	time.Sleep(300 * time.Millisecond)
	if n := hosts.calls("r-deleted") + hosts.calls("r-server"); n != 4 {
		t.Fatalf("the retry went on after the stops were delivered: %d calls", n)
	}
}

// A Stop asked while the task waits for its host at start is stored.
func TestStopWhileWaitingIsStored(t *testing.T) {
	hosts := &stopHosts{fakeHosts: &fakeHosts{down: refused, calls: map[string]int{}}, delivered: map[string]int{}}
	h := newHarness(t, Options{Hosts: hosts, HostRetry: HostRetry{Min: time.Minute, Max: time.Minute, For: time.Hour}})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "work")
	setStatus(t, h.db, "t1", store.StatusRunning, "")
	if _, err := h.o.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.o.Stop(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	hosts.mu.Lock()
	defer hosts.mu.Unlock()
	if len(hosts.remember) != 1 || hosts.remember[0] != "t1" {
		t.Fatalf("stored stops = %v", hosts.remember)
	}
}

// A Gemini task on a host that was running at start is not adopted: it is
// interrupted and whatever relay its turn left there is stopped (a stop
// stored for the task, delivered by the retry).
func TestGeminiOnHostNotAdoptedItsTurnStopped(t *testing.T) {
	hosts := &stopHosts{fakeHosts: &fakeHosts{relays: map[string]bool{"g": true}, calls: map[string]int{}}, delivered: map[string]int{}}
	h := newHarness(t, Options{Hosts: hosts, HostRetry: HostRetry{Min: 50 * time.Millisecond, Max: 100 * time.Millisecond, For: time.Minute}})
	ctx := context.Background()
	addTask(t, h.db, "g", "gemini", "work")
	setStatus(t, h.db, "g", store.StatusRunning, "")
	if _, err := h.o.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if tr := loadTask(t, h.db, "g"); tr.Status != store.StatusInterrupted || tr.StatusReason != ReasonAppClosed {
		t.Fatalf("at start: %s %q", tr.Status, tr.StatusReason)
	}
	waitFor(t, "the turn's relay stopped", func() bool { return hosts.calls("task:g") == 1 })
	if n := hosts.callsOf("g"); n != 0 {
		t.Fatalf("Adopt asked %d times for a Gemini task", n)
	}
}

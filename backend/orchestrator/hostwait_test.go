package orchestrator

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// explained is an error told in the user's words with the raw one as its
// detail (as remote.Explained).
type explained struct{ words, raw string }

func (e explained) Error() string  { return e.words }
func (e explained) Detail() string { return e.raw }

// fakeHosts answers Adopt as the test says: down (an error), or per task
// whether its relay is there.
type fakeHosts struct {
	mu     sync.Mutex
	down   error
	hang   bool // Adopt answers only when its context ends
	relays map[string]bool
	calls  map[string]int
}

func (h *fakeHosts) TransportFor(context.Context, string, func(string, time.Time, error), func(string)) (agent.Transport, bool, error) {
	return nil, false, nil
}

func (h *fakeHosts) Adopt(ctx context.Context, _, taskID string, _ func(string) (uint64, error),
	_ func(string, time.Time, error), _ func(string)) (agent.Transport, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls[taskID]++
	if h.hang {
		h.mu.Unlock()
		<-ctx.Done()
		h.mu.Lock()
		return nil, false, ctx.Err()
	}
	if h.down != nil {
		return nil, false, h.down
	}
	if !h.relays[taskID] {
		return nil, false, nil
	}
	return noTransport{}, true, nil
}

func (h *fakeHosts) set(down error) {
	h.mu.Lock()
	h.down, h.hang = down, false
	h.mu.Unlock()
}

func (h *fakeHosts) callsOf(id string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[id]
}

// noTransport stands for the relay's transport (the fake backend runs in
// process and never uses it).
type noTransport struct{}

func (noTransport) Start(context.Context, agent.ProcSpec) (agent.Remote, error) {
	return nil, errors.New("not used")
}

func setStatus(t *testing.T, db *store.DB, id string, status store.TaskStatus, reason string) {
	t.Helper()
	ctx := context.Background()
	if err := db.Tx(ctx, func(tx *txT) error { return store.SetTaskStatus(ctx, tx, id, status, reason, store.Now()) }); err != nil {
		t.Fatal(err)
	}
}

var refused = explained{"connection refused (no SSH server answering)", "host unreachable: box: ssh: connect to host box port 22: Connection refused"}

// A host that cannot be asked at app start: its running, waiting and kept
// tasks are not marked interrupted; they show "host unreachable since …"
// with the cause in words (the raw error on a second line); a follow-up is
// queued, a resume refused, a stop queued; the host is asked again in the
// background and, once it answers, the relays found are adopted (the
// queued stop sent) and a task whose relay is gone is interrupted.
func TestHostUnreachableAtStartWaitsForIt(t *testing.T) {
	hosts := &fakeHosts{down: refused, relays: map[string]bool{"run": true, "stopme": true}, calls: map[string]int{}}
	h := newHarness(t, Options{Hosts: hosts, HostRetry: HostRetry{Min: 50 * time.Millisecond, Max: 100 * time.Millisecond, For: time.Minute}})
	ctx := context.Background()
	for _, id := range []string{"run", "stopme", "gone", "kept"} {
		addTask(t, h.db, id, "fake", "work")
	}
	setStatus(t, h.db, "run", store.StatusRunning, "")
	setStatus(t, h.db, "stopme", store.StatusWaiting, "")
	setStatus(t, h.db, "gone", store.StatusRunning, "")
	setStatus(t, h.db, "kept", store.StatusInterrupted, ReasonKept)

	n, err := h.o.Recover(ctx)
	if err != nil || n != 0 {
		t.Fatalf("Recover = %d, %v; want no task interrupted", n, err)
	}
	for id, status := range map[string]store.TaskStatus{"run": store.StatusRunning, "stopme": store.StatusWaiting, "gone": store.StatusRunning, "kept": store.StatusRunning} {
		tr := loadTask(t, h.db, id)
		words, raw, _ := strings.Cut(tr.StatusReason, "\n")
		if tr.Status != status || !strings.HasPrefix(words, "host unreachable since ") || !strings.HasSuffix(words, ": "+refused.words) || raw != refused.raw {
			t.Fatalf("task %s: %s %q", id, tr.Status, tr.StatusReason)
		}
	}
	if err := h.o.SendMessage(ctx, "run", "and then?"); err != nil {
		t.Fatal(err)
	}
	if q, _ := store.Queue(ctx, h.db.R, "run"); len(q) != 1 {
		t.Fatalf("follow-up while waiting for the host: queue = %+v", q)
	}
	if err := h.o.Resume(ctx, "gone"); !errors.Is(err, ErrBusy) {
		t.Fatalf("Resume while waiting for the host = %v", err)
	}
	if err := h.o.Stop(ctx, "stopme"); err != nil {
		t.Fatal(err)
	}
	if tr := loadTask(t, h.db, "stopme"); tr.Status != store.StatusWaiting || !strings.Contains(tr.StatusReason, ReasonStopQueued) {
		t.Fatalf("stop while waiting for the host: %s %q", tr.Status, tr.StatusReason)
	}
	waitFor(t, "a few retries", func() bool { return hosts.callsOf("run") >= 3 })
	if len(h.be.sessions) != 0 || loadTask(t, h.db, "gone").Status != store.StatusRunning {
		t.Fatal("a session started, or a task ended, while its host was unreachable")
	}

	hosts.set(nil) // the host is back
	adopted := []*fakeSession{h.be.next(t), h.be.next(t)}
	tr := waitStatus(t, h.db, "gone", store.StatusInterrupted)
	if tr.StatusReason != ReasonAppClosed {
		t.Fatalf("relay gone: %q", tr.StatusReason)
	}
	if tr := waitStatus(t, h.db, "kept", store.StatusInterrupted); tr.StatusReason != ReasonAppClosed {
		t.Fatalf("kept, relay gone: %q", tr.StatusReason)
	}
	// The adopted task's reason is written once its session is attached,
	// after the adoption the fake backend saw: wait for it.
	waitFor(t, "the adopted task running, continued", func() bool {
		tr := loadTask(t, h.db, "run")
		return tr.Status == store.StatusRunning && tr.StatusReason == ReasonContinued
	})
	waitStatus(t, h.db, "stopme", store.StatusInterrupted)
	stopped := 0
	for _, s := range adopted {
		stopped += len(s.callsOf("Stop"))
	}
	if stopped != 1 {
		t.Fatalf("%d adopted sessions stopped, want the one stopped while waiting", stopped)
	}
	if tr := loadTask(t, h.db, "stopme"); tr.StatusReason != ReasonStopped {
		t.Fatalf("stopped after adoption: %q", tr.StatusReason)
	}
	calls := hosts.callsOf("run")
	time.Sleep(300 * time.Millisecond)
	if hosts.callsOf("run") != calls {
		t.Fatal("the retry went on after every task was settled")
	}
}

// The retry is bounded: past HostRetry.For the task is interrupted with why;
// and it ends with the app (no call after Close).
func TestHostRetryBoundedAndEndsAtClose(t *testing.T) {
	hosts := &fakeHosts{down: refused, calls: map[string]int{}}
	h := newHarness(t, Options{Hosts: hosts, HostRetry: HostRetry{Min: 20 * time.Millisecond, Max: 40 * time.Millisecond, For: 200 * time.Millisecond}})
	addTask(t, h.db, "t1", "fake", "work")
	setStatus(t, h.db, "t1", store.StatusRunning, "")
	if _, err := h.o.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr := waitStatus(t, h.db, "t1", store.StatusInterrupted)
	if !strings.HasPrefix(tr.StatusReason, "its host stayed unreachable since ") {
		t.Fatalf("gave up: %q", tr.StatusReason)
	}

	hosts2 := &fakeHosts{down: refused, calls: map[string]int{}}
	h2 := newHarness(t, Options{DB: h.db, Hosts: hosts2, HostRetry: HostRetry{Min: 10 * time.Millisecond, Max: 10 * time.Millisecond, For: time.Hour}})
	setStatus(t, h.db, "t1", store.StatusRunning, "")
	if _, err := h2.o.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "retries", func() bool { return hosts2.callsOf("t1") >= 3 })
	if err := h2.o.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	calls := hosts2.callsOf("t1")
	time.Sleep(200 * time.Millisecond)
	if got := hosts2.callsOf("t1"); got != calls {
		t.Fatalf("the host was asked %d more times after Close", got-calls)
	}
	if tr := loadTask(t, h.db, "t1"); tr.Status != store.StatusRunning || !strings.HasPrefix(tr.StatusReason, "host unreachable since ") {
		t.Fatalf("after Close: %s %q (the next start asks again)", tr.Status, tr.StatusReason)
	}
}

func TestUnreachableReasonWords(t *testing.T) {
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.Local)
	for _, c := range []struct {
		err        error
		more, want string
	}{
		{nil, "", "host unreachable since 15:04:05"},
		{errors.New("EOF"), "", "host unreachable since 15:04:05: EOF"},
		{explained{"connection lost", "remote: relay r1: EOF"}, "", "host unreachable since 15:04:05: connection lost\nremote: relay r1: EOF"},
		{explained{"connection lost", "EOF"}, ReasonStopQueued, "host unreachable since 15:04:05: connection lost; " + ReasonStopQueued + "\nEOF"},
	} {
		if got := unreachableReason(at, c.err, c.more); got != c.want {
			t.Errorf("unreachableReason(%v, %q) = %q, want %q", c.err, c.more, got, c.want)
		}
	}
}

// A host that does not answer does not hold the app's start: Recover asks
// it for at most HostRetry.AtStart, then the task waits for it.
func TestHostSlowAtStartDoesNotHoldRecover(t *testing.T) {
	hosts := &fakeHosts{hang: true, relays: map[string]bool{"t1": true}, calls: map[string]int{}}
	h := newHarness(t, Options{Hosts: hosts, HostRetry: HostRetry{Min: 50 * time.Millisecond, Max: 100 * time.Millisecond, AtStart: 100 * time.Millisecond}})
	addTask(t, h.db, "t1", "fake", "work")
	setStatus(t, h.db, "t1", store.StatusRunning, "")
	if n, err := h.o.Recover(context.Background()); err != nil || n != 0 {
		t.Fatalf("Recover = %d, %v", n, err)
	}
	if tr := loadTask(t, h.db, "t1"); tr.Status != store.StatusRunning || !strings.HasPrefix(tr.StatusReason, "host unreachable since ") {
		t.Fatalf("after Recover: %s %q", tr.Status, tr.StatusReason)
	}
	hosts.set(nil)
	h.be.next(t) // adopted in the background
	waitFor(t, "adopted", func() bool { return loadTask(t, h.db, "t1").StatusReason == ReasonContinued })
}

package limits

import (
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// fakeClock fires AfterFunc callbacks when Advance passes their time.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c    *fakeClock
	at   time.Time
	f    func()
	dead bool
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.dead
	t.dead = true
	return was
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

// Advance moves the clock and runs, in order, the callbacks now due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	for _, t := range c.timers {
		if !t.dead && !t.at.After(c.now) {
			t.dead = true
			due = append(due, t)
		}
	}
	c.mu.Unlock()
	sort.Slice(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		t.f()
	}
}

func openDB(t *testing.T, tasks ...string) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := store.Now()
	if _, err := db.W.ExecContext(ctx, `INSERT INTO projects (id, name, path, createdAt, updatedAt) VALUES ('p1', 'p', ?, ?, ?)`, t.TempDir(), now, now); err != nil {
		t.Fatal(err)
	}
	for _, id := range tasks {
		if _, err := db.W.ExecContext(ctx, `INSERT INTO tasks (id, projectId, name, prompt, agentBackend, interactionMode, createdAt, updatedAt)
			VALUES (?, 'p1', ?, 'the prompt', 'claude-code', 'ask', ?, ?)`, id, id, now, now); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

type retries struct {
	mu  sync.Mutex
	ids []string
}

func (r *retries) retry(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, id)
	return nil
}

func (r *retries) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ids...)
}

func newTestScheduler(t *testing.T, db *store.DB, clock *fakeClock, r *retries) (*Scheduler, *[]store.TaskLimit) {
	var mu sync.Mutex
	var changes []store.TaskLimit
	s := NewScheduler(context.Background(), SchedulerOptions{DB: db, Clock: clock, Retry: r.retry,
		Changed: func(l store.TaskLimit) { mu.Lock(); changes = append(changes, l); mu.Unlock() }})
	t.Cleanup(s.Stop)
	return s, &changes
}

func state(t *testing.T, s *Scheduler, id string) string {
	t.Helper()
	l, ok, err := s.Get(context.Background(), id)
	if err != nil || !ok {
		t.Fatalf("Get(%s) = %v, %v", id, ok, err)
	}
	return l.State
}

// TestSchedulerRetriesAtReset: the countdown runs to the reset time, not a
// moment less, and then the task is retried once.
func TestSchedulerRetriesAtReset(t *testing.T) {
	db := openDB(t, "t1")
	clock := &fakeClock{now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)}
	r := &retries{}
	s, changes := newTestScheduler(t, db, clock, r)
	ctx := context.Background()
	l, ok := Detect("claude-code", []byte(`{"type":"result","is_error":true,"result":"Claude AI usage limit reached|`+
		itoa(clock.now.Add(90*time.Minute).Unix())+`"}`), clock.Now())
	if !ok {
		t.Fatal("no limit detected")
	}
	if err := s.Report(ctx, "t1", l); err != nil {
		t.Fatal(err)
	}
	if st := state(t, s, "t1"); st != store.LimitWaiting {
		t.Fatalf("state = %s, want waiting", st)
	}
	clock.Advance(90*time.Minute - time.Second)
	if got := r.got(); len(got) != 0 {
		t.Fatalf("retried before the reset: %v", got)
	}
	clock.Advance(time.Second)
	if got := r.got(); len(got) != 1 || got[0] != "t1" {
		t.Fatalf("retries = %v, want [t1]", got)
	}
	if st := state(t, s, "t1"); st != store.LimitRetried {
		t.Fatalf("state = %s, want retried", st)
	}
	clock.Advance(24 * time.Hour)
	if got := r.got(); len(got) != 1 {
		t.Fatalf("retried again: %v", got)
	}
	var states []string
	for _, c := range *changes {
		states = append(states, c.State)
	}
	if want := []string{"waiting", "retrying", "retried"}; !equal(states, want) {
		t.Errorf("changes = %v, want %v", states, want)
	}
}

// TestSchedulerSettingOffLifts: with the setting off nothing is sent; the
// limit is marked lifted at its reset.
func TestSchedulerSettingOffLifts(t *testing.T) {
	db := openDB(t, "t1")
	ctx := context.Background()
	if err := store.SetSetting(ctx, db.W, store.SettingAutoRetry, "0"); err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	r := &retries{}
	s, _ := newTestScheduler(t, db, clock, r)
	if err := s.Report(ctx, "t1", Limit{ResetAt: clock.now.Add(time.Minute), Message: "m", Kind: "rate"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if got := r.got(); len(got) != 0 {
		t.Fatalf("retried with the setting off: %v", got)
	}
	if st := state(t, s, "t1"); st != store.LimitLifted {
		t.Fatalf("state = %s, want lifted", st)
	}
}

// TestSchedulerCancelReplaceRestore: a cancelled limit never retries, a new
// limit replaces the old one's timer, and limits stored as waiting are
// re-armed by Restore (one already past fires at once).
func TestSchedulerCancelReplaceRestore(t *testing.T) {
	db := openDB(t, "a", "b", "c")
	ctx := context.Background()
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	r := &retries{}
	s, _ := newTestScheduler(t, db, clock, r)
	must(t, s.Report(ctx, "a", Limit{ResetAt: clock.now.Add(time.Minute)}))
	must(t, s.Cancel(ctx, "a"))
	must(t, s.Report(ctx, "b", Limit{ResetAt: clock.now.Add(time.Minute)}))
	must(t, s.Report(ctx, "b", Limit{ResetAt: clock.now.Add(time.Hour)})) // the agent said later
	clock.Advance(2 * time.Minute)
	if got := r.got(); len(got) != 0 {
		t.Fatalf("retries = %v, want none yet", got)
	}
	// The app closes with c waiting; it opens again after c's reset.
	must(t, store.PutTaskLimit(ctx, db.W, store.TaskLimit{TaskID: "c", ResetAt: clock.now.Add(-time.Minute).UnixMilli(),
		State: store.LimitWaiting, DetectedAt: clock.now.UnixMilli()}))
	s.Stop()
	s2, _ := newTestScheduler(t, db, clock, r)
	must(t, s2.Restore(ctx))
	clock.Advance(0)
	if got := r.got(); !equal(got, []string{"c"}) {
		t.Fatalf("retries after restore = %v, want [c]", got)
	}
	clock.Advance(time.Hour)
	if got := r.got(); !equal(got, []string{"c", "b"}) {
		t.Fatalf("retries = %v, want [c b]", got)
	}
	if st := state(t, s2, "a"); st != store.LimitCancelled {
		t.Errorf("a: state = %s, want cancelled", st)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

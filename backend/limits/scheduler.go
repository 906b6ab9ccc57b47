package limits

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// Clock is the time source of a Scheduler (tests inject a fake one).
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc.
type Timer interface{ Stop() bool }

type realClock struct{}

func (realClock) Now() time.Time                            { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// RealClock is the wall clock.
var RealClock Clock = realClock{}

// Retrier sends a task's last user message again (the orchestrator's
// follow-up path).
type Retrier func(ctx context.Context, taskID string) error

// RetryLastMessage is the Retrier the app uses: it sends the task's last user
// message (else its prompt) again as a follow-up through send (the
// orchestrator's SendMessage).
func RetryLastMessage(db *store.DB, send func(ctx context.Context, taskID, text string) error) Retrier {
	return func(ctx context.Context, taskID string) error {
		text, ok, err := store.LastUserText(ctx, db.R, taskID)
		if err != nil {
			return err
		}
		if !ok {
			t, err := store.LoadTaskRun(ctx, db.R, taskID)
			if err != nil {
				return err
			}
			text = t.Prompt
		}
		return send(ctx, taskID, text)
	}
}

// Scheduler keeps each task's last limit in the store, counts down to its
// reset and, when the automatic retry setting is on, retries the task then.
type Scheduler struct {
	db      *store.DB
	clock   Clock
	retry   Retrier
	changed func(store.TaskLimit) // after every change (emit to the UI); may be nil
	log     *slog.Logger
	ctx     context.Context

	mu     sync.Mutex
	timers map[string]Timer
}

// SchedulerOptions configure a Scheduler.
type SchedulerOptions struct {
	DB      *store.DB
	Clock   Clock // nil: RealClock
	Retry   Retrier
	Changed func(store.TaskLimit)
	Logger  *slog.Logger
}

// NewScheduler returns a scheduler; ctx bounds the retries it starts.
func NewScheduler(ctx context.Context, opt SchedulerOptions) *Scheduler {
	if opt.Clock == nil {
		opt.Clock = RealClock
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	return &Scheduler{db: opt.DB, clock: opt.Clock, retry: opt.Retry, changed: opt.Changed, log: opt.Logger,
		ctx: ctx, timers: map[string]Timer{}}
}

// Report records a limit the task's agent reported and arms its retry.
func (s *Scheduler) Report(ctx context.Context, taskID string, l Limit) error {
	tl := store.TaskLimit{TaskID: taskID, ResetAt: l.ResetAt.UnixMilli(), Message: l.Message, Kind: l.Kind,
		State: store.LimitWaiting, DetectedAt: s.clock.Now().UnixMilli()}
	if err := store.PutTaskLimit(ctx, s.db.W, tl); err != nil {
		return err
	}
	s.arm(tl)
	s.notify(tl)
	return nil
}

// Restore arms the retries of limits still waiting (at startup); those
// whose reset passed while the app was closed fire at once.
func (s *Scheduler) Restore(ctx context.Context) error {
	ls, err := store.TaskLimitsIn(ctx, s.db.R, store.LimitWaiting)
	if err != nil {
		return err
	}
	for _, l := range ls {
		s.arm(l)
	}
	return nil
}

// Cancel stops a task's pending retry (the user dismissed it).
func (s *Scheduler) Cancel(ctx context.Context, taskID string) error {
	s.disarm(taskID)
	return s.setState(ctx, taskID, store.LimitCancelled, "")
}

// Get returns the task's limit (ok false when none).
func (s *Scheduler) Get(ctx context.Context, taskID string) (store.TaskLimit, bool, error) {
	return store.GetTaskLimit(ctx, s.db.R, taskID)
}

// AutoRetry says whether limits retry by themselves at their reset.
func (s *Scheduler) AutoRetry(ctx context.Context) bool {
	v, ok, err := store.SettingValue(ctx, s.db.R, store.SettingAutoRetry)
	return err != nil || !ok || v != "0"
}

// Stop disarms every timer.
func (s *Scheduler) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range s.timers {
		t.Stop()
		delete(s.timers, id)
	}
}

func (s *Scheduler) arm(l store.TaskLimit) {
	d := time.UnixMilli(l.ResetAt).Sub(s.clock.Now())
	if d < 0 {
		d = 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.timers[l.TaskID]; ok {
		t.Stop()
	}
	resetAt := l.ResetAt
	s.timers[l.TaskID] = s.clock.AfterFunc(d, func() { s.fire(l.TaskID, resetAt) })
}

func (s *Scheduler) disarm(taskID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.timers[taskID]; ok {
		t.Stop()
		delete(s.timers, taskID)
	}
}

// fire runs at a limit's reset: the retry when it is on, else the limit is
// marked lifted. A limit replaced or cancelled meanwhile is left alone.
func (s *Scheduler) fire(taskID string, resetAt int64) {
	s.mu.Lock()
	delete(s.timers, taskID)
	s.mu.Unlock()
	ctx := s.ctx
	l, ok, err := store.GetTaskLimit(ctx, s.db.R, taskID)
	if err != nil || !ok || l.State != store.LimitWaiting || l.ResetAt != resetAt {
		return
	}
	if !s.AutoRetry(ctx) {
		_ = s.setState(ctx, taskID, store.LimitLifted, "")
		return
	}
	if err := s.setState(ctx, taskID, store.LimitRetrying, ""); err != nil {
		s.log.Warn("limits: retry", "task", taskID, "err", err)
		return
	}
	if err := s.retry(ctx, taskID); err != nil {
		s.log.Warn("limits: retry", "task", taskID, "err", err)
		_ = s.setState(ctx, taskID, store.LimitLifted, fmt.Sprintf("the automatic retry failed: %v", err))
		return
	}
	_ = s.setState(ctx, taskID, store.LimitRetried, "")
}

func (s *Scheduler) setState(ctx context.Context, taskID, state, why string) error {
	l, ok, err := store.GetTaskLimit(ctx, s.db.R, taskID)
	if err != nil || !ok {
		return err
	}
	l.State, l.Error = state, why
	if state == store.LimitRetried {
		l.RetriedAt = s.clock.Now().UnixMilli()
	}
	if err := store.PutTaskLimit(ctx, s.db.W, l); err != nil {
		return err
	}
	s.notify(l)
	return nil
}

func (s *Scheduler) notify(l store.TaskLimit) {
	if s.changed != nil {
		s.changed(l)
	}
}

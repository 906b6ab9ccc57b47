package services

import (
	"context"
	"fmt"
	"time"

	"github.com/jean-claude/jean-claude/backend/limits"
	"github.com/jean-claude/jean-claude/backend/store"
)

// EventLimitUpdated carries a store.TaskLimit: a task's usage limit was
// reported, retried, lifted or cancelled.
const EventLimitUpdated = "limit:updated"

// UsageService is usage limits (countdown, automatic retry) and the cost
// and tokens dashboard.
type UsageService struct {
	ctx   context.Context
	db    *store.DB
	sched *limits.Scheduler
}

// NewUsageService returns the service; sched may be nil (no limits).
func NewUsageService(ctx context.Context, db *store.DB, sched *limits.Scheduler) *UsageService {
	return &UsageService{ctx: ctx, db: db, sched: sched}
}

// Usage returns cost and tokens per project, agent and day for the last
// days days (1–366).
func (s *UsageService) Usage(days int) ([]UsageRow, error) {
	if days < 1 || days > 366 {
		return nil, invalid("days", nil, "days must be between 1 and 366")
	}
	y, m, d := time.Now().Date()
	since := time.Date(y, m, d, 0, 0, 0, 0, time.Local).AddDate(0, 0, -(days - 1))
	rows, err := store.Usage(s.ctx, s.db.R, since.UnixMilli())
	if rows == nil {
		rows = []store.UsageRow{}
	}
	return mapAll(rows, usageRowOf), err
}

// Limit returns a task's last usage limit (nil when none).
func (s *UsageService) Limit(taskID string) (*TaskLimit, error) {
	l, ok, err := store.GetTaskLimit(s.ctx, s.db.R, taskID)
	if err != nil || !ok {
		return nil, err
	}
	tl := TaskLimit(l)
	return &tl, nil
}

// CancelRetry stops a task's automatic retry.
func (s *UsageService) CancelRetry(taskID string) error {
	if s.sched == nil {
		return fmt.Errorf("usage limits are not available")
	}
	return s.sched.Cancel(s.ctx, taskID)
}

// AutoRetry says whether tasks retry by themselves when their limit resets.
func (s *UsageService) AutoRetry() (bool, error) {
	v, ok, err := store.SettingValue(s.ctx, s.db.R, store.SettingAutoRetry)
	return err == nil && (!ok || v != "0"), err
}

// SetAutoRetry turns the automatic retry at a limit's reset on or off.
func (s *UsageService) SetAutoRetry(on bool) error {
	v := "0"
	if on {
		v = "1"
	}
	return store.SetSetting(s.ctx, s.db.W, store.SettingAutoRetry, v)
}

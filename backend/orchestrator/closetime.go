package orchestrator

import (
	"context"

	"github.com/jean-claude/jean-claude/backend/store"
)

// keepActivityTimes records when each task last changed, so closing the
// app (which stops their sessions and may mark them interrupted) does not
// count as activity: restore puts the times back once the sessions ended.
// A task's "time ago" reads the same after a restart.
func (o *Orchestrator) keepActivityTimes(ctx context.Context, runs []*run) (restore func()) {
	times := make(map[string]int64, len(runs))
	for _, r := range runs {
		if t, err := store.LoadTaskRun(ctx, o.db.R, r.taskID); err == nil {
			times[r.taskID] = t.UpdatedAt
		}
	}
	return func() {
		if len(times) == 0 {
			return
		}
		err := o.db.Tx(context.WithoutCancel(ctx), func(tx *txT) error {
			for id, at := range times {
				if err := store.RestoreTaskUpdatedAt(ctx, tx, id, at); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			o.log.Warn("orchestrator: keep task times on close", "err", err)
		}
	}
}

package orchestrator

import (
	"context"
	"database/sql"
	"log/slog"

	"github.com/jean-claude/jean-claude/backend/store"
)

// maxWriteJobs bounds how many sessions' writes one transaction carries.
const maxWriteJobs = 64

// writer commits the session loops' writes: the jobs waiting when it takes
// one go into the same transaction, each inside its own savepoint so one
// job's failure leaves the others. With many tasks streaming at once this
// turns one commit per frame into one commit per round, which is what keeps
// the single SQLite writer ahead of the agents.
//
// Lock order: a loop holds its task lock while it waits for its job; the
// writer takes no task lock, so it never waits on a loop.
type writer struct {
	db   *store.DB
	prep *store.Prepared
	log  *slog.Logger
	jobs chan *writeJob // unbuffered: a job sent is a job taken
	stop chan struct{}
	done chan struct{}
}

type writeJob struct {
	fn  func(tx *sql.Tx) error
	err chan error
}

func newWriter(db *store.DB, prep *store.Prepared, log *slog.Logger) *writer {
	w := &writer{db: db, prep: prep, log: log, jobs: make(chan *writeJob), stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

// do runs fn in a write transaction (shared with other jobs) and returns
// once it is committed or failed.
func (w *writer) do(fn func(tx *sql.Tx) error) error {
	j := &writeJob{fn: fn, err: make(chan error, 1)}
	select {
	case w.jobs <- j:
		return <-j.err
	case <-w.stop:
		return ErrClosed
	}
}

func (w *writer) run() {
	defer close(w.done)
	for {
		select {
		case j := <-w.jobs:
			js := append(make([]*writeJob, 0, 8), j)
		more:
			for len(js) < maxWriteJobs {
				select {
				case j := <-w.jobs:
					js = append(js, j)
				default:
					break more
				}
			}
			w.commit(js)
		case <-w.stop:
			return
		}
	}
}

func (w *writer) commit(js []*writeJob) {
	ctx := context.Background()
	errs := make([]error, len(js))
	err := w.db.Tx(ctx, func(tx *sql.Tx) error {
		if len(js) == 1 {
			errs[0] = js[0].fn(tx)
			return errs[0]
		}
		for i, j := range js {
			if _, err := tx.ExecContext(ctx, `SAVEPOINT job`); err != nil {
				return err
			}
			if errs[i] = j.fn(tx); errs[i] != nil {
				if _, err := tx.ExecContext(ctx, `ROLLBACK TO job`); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `RELEASE job`); err != nil {
				return err
			}
		}
		return nil
	})
	for i, j := range js {
		if errs[i] == nil {
			errs[i] = err
		}
		j.err <- errs[i]
	}
	if err := w.prep.Warm(ctx); err != nil {
		w.log.Warn("orchestrator: prepare statements", "err", err)
	}
}

// close stops the writer; jobs sent later fail with ErrClosed.
func (w *writer) close() {
	close(w.stop)
	<-w.done
}

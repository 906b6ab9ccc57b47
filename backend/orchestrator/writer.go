package orchestrator

import (
	"context"
	"database/sql"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// maxWriteJobs bounds how many sessions' writes one transaction carries.
const maxWriteJobs = 64

const (
	// indexIdleGap is the pause in rounds after which the writer indexes.
	indexIdleGap = 50 * time.Millisecond
	// busySearchLag bounds the search index's lag while rounds never pause.
	busySearchLag = 5 * time.Second
	// spareGap: a writer that waited this long for a round's first job has
	// time to spare (it is not saturated), and such a round indexes a
	// spareSlice of the queue once it lags store.SearchLag: the index keeps
	// pace in small steps instead of catching up in a burst that would
	// delay every task's frames.
	spareGap   = time.Millisecond
	spareSlice = 32
)

// writer commits the session loops' writes: the jobs waiting when it takes
// one go into the same transaction, each inside its own savepoint so one
// job's failure leaves the others. With many tasks streaming at once this
// turns one commit per frame into one commit per round, which is what keeps
// the single SQLite writer ahead of the agents.
//
// The search index is not updated per transaction: the messages written
// are queued (migration 0110) and indexed off the ingest path: whole, when
// the writer pauses (no round for indexIdleGap) at least store.SearchLag
// after the last batch; in slices of spareSlice messages, one per round,
// while rounds follow each other without a pause — once the index lags
// store.SearchLag if the round found the writer waiting (it has time to
// spare, so the index keeps pace), or once it lags busySearchLag if the
// writer is saturated (a flood: the index waits, and small slices keep each
// catch-up round short). Indexing is the writer's most expensive work per
// message after the row itself (docs/streaming.md).
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

	unindexed bool      // rounds committed since the search index was brought up to date
	indexed   time.Time // when it was
	lastRound time.Time // when the last round with jobs committed
	spare     bool      // the writer waited spareGap or more for this round's first job

	jobsRun atomic.Int64 // jobs run so far (tests)
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
		var due <-chan time.Time
		if w.unindexed {
			due = time.After(w.idleIndexIn())
		}
		waited := time.Now()
		select {
		case <-due:
			w.commit(nil)
		case j := <-w.jobs:
			w.spare = time.Since(waited) >= spareGap
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

// idleIndexIn is how long until an index batch is due if no round comes:
// a pause of indexIdleGap, and store.SearchLag since the last batch.
func (w *writer) idleIndexIn() time.Duration {
	return max(store.SearchLag-time.Since(w.indexed), indexIdleGap-time.Since(w.lastRound))
}

// indexNow tells whether a round indexes: a round without jobs is the
// pause's; one with jobs indexes when the writer has time to spare and the
// index lags store.SearchLag, or when it lags busySearchLag.
func (w *writer) indexNow(jobs int) bool {
	lag := time.Since(w.indexed)
	if jobs == 0 || w.spare {
		return lag >= store.SearchLag
	}
	return lag >= busySearchLag
}

// index brings the search index up to date in a pause; in a busy round it
// indexes one slice (spareSlice messages), so no round of a flood
// holds every task's frames for the whole backlog's index. It tells whether
// the queue is empty.
func (w *writer) index(ctx context.Context, q store.SQLRunner, busy bool) (bool, error) {
	if busy {
		return store.IndexPendingSome(ctx, q, spareSlice)
	}
	return true, store.IndexPending(ctx, q)
}

func (w *writer) commit(js []*writeJob) {
	ctx := context.Background()
	errs := make([]error, len(js))
	index := w.indexNow(len(js))
	indexed, failed := false, false
	err := w.db.TxDeferIndex(ctx, func(tx *sql.Tx) error {
		if err := w.runJobs(ctx, tx, js, errs); err != nil {
			return err
		}
		if index {
			// A failed index leaves the queue for a later round (not
			// before SearchLag); the jobs' writes stand.
			var err error
			indexed, err = w.index(ctx, w.prep.In(tx), len(js) > 0)
			if failed = err != nil; failed {
				w.log.Warn("orchestrator: search index", "err", err)
			}
		}
		return nil
	})
	if index && (indexed || failed) {
		w.indexed = time.Now() // else a busy round indexed a slice: the next goes on
	}
	if len(js) > 0 {
		w.lastRound = time.Now()
	}
	w.unindexed = (w.unindexed || len(js) > 0) && !(indexed && err == nil)
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

// runJobs runs the round's jobs in tx, each in its own savepoint (one alone
// needs none: its failure fails the transaction).
func (w *writer) runJobs(ctx context.Context, tx *sql.Tx, js []*writeJob, errs []error) error {
	w.jobsRun.Add(int64(len(js)))
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
}

// close stops the writer; jobs sent later fail with ErrClosed.
func (w *writer) close() {
	close(w.stop)
	<-w.done
}

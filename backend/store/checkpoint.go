package store

import (
	"database/sql"
	"fmt"
	"time"
)

// checkpointDelay is how long after a commit the checkpointer waits before
// it copies the WAL into the database file: the commits of a burst share
// one checkpoint.
const checkpointDelay = 100 * time.Millisecond

// checkpointer copies the WAL into the database file on its own connection
// (PRAGMA wal_checkpoint(PASSIVE): it waits for no reader nor writer), so
// the writer never does it inside a commit. SQLite's automatic checkpoint
// ran in the commit that crossed 1,000 WAL pages: that commit, and every
// write waiting behind it, took tens of milliseconds longer, the tail of
// the stdout-to-emit latency (docs/streaming.md). It runs only after
// commits (no timer while the app is idle).
type checkpointer struct {
	conn *sql.DB
	kick chan struct{}
	stop chan struct{}
	done chan struct{}
}

func newCheckpointer(path string) (*checkpointer, error) {
	conn, err := openSQLite(fileURI(path) + "?_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, fmt.Errorf("store: open the checkpointer's connection: %w", err)
	}
	conn.SetMaxOpenConns(1)
	conn.SetConnMaxIdleTime(5 * time.Second)
	c := &checkpointer{conn: conn, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c, nil
}

// committed tells the checkpointer a commit added to the WAL.
func (c *checkpointer) committed() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) run() {
	defer close(c.done)
	for {
		select {
		case <-c.kick:
		case <-c.stop:
			return
		}
		select {
		case <-time.After(checkpointDelay):
		case <-c.stop:
			return
		}
		select {
		case <-c.kick: // this checkpoint covers it
		default:
		}
		// A failure (a full disk) leaves the WAL as it is, every commit in it
		// durable; the next commit tries again.
		_, _ = c.conn.Exec("PRAGMA wal_checkpoint(PASSIVE)")
	}
}

// close stops the checkpointer and closes its connection.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	return c.conn.Close()
}

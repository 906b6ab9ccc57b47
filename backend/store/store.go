// Package store keeps Jean-Claude's state in one SQLite file: projects,
// tasks, agent messages (normalized and raw), settings. It opens the file
// through modernc.org/sqlite with WAL, a busy timeout, foreign keys on and
// immediate transactions for writers, and runs the embedded migrations.
//
// One style: every table is read and written by functions that take the
// context first and then a SQLRunner (GetTask(ctx, db.R, id),
// CreateTask(ctx, db.W, in), SetTaskStatus(ctx, tx, ...)), so the same
// function runs on the reader pool, on the writer or inside a caller's
// transaction. There are no repository types. A function that must write
// several rows together says so ("run it in a transaction": the caller
// wraps it in DB.Tx). What has methods here is not a table:
//   - DB, the connection: Open, Close, Tx, TxDeferIndex, ReleaseMemory
//     (the pools, the write transaction with its search-index step, the
//     idle trim); Migrate and SchemaVersion work on the file before it is
//     open.
//   - Prepared, a statement cache over one pool, and its In(tx) runner.
//   - ProcessLog, the agent.ProcessRecorder adapter over app_processes.
//   - Values: RawRefs, TaskGit.WantsWorktree.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/golang-migrate/migrate/v4"
	msqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/jean-claude/jean-claude/migrations"
)

// EnvDB names the environment variable that overrides the database path.
const EnvDB = "JEAN_CLAUDE_DB"

// DefaultPath returns where the database lives when nothing overrides it:
// $JEAN_CLAUDE_DB, else os.UserConfigDir()/jean-claude/jean-claude.db.
func DefaultPath() (string, error) {
	if p := os.Getenv(EnvDB); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("store: no user config dir: %w", err)
	}
	return filepath.Join(dir, "jean-claude", "jean-claude.db"), nil
}

// Errors callers branch on.
var (
	// ErrDirty: a previous migration failed half-way; the file needs repair.
	ErrDirty = errors.New("database schema is dirty")
	// ErrMigrate: a migration failed; the file was restored as it was.
	ErrMigrate = errors.New("database migration failed")
	// ErrNotFound: no row with that id.
	ErrNotFound = errors.New("not found")
	// ErrTooNew: the file was written by a newer Jean-Claude.
	ErrTooNew = errors.New("database is newer than this version of Jean-Claude")
)

// DB is an open database: one writer connection (writes are serialized
// here, not by retrying on SQLITE_BUSY) and a pool of readers.
type DB struct {
	W    *sql.DB
	R    *sql.DB
	Path string
	ckpt *checkpointer
	// searchQueue: the schema queues messages for the search index
	// (migration 0110), which Tx then indexes.
	searchQueue bool
	// closeOnce: Close is safe to call more than once (the first closes,
	// the later ones return its error).
	closeOnce sync.Once
	closeErr  error
}

// Options tune Open.
type Options struct {
	// Migrations replaces the embedded migrations (tests use it to inject
	// a failing one). Nil means migrations.FS.
	Migrations fs.FS
	// NoMigrate opens without migrating.
	NoMigrate bool
}

// fileURI turns a file path into a SQLite "file:" URI, percent-escaping what
// the URI syntax would otherwise eat ('?', '#', '%', spaces).
func fileURI(path string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath()
}

// roDSN opens the file read-only without touching its journal mode, so
// inspecting a file (schema version, dirty flag) never changes its bytes.
func roDSN(path string) string {
	return fileURI(path) + "?mode=ro&_pragma=busy_timeout(10000)"
}

func dsn(path string, writer bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Statement journals (an upsert, the search index's triggers) and temp
	// b-trees stay in memory: as temp files they cost a pwrite per page,
	// a quarter of ingest's CPU in BenchmarkParallelTasks.
	q.Add("_pragma", "temp_store(MEMORY)")
	if writer {
		q.Set("_txlock", "immediate")
		// The WAL is checkpointed in the background (checkpointer), not
		// by the commit that crosses 1,000 pages.
		q.Add("_pragma", "wal_autocheckpoint(0)")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	return fileURI(path) + "?" + q.Encode()
}

// Open opens (creating if needed) the database at path and migrates it to
// the newest schema. A failed migration restores the file to its exact
// previous bytes and returns an error wrapping ErrMigrate; a file left dirty
// by an older crash is not touched and gives ErrDirty.
func Open(ctx context.Context, path string, opt Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("store: create data dir: %w", err)
	}
	var snap string
	var version uint
	isNew := false
	src := opt.Migrations
	if src == nil {
		src = migrations.FS
	}
	if !opt.NoMigrate {
		// A new file gets its schema through the writer below (no
		// connection opened, checkpointed and closed for it first).
		if snap, version, isNew = newFromSnapshot(path, src); !isNew {
			if err := Migrate(ctx, path, src); err != nil {
				return nil, err
			}
		}
	}
	w, err := openSQLite(dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxLifetime(0)
	r, err := openSQLite(dsn(path, false))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	r.SetMaxOpenConns(maxReaders)
	r.SetMaxIdleConns(maxIdleReaders)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if isNew {
		if ours, err := giveSchema(ctx, w, path, src, snap, version); err != nil {
			w.Close()
			r.Close()
			if !ours {
				return nil, err
			}
			removeSidecars(path)
			os.Remove(path)
			return nil, fmt.Errorf("%w: %v (no database file was created)", ErrMigrate, err)
		}
	}
	ckpt, err := newCheckpointer(path)
	if err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	db := &DB{W: w, R: r, Path: path, ckpt: ckpt}
	var n int
	if err := w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'message_search_pending'`).Scan(&n); err != nil {
		db.closeAll()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.searchQueue = n > 0
	// Messages a crash left waiting for the search index.
	if err := db.Tx(ctx, func(*sql.Tx) error { return nil }); err != nil {
		db.closeAll()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return db, nil
}

// The reader pool: at most maxReaders connections, of which
// maxIdleReaders are kept open between reads (database/sql's default).
const (
	maxReaders     = 4
	maxIdleReaders = 2
)

// ReleaseMemory gives back what SQLite holds for speed once the app is
// idle: the idle reader connections are closed (each keeps a page cache of
// up to 2 MB and its schema; the pool opens new ones on the next read), and
// the writer's page cache is emptied (PRAGMA shrink_memory), then the C
// heap gives the regions they were in back to the OS (trimSQLiteHeap).
// Reads under way keep their connections; the writer is taken for that one
// statement, in turn with the other writes.
func (db *DB) ReleaseMemory(ctx context.Context) error {
	db.R.SetMaxIdleConns(0) // closes the idle readers now
	db.R.SetMaxIdleConns(maxIdleReaders)
	if _, err := db.W.ExecContext(ctx, "PRAGMA shrink_memory"); err != nil {
		return fmt.Errorf("store: shrink memory: %w", err)
	}
	if err := trimSQLiteHeap(); err != nil {
		return fmt.Errorf("store: trim the C heap: %w", err)
	}
	return nil
}

// Close closes both pools, checkpointing the WAL first (messages still
// waiting for the search index are indexed before).
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		_ = db.Tx(context.Background(), func(*sql.Tx) error { return nil })
		err := db.ckpt.close()
		_, _ = db.W.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		db.closeErr = errors.Join(err, db.R.Close(), db.W.Close())
	})
	return db.closeErr
}

// closeAll closes the connections without a checkpoint (a failed Open).
func (db *DB) closeAll() {
	_ = db.ckpt.close()
	db.R.Close()
	db.W.Close()
}

// Tx runs fn in one immediate write transaction. fn's error (or a panic)
// rolls the transaction back. The messages fn wrote are indexed for search
// before the commit (IndexPending), so search finds them once committed.
func (db *DB) Tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.tx(ctx, fn, true)
}

// TxDeferIndex is Tx without the search-index step: the caller runs
// IndexPending itself, within SearchLag (the orchestrator's writer, which
// indexes many transactions' messages in one batch).
func (db *DB) TxDeferIndex(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.tx(ctx, fn, false)
}

func (db *DB) tx(ctx context.Context, fn func(tx *sql.Tx) error, index bool) error {
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	if index && db.searchQueue {
		if err := IndexPending(ctx, tx); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	if db.ckpt != nil {
		db.ckpt.committed()
	}
	return nil
}

// Now is the store's clock in milliseconds.
func Now() int64 { return time.Now().UnixMilli() }

// SchemaVersion returns the file's migration version and dirty flag
// (0, false for a new file). It opens the file read-only and never changes it.
func SchemaVersion(ctx context.Context, path string) (uint, bool, error) {
	db, err := openSQLite(roDSN(path))
	if err != nil {
		return 0, false, fmt.Errorf("store: open %s: %w", path, err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name='schema_migrations'`).Scan(&n); err != nil {
		return 0, false, fmt.Errorf("store: read schema version of %s: %w", path, err)
	}
	if n == 0 {
		return 0, false, nil
	}
	var v sql.NullInt64
	var dirty sql.NullBool
	err = db.QueryRowContext(ctx, `SELECT version, dirty FROM schema_migrations LIMIT 1`).Scan(&v, &dirty)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("store: read schema version of %s: %w", path, err)
	}
	return uint(v.Int64), dirty.Bool, nil
}

// Migrate brings the file at path to the newest version in src. The file is
// changed only when a migration is needed and they all succeed: a failure
// puts the previous bytes back and returns an error wrapping ErrMigrate; a
// dirty file (ErrDirty) or a file newer than src (ErrTooNew) is not touched.
func Migrate(ctx context.Context, path string, src fs.FS) error {
	d, err := iofs.New(src, ".")
	if err != nil {
		return fmt.Errorf("store: read migrations: %w", err)
	}
	defer d.Close()
	newest, err := lastVersion(d)
	if err != nil {
		return err
	}

	st, statErr := os.Stat(path)
	existed := statErr == nil
	if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
		return fmt.Errorf("store: %w", statErr)
	}
	if existed && !st.Mode().IsRegular() {
		return fmt.Errorf("store: %s is not a regular file", path)
	}
	if existed && st.Size() > 0 {
		v, dirty, err := SchemaVersion(ctx, path)
		if err != nil {
			return err
		}
		if dirty {
			return fmt.Errorf("%w at version %d: a previous migration failed half-way; "+
				"restore %s from a backup or remove it (nothing was changed)", ErrDirty, v, path)
		}
		if v == newest {
			return nil // nothing to do: never copy or rewrite the file
		}
		if v > newest {
			return fmt.Errorf("%w: %s is at schema %d, this build knows up to %d (nothing was changed)",
				ErrTooNew, path, v, newest)
		}
	}

	// Take an exact copy to put back on failure.
	backup := path + ".premigrate"
	if existed {
		if err := checkpoint(ctx, path); err != nil {
			return err
		}
		if err := copyFile(path, backup); err != nil {
			os.Remove(backup)
			return fmt.Errorf("store: back up before migrating: %w", err)
		}
	}

	runErr := runMigrations(ctx, path, d)
	if runErr == nil {
		if existed {
			os.Remove(backup)
		}
		return nil
	}
	// Put the file back exactly as it was (or remove the one we created).
	removeSidecars(path)
	if !existed {
		os.Remove(path)
		return fmt.Errorf("%w: %v (no database file was created)", ErrMigrate, runErr)
	}
	if err := copyFile(backup, path); err != nil {
		return fmt.Errorf("%w: %v; restoring the previous file also failed: %v (a copy is at %s)",
			ErrMigrate, runErr, err, backup)
	}
	os.Remove(backup)
	return fmt.Errorf("%w: %v (the database file was left as it was)", ErrMigrate, runErr)
}

// runMigrations applies every pending migration of d to the file at path.
func runMigrations(ctx context.Context, path string, d source.Driver) (err error) {
	db, err := openSQLite(dsn(path, true))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	defer func() { err = errors.Join(err, db.Close()) }()
	if err := db.PingContext(ctx); err != nil {
		return err
	}
	drv, err := msqlite.WithInstance(db, &msqlite.Config{})
	if err != nil {
		return err
	}
	m, err := migrate.NewWithInstance("iofs", d, "sqlite", drv)
	if err != nil {
		return err
	}
	// Stop between migrations when ctx is cancelled.
	stop := context.AfterFunc(ctx, func() {
		select {
		case m.GracefulStop <- true:
		default:
		}
	})
	defer stop()
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return err
	}
	return ctx.Err()
}

func lastVersion(d source.Driver) (uint, error) {
	v, err := d.First()
	if err != nil {
		return 0, fmt.Errorf("store: no migrations: %w", err)
	}
	for {
		n, err := d.Next(v)
		if err != nil {
			return v, nil
		}
		v = n
	}
}

// checkpoint folds the WAL into the main file so a byte copy is complete. It
// leaves the journal mode alone (a no-op for a file not in WAL mode).
func checkpoint(ctx context.Context, path string) error {
	db, err := openSQLite(fileURI(path) + "?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("store: checkpoint %s: %w", path, err)
	}
	return nil
}

func removeSidecars(path string) {
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

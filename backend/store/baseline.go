package store

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/golang-migrate/migrate/v4/source/iofs"
)

// A new database is created from the schema snapshot (SnapshotFile in the
// migrations directory, migrations/schema.snapshot)
// in one transaction, as Rails loads schema.rb into a new database instead
// of replaying every migration: replaying them costs 12–22 ms on a new
// profile, most of it SQLite parsing the whole schema again after each
// ALTER, and that was time before the first window (issue 20). The
// snapshot is what the migrations produce (TestSchemaSnapshot compares
// both, the schema and every row, and rewrites it with -update); it is used
// only when its version is the newest migration's, so a migration added
// without a new snapshot is replayed, not skipped. Existing databases are
// migrated by golang-migrate as before.

// errNotEmpty: the file to create from the snapshot has a schema already.
var errNotEmpty = errors.New("store: the new database has a schema already")

// snapshotVersionPrefix starts the line of the snapshot that gives the
// migration version it was taken at.
const snapshotVersionPrefix = "-- version: "

// SnapshotFile is the snapshot's name in a migrations directory.
const SnapshotFile = "schema.snapshot"

// snapshotOf returns the snapshot of src if it was taken at version.
func snapshotOf(src fs.FS, version uint) (string, bool) {
	b, err := fs.ReadFile(src, SnapshotFile)
	if err != nil {
		return "", false
	}
	snap := string(b)
	return snap, snapshotVersion(snap) == version
}

// newFromSnapshot tells whether the file at path does not exist yet and
// src has a snapshot taken at its newest migration, and returns it.
func newFromSnapshot(path string, src fs.FS) (snap string, version uint, ok bool) {
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return "", 0, false
	}
	d, err := iofs.New(src, ".")
	if err != nil {
		return "", 0, false
	}
	defer d.Close()
	if version, err = lastVersion(d); err != nil {
		return "", 0, false
	}
	snap, ok = snapshotOf(src, version)
	return snap, version, ok
}

// snapshotVersion reads the version line of a snapshot (0 if none).
func snapshotVersion(snap string) uint {
	sc := bufio.NewScanner(strings.NewReader(snap))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), snapshotVersionPrefix); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
			if err != nil {
				return 0
			}
			return uint(n)
		}
	}
	return 0
}

// createSchema creates the schema of snap, at version, through db (a
// writer of a new, empty file), in one transaction.
func createSchema(ctx context.Context, db *sql.DB, snap string, version uint) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Under the write lock: a file another process gave a schema since it
	// was found missing is migrated, never given a second one (nor removed).
	var objects int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&objects); err != nil {
		return fmt.Errorf("schema snapshot: %w", err)
	}
	if objects > 0 {
		return errNotEmpty
	}
	if _, err := tx.ExecContext(ctx, snap); err != nil {
		return fmt.Errorf("schema snapshot: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, dirty) VALUES (?, 0)`, version); err != nil {
		return fmt.Errorf("schema snapshot: %w", err)
	}
	return tx.Commit()
}

// giveSchema gives the new file at path its schema through its writer w,
// from snap. ours is false when another process gave the file a schema
// since it was found missing: it is then migrated, and never removed.
func giveSchema(ctx context.Context, w *sql.DB, path string, src fs.FS, snap string, version uint) (ours bool, err error) {
	err = createSchema(ctx, w, snap, version)
	if errors.Is(err, errNotEmpty) {
		return false, Migrate(ctx, path, src)
	}
	return true, err
}

// dumpSchema writes the schema of db as a snapshot: tables first, then
// indexes, views and triggers, each in the order they were created;
// SQLite's own tables and the virtual tables' shadow tables (created with
// their virtual table) left out.
func dumpSchema(ctx context.Context, db *sql.DB, version uint) (string, error) {
	shadow := map[string]bool{}
	rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'`)
	if err != nil {
		return "", err
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return "", err
		}
		shadow[n] = true
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return "", err
	}
	rows, err = db.QueryContext(ctx, `SELECT name, sql FROM sqlite_master
		WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
		ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "-- The schema of a new database, as the migrations of this directory make it\n")
	fmt.Fprintf(&b, "-- (backend/store/baseline.go). Generated: go test ./backend/store -run TestSchemaSnapshot -update\n")
	fmt.Fprintf(&b, "%s%d\n", snapshotVersionPrefix, version)
	for rows.Next() {
		var name, stmt string
		if err := rows.Scan(&name, &stmt); err != nil {
			return "", err
		}
		if shadow[name] {
			continue
		}
		fmt.Fprintf(&b, "\n%s;\n", stmt)
	}
	return b.String(), rows.Err()
}

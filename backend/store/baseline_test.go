package store

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/golang-migrate/migrate/v4/source/iofs"

	"github.com/jean-claude/jean-claude/migrations"
)

var update = flag.Bool("update", false, "rewrite migrations/schema.snapshot")

// newest is the newest migration version of src.
func newest(t *testing.T, src fs.FS) uint {
	t.Helper()
	d, err := iofs.New(src, ".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	v, err := lastVersion(d)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// replayed is a new database made by golang-migrate, every migration of src.
func replayed(t *testing.T, src fs.FS) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "replayed.db")
	d, err := iofs.New(src, ".")
	if err != nil {
		t.Fatal(err)
	}
	if err := runMigrations(context.Background(), path, d); err != nil {
		t.Fatal(err)
	}
	return path
}

func openRO(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", roDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// contents lists every row of every table of the file (SQLite's and the
// shadow tables included), table by table in name order.
func contents(t *testing.T, path string) string {
	t.Helper()
	db := openRO(t, path)
	names, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for names.Next() {
		var n string
		if err := names.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	names.Close()
	var b strings.Builder
	for _, name := range tables {
		rows, err := db.Query(`SELECT * FROM "` + name + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		fmt.Fprintf(&b, "%s %v\n", name, cols)
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "  %v\n", vals)
		}
		rows.Close()
	}
	return b.String()
}

func dump(t *testing.T, path string, version uint) string {
	t.Helper()
	s, err := dumpSchema(context.Background(), openRO(t, path), version)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The snapshot is what the migrations make: the same schema, the same rows
// (the full-text index's own tables included), the same version; and a
// database created from it takes the next migration as a migrated one does.
func TestSchemaSnapshot(t *testing.T) {
	ctx := context.Background()
	v := newest(t, migrations.FS)
	fromMigrations := replayed(t, migrations.FS)
	want := dump(t, fromMigrations, v)
	if *update {
		if err := os.WriteFile(filepath.Join("..", "..", "migrations", SnapshotFile), []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("migrations/schema.snapshot rewritten: rebuild to embed it")
	}
	snap, ok := snapshotOf(migrations.FS, v)
	if !ok || snap != want {
		t.Fatalf("migrations/schema.snapshot is not what the migrations make (version %d, snapshot's %d):"+
			" run go test ./backend/store -run TestSchemaSnapshot -update", v, snapshotVersion(snap))
	}

	fromSnapshot := filepath.Join(t.TempDir(), "new.db")
	openClose(t, fromSnapshot, migrations.FS)
	if got := dump(t, fromSnapshot, v); got != want {
		t.Fatalf("schema from the snapshot:\n%s\nfrom the migrations:\n%s", got, want)
	}
	if got, want := contents(t, fromSnapshot), contents(t, fromMigrations); got != want {
		t.Fatalf("rows from the snapshot:\n%s\nfrom the migrations:\n%s", got, want)
	}
	if got, dirty, err := SchemaVersion(ctx, fromSnapshot); err != nil || got != v || dirty {
		t.Fatalf("version %d dirty %v err %v, want %d", got, dirty, err, v)
	}

	next := withFiles(migrations.FS, map[string]string{
		"9990_extra.up.sql":   "ALTER TABLE tasks ADD COLUMN extra INTEGER;",
		"9990_extra.down.sql": "ALTER TABLE tasks DROP COLUMN extra;",
	})
	for _, p := range []string{fromSnapshot, fromMigrations} {
		if err := Migrate(ctx, p, next); err != nil {
			t.Fatalf("the next migration on %s: %v", filepath.Base(p), err)
		}
	}
	if a, b := dump(t, fromSnapshot, 9990), dump(t, fromMigrations, 9990); a != b {
		t.Fatalf("after the next migration, from the snapshot:\n%s\nfrom the migrations:\n%s", a, b)
	}
}

// openClose opens the database at path with the migrations of src, as the
// app does, and closes it.
func openClose(t *testing.T, path string, src fs.FS) {
	t.Helper()
	db, err := Open(context.Background(), path, Options{Migrations: src})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// withFiles is src with files added (or replaced).
func withFiles(src fs.FS, add map[string]string) fs.FS {
	out := fstest.MapFS{}
	entries, _ := fs.ReadDir(src, ".")
	for _, e := range entries {
		b, _ := fs.ReadFile(src, e.Name())
		out[e.Name()] = &fstest.MapFile{Data: b}
	}
	for n, s := range add {
		out[n] = &fstest.MapFile{Data: []byte(s)}
	}
	return out
}

// A new file is made from the snapshot when it was taken at the newest
// migration, and by the migrations when it was not (a migration added
// without -update is never skipped); an existing file is never touched by it.
func TestNewDatabaseFromSnapshotOnlyWhenCurrent(t *testing.T) {
	ctx := context.Background()
	snap, _ := snapshotOf(migrations.FS, newest(t, migrations.FS))
	marked := snap + "\nCREATE TABLE snapshot_marker (x INTEGER);\n"
	has := func(path string) bool {
		var n int
		if err := openRO(t, path).QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'snapshot_marker'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}

	current := withFiles(migrations.FS, map[string]string{SnapshotFile: marked})
	o := filepath.Join(t.TempDir(), "o.db")
	openClose(t, o, current)
	if !has(o) {
		t.Fatal("Open did not make a new database from the current snapshot")
	}
	broken := withFiles(migrations.FS, map[string]string{SnapshotFile: snap + "\nCREATE TABLE projects (x);\n"})
	b := filepath.Join(t.TempDir(), "broken.db")
	if _, err := Open(ctx, b, Options{Migrations: broken}); !errors.Is(err, ErrMigrate) {
		t.Fatalf("a failing snapshot: %v, want ErrMigrate", err)
	}
	if left, _ := filepath.Glob(b + "*"); len(left) > 0 {
		t.Fatalf("a failed creation left %v", left)
	}

	stale := withFiles(current, map[string]string{
		"9990_extra.up.sql":   "CREATE TABLE extra (a INTEGER);",
		"9990_extra.down.sql": "DROP TABLE extra;",
	})
	q := filepath.Join(t.TempDir(), "b.db")
	openClose(t, q, stale)
	if has(q) {
		t.Fatal("a stale snapshot was used")
	}
	if v, _, _ := SchemaVersion(ctx, q); v != 9990 {
		t.Fatalf("version %d, want 9990", v)
	}
	openClose(t, q, withFiles(stale, map[string]string{SnapshotFile: "-- version: 9990\nCREATE TABLE snapshot_marker (x INTEGER);"}))
	if has(q) {
		t.Fatal("an existing database was given the snapshot")
	}
}

// A file another process gave a schema between the check and the creation
// is migrated, not given a second schema, and never removed.
func TestSnapshotLeavesAnotherProcesssDatabase(t *testing.T) {
	ctx := context.Background()
	v := newest(t, migrations.FS)
	snap, _ := snapshotOf(migrations.FS, v)
	path := replayed(t, migrations.FS)
	raw, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`INSERT INTO projects (id, name, path, createdAt, updatedAt) VALUES ('p', 'kept', '/p', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	ours, err := giveSchema(ctx, raw, path, migrations.FS, snap, v)
	if err != nil || ours {
		t.Fatalf("ours %v, err %v: want the other process's file migrated", ours, err)
	}
	var name string
	if err := raw.QueryRow(`SELECT name FROM projects WHERE id = 'p'`).Scan(&name); err != nil || name != "kept" {
		t.Fatalf("the other process's row: %q %v", name, err)
	}
}

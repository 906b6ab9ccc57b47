package store_test

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/golang-migrate/migrate/v4"
	msqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	_ "modernc.org/sqlite"

	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/migrations"
)

// newestVersion is the highest migration version embedded in the binary.
func newestVersion(t *testing.T) uint {
	t.Helper()
	var v uint
	names, err := fs.Glob(migrations.FS, "*.up.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("no migrations: %v", err)
	}
	for _, n := range names {
		var x uint
		for _, c := range n {
			if c < '0' || c > '9' {
				break
			}
			x = x*10 + uint(c-'0')
		}
		v = max(v, x)
	}
	return v
}

func openTemp(t *testing.T) (*store.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jc.db")
	db, err := store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

func tables(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func hashFile(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// withMigrations returns the embedded migrations plus extra files.
func withMigrations(t *testing.T, extra map[string]string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := fs.ReadFile(migrations.FS, n)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = &fstest.MapFile{Data: b}
	}
	for n, s := range extra {
		out[n] = &fstest.MapFile{Data: []byte(s)}
	}
	return out
}

var failing = map[string]string{
	"9990_extra.up.sql":   "CREATE TABLE extra (a INTEGER);",
	"9990_extra.down.sql": "DROP TABLE extra;",
	// Half of it succeeds before the error: nothing of it may stay.
	"9991_broken.up.sql":   "CREATE TABLE half (a INTEGER); INSERT INTO no_such_table VALUES (1);",
	"9991_broken.down.sql": "DROP TABLE half;",
}

func TestMigrateUpDownUp(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "jc.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, err := store.AddProject(ctx, db.W, store.NewProject{Name: "p", Path: "/p"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	want := newestVersion(t)
	if v, dirty, err := store.SchemaVersion(ctx, path); err != nil || v != want || dirty {
		t.Fatalf("after up: version %d dirty %v err %v, want %d", v, dirty, err, want)
	}
	up := tables(t, path)
	for _, n := range []string{"projects", "tasks", "agent_messages", "raw_frames", "settings"} {
		if !slices.Contains(up, n) {
			t.Errorf("after up: table %s missing (have %v)", n, up)
		}
	}

	// Down, all the way, with golang-migrate itself.
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	drv, err := msqlite.WithInstance(raw, &msqlite.Config{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := iofs.New(migrations.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "sqlite", drv)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Down(); err != nil {
		t.Fatalf("Down: %v", err)
	}
	m.Close()
	if got := tables(t, path); !slices.Equal(got, []string{"schema_migrations"}) {
		t.Fatalf("after down: tables %v, want only schema_migrations", got)
	}
	if v, dirty, err := store.SchemaVersion(ctx, path); err != nil || v != 0 || dirty {
		t.Fatalf("after down: version %d dirty %v err %v, want 0", v, dirty, err)
	}

	// And up again through the store.
	db, err = store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatalf("Open after down: %v", err)
	}
	defer db.Close()
	if got := tables(t, path); !slices.Equal(got, up) {
		t.Fatalf("after up again: tables %v, want %v", got, up)
	}
	ps, err := store.ListProjects(ctx, db.R)
	if err != nil || len(ps) != 0 {
		t.Fatalf("after down+up: projects %v err %v, want none", ps, err)
	}
	if _, err := store.AddProject(ctx, db.W, store.NewProject{Name: "p", Path: "/p"}); err != nil {
		t.Fatalf("Add after up again: %v", err)
	}
}

func TestOpenTwiceDoesNotRewrite(t *testing.T) {
	path2 := filepath.Join(t.TempDir(), "again.db")
	db, err := store.Open(t.Context(), path2, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := hashFile(t, path2)
	db, err = store.Open(t.Context(), path2, store.Options{})
	if err != nil {
		t.Fatalf("second Open: %v", err)
	}
	db.Close()
	if hashFile(t, path2) != before {
		t.Error("opening an up-to-date file changed its bytes")
	}
}

func TestFailedMigrationLeavesFileIdentical(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "jc.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "keep me", Path: "/work/keep"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Prompt: "hello", AgentBackend: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before := hashFile(t, path)

	_, err = store.Open(ctx, path, store.Options{Migrations: withMigrations(t, failing)})
	if !errors.Is(err, store.ErrMigrate) {
		t.Fatalf("Open with a broken migration: err = %v, want ErrMigrate", err)
	}
	if hashFile(t, path) != before {
		t.Fatal("a failed migration changed the database file")
	}
	for _, side := range []string{"-wal", "-shm", ".premigrate"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Errorf("%s left behind", side)
		}
	}
	// The file still opens with the real migrations and has its data.
	db, err = store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	got, err := store.GetProject(ctx, db.R, p.ID)
	if err != nil || got.Name != "keep me" {
		t.Fatalf("project after failed migration: %+v, %v", got, err)
	}
	if slices.Contains(tables(t, path), "extra") {
		t.Error("table of the successful extra migration was kept")
	}
}

func TestFailedMigrationOnNewFileCreatesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	_, err := store.Open(t.Context(), path, store.Options{Migrations: withMigrations(t, failing)})
	if !errors.Is(err, store.ErrMigrate) {
		t.Fatalf("err = %v, want ErrMigrate", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("database file exists after a failed first migration: %v", err)
	}
}

func TestFailedMigrationOnEmptyFileKeepsItEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := store.Open(t.Context(), path, store.Options{Migrations: withMigrations(t, failing)})
	if !errors.Is(err, store.ErrMigrate) {
		t.Fatalf("err = %v, want ErrMigrate", err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() != 0 {
		t.Fatalf("empty file after failed migration: %v, %v", st, err)
	}
}

func setVersion(t *testing.T, path string, v int, dirty bool) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE schema_migrations SET version = ?, dirty = ?`, v, dirty); err != nil {
		t.Fatal(err)
	}
}

func TestDirtyFileIsRefusedAndUntouched(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "jc.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.AddProject(ctx, db.W, store.NewProject{Name: "x", Path: "/x"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	setVersion(t, path, int(newestVersion(t)), true)
	before := hashFile(t, path)

	for _, opt := range []store.Options{{}, {Migrations: withMigrations(t, failing)}} {
		_, err = store.Open(ctx, path, opt)
		if !errors.Is(err, store.ErrDirty) {
			t.Fatalf("Open dirty file: err = %v, want ErrDirty", err)
		}
		if hashFile(t, path) != before {
			t.Fatal("opening a dirty file changed it")
		}
	}
}

func TestTooNewFileIsRefusedAndUntouched(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "jc.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	setVersion(t, path, 99999, false)
	before := hashFile(t, path)
	_, err = store.Open(ctx, path, store.Options{})
	if !errors.Is(err, store.ErrTooNew) {
		t.Fatalf("err = %v, want ErrTooNew", err)
	}
	if hashFile(t, path) != before {
		t.Fatal("opening a too-new file changed it")
	}
}

func TestNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.db")
	junk := []byte("this is not a SQLite file, it is a text file that someone put here")
	if err := os.WriteFile(path, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Open(t.Context(), path, store.Options{}); err == nil {
		t.Fatal("Open of a junk file succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != string(junk) {
		t.Fatal("junk file was changed")
	}
}

func TestPathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a dir?with#odd%25chars")
	path := filepath.Join(dir, "jc.db")
	db, err := store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	if _, _, err := store.SettingValue(t.Context(), db.R, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at the path asked for: %v", err)
	}
}

func TestPragmas(t *testing.T) {
	db, _ := openTemp(t)
	var mode string
	if err := db.R.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var fk int
	if err := db.W.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v; want 1", fk, err)
	}
	if _, err := db.R.Exec(`INSERT INTO settings (key, value) VALUES ('a', 'b')`); err == nil {
		t.Error("the reader pool accepted a write")
	}
}

func TestTxRollsBack(t *testing.T) {
	db, _ := openTemp(t)
	ctx := t.Context()
	boom := errors.New("boom")
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO settings (key, value) VALUES ('k', 'v')`); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Tx err = %v, want boom", err)
	}
	if _, ok, err := store.SettingValue(ctx, db.R, "k"); ok || err != nil {
		t.Fatalf("write of a failed Tx was kept (ok=%v err=%v)", ok, err)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv(store.EnvDB, "/tmp/x/y.db")
	if p, err := store.DefaultPath(); err != nil || p != "/tmp/x/y.db" {
		t.Errorf("DefaultPath with env = %q, %v", p, err)
	}
	t.Setenv(store.EnvDB, "")
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	if p, err := store.DefaultPath(); err != nil || p != "/cfg/jean-claude/jean-claude.db" {
		t.Errorf("DefaultPath = %q, %v", p, err)
	}
}

// Close is safe twice (a test's cleanup closing what the test closed, an
// app closing on two paths of its shutdown): before, the second call
// panicked in the checkpointer ("close of closed channel"), which broke
// `make bench` in BenchmarkSearch1M.
func TestCloseTwice(t *testing.T) {
	db, _ := openTemp(t) // its cleanup closes it a third time
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

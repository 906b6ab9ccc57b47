// Package migrations holds the SQL schema migrations, embedded into the
// binary and run at startup by backend/store with golang-migrate.
//
// Files are NNNN_name.up.sql / NNNN_name.down.sql. Version ranges by area, so
// parallel work does not collide: 0001-0009 foundation, 0010-0019
// orchestrator, 0020-0029 git worktrees, 0030-0039 agent settings, 0070-0079
// history (search, import, fork), 0105-0109 usage limits and comparisons.
package migrations

import "embed"

// FS holds every migration file, and schema.snapshot: the schema they
// make, which a new database is created from at once (backend/store's
// baseline.go).
//
//go:embed *.sql schema.snapshot
var FS embed.FS

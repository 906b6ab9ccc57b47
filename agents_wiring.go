package main

import (
	"context"
	"path/filepath"

	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/store"
)

// newAgentsWiring builds the agent manager, the registry options and the
// known specs (agentmgr.NewSetup), with its data next to the database.
func newAgentsWiring(ctx context.Context, db *store.DB, dbPath string) *agentmgr.Setup {
	var settings agentmgr.SettingsStore
	if db != nil {
		settings = agentmgr.DBSettings(db)
	}
	return agentmgr.NewSetup(ctx, filepath.Dir(dbPath), settings, warnStderr)
}

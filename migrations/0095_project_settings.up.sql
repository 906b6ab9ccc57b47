-- Per-project settings as key/value rows (issue 18 parts 2-3, and the
-- comparison check command of issue 17): new settings need no migration.
-- Keys in use (backend/store/projectsettings.go):
--   worktree.copyGlobs      newline-separated globs copied into new worktrees
--   worktree.setupCommand   the setup command run in a new worktree
--   worktree.setupRequired  '1': the agent starts only after setup succeeded
--   check.command           (issue 17) the comparison view's check command
CREATE TABLE project_settings (
    projectId TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    key       TEXT NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (projectId, key)
) WITHOUT ROWID;

-- Worktree setup state per task: '' (not run), running, ok, failed. A task
-- whose setup did not succeed runs it again before its next start.
ALTER TABLE tasks ADD COLUMN setupStatus TEXT NOT NULL DEFAULT '';

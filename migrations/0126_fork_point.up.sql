-- Native forks from any message (issue 16): a native fork that must stop
-- at a message holds, with forkSession = 1, where the copy of the parent's
-- session ends, in the backend's own ids (agent.Config.ForkPoint: the
-- OpenCode message left out, the last Codex turn kept); '' = the whole
-- session.
ALTER TABLE tasks ADD COLUMN forkPoint TEXT NOT NULL DEFAULT '';

-- Native forks from any message (issue 16): a native fork that must stop
-- at a message holds, with forkSession = 1, the backend's id of the first
-- message of the parent's session to leave out of the copy (OpenCode's
-- POST /session/{id}/fork messageID); '' = the whole session.
ALTER TABLE tasks ADD COLUMN forkBefore TEXT NOT NULL DEFAULT '';

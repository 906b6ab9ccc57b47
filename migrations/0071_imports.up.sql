-- Sessions imported from the agent CLIs' own storage (issue 16): one row per
-- (format, CLI session id), so a session already imported is recognized; the
-- task owns the session id from then on (tasks.sessionId) and resumes it.
CREATE TABLE imported_sessions (
    format     TEXT NOT NULL,        -- claude-code | opencode | codex | gemini
    sessionId  TEXT NOT NULL,
    path       TEXT NOT NULL,        -- the file (or folder) it was read from
    size       INTEGER NOT NULL,     -- its size in bytes when imported
    taskId     TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    importedAt INTEGER NOT NULL,
    PRIMARY KEY (format, sessionId)
);
CREATE INDEX imported_sessions_task ON imported_sessions(taskId);

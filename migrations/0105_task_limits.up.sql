-- Usage limits (issue 17): the last usage or rate limit with a reset time an
-- agent reported for a task, and what became of the automatic retry.
-- state: waiting (counting down) | retrying | retried | lifted (reset passed,
-- no automatic retry) | cancelled
CREATE TABLE task_limits (
    taskId     TEXT PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    resetAt    INTEGER NOT NULL,
    message    TEXT NOT NULL DEFAULT '',
    kind       TEXT NOT NULL DEFAULT '',
    state      TEXT NOT NULL DEFAULT 'waiting',
    detectedAt INTEGER NOT NULL,
    retriedAt  INTEGER,
    error      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX task_limits_state ON task_limits(state);

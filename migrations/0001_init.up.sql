-- Foundation schema. Times are INTEGER milliseconds since the Unix epoch.
-- The agent columns follow the design's migration 026 (defaultAgentBackend,
-- agentBackend, normalizedData, rawData, rawFormat, normalizedVersion).

CREATE TABLE projects (
    id                  TEXT PRIMARY KEY,
    name                TEXT NOT NULL,
    path                TEXT NOT NULL UNIQUE,
    isGitRepo           INTEGER NOT NULL DEFAULT 0,
    defaultAgentBackend TEXT NOT NULL DEFAULT 'claude-code',
    defaultModel        TEXT NOT NULL DEFAULT '',
    sortOrder           INTEGER NOT NULL DEFAULT 0,
    createdAt           INTEGER NOT NULL,
    updatedAt           INTEGER NOT NULL
);

CREATE TABLE tasks (
    id              TEXT PRIMARY KEY,
    projectId       TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name            TEXT NOT NULL DEFAULT '',
    prompt          TEXT NOT NULL,
    -- created | running | waiting | completed | errored | interrupted
    status          TEXT NOT NULL DEFAULT 'created',
    statusReason    TEXT NOT NULL DEFAULT '',
    agentBackend    TEXT NOT NULL DEFAULT 'claude-code',
    model           TEXT NOT NULL DEFAULT '',
    interactionMode TEXT NOT NULL DEFAULT 'ask',
    sessionId       TEXT NOT NULL DEFAULT '',
    hasUnread       INTEGER NOT NULL DEFAULT 0,
    createdAt       INTEGER NOT NULL,
    updatedAt       INTEGER NOT NULL,
    startedAt       INTEGER,
    endedAt         INTEGER
);
CREATE INDEX tasks_project ON tasks(projectId, createdAt);
CREATE INDEX tasks_status ON tasks(status);

-- One row per normalized message, keyed by the backend's stable message id
-- and updated in place when the backend re-sends it.
CREATE TABLE agent_messages (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    taskId            TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    messageId         TEXT NOT NULL,
    messageIndex      INTEGER NOT NULL,
    role              TEXT NOT NULL,
    normalizedData    TEXT NOT NULL,
    rawData           TEXT,
    rawFormat         TEXT NOT NULL DEFAULT 'claude-code',
    normalizedVersion INTEGER NOT NULL DEFAULT 1,
    createdAt         INTEGER NOT NULL,
    updatedAt         INTEGER NOT NULL,
    UNIQUE (taskId, messageId)
);
CREATE INDEX agent_messages_order ON agent_messages(taskId, messageIndex);
CREATE INDEX agent_messages_version ON agent_messages(normalizedVersion);

-- Everything an agent wrote, frame by frame, in order, kept apart from the
-- normalized messages (compressed when large). Written before the messages
-- it produced, in the same transaction.
CREATE TABLE raw_frames (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    taskId     TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    format     TEXT NOT NULL,
    encoding   TEXT NOT NULL DEFAULT '',   -- '' plain, 'gzip'
    data       BLOB NOT NULL,
    receivedAt INTEGER NOT NULL,
    UNIQUE (taskId, seq)
);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

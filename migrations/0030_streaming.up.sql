-- Streaming: a streamed message's raw data grows by appended chunks (one
-- per delta frame), so a long reply costs linear storage; the message's
-- raw data is rawData followed by its chunks in idx order.
CREATE TABLE message_raw_chunks (
    taskId    TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    messageId TEXT NOT NULL,
    idx       INTEGER NOT NULL,
    data      BLOB NOT NULL,
    PRIMARY KEY (taskId, messageId, idx)
) WITHOUT ROWID;

-- Every process the app starts (agents of every backend, one per turn for
-- some, and the OpenCode server), with its start time, so the next start
-- after a crash ends what the dead app left running (the whole group).
CREATE TABLE app_processes (
    pid        INTEGER PRIMARY KEY,
    startTicks INTEGER NOT NULL,
    role       TEXT NOT NULL,
    createdAt  INTEGER NOT NULL
);

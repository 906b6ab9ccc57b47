-- Stops asked while a task's host was unreachable (issue 21,
-- docs/remote.md): kept until the relay on the host has been told (or is
-- found gone), across restarts, so that an agent is stopped as soon as its
-- host is reachable again even after the app quit or the task was deleted.
-- No reference to tasks: a deleted task's stop must survive it.
CREATE TABLE remote_pending_stops (
    relayId     TEXT PRIMARY KEY,
    host        TEXT NOT NULL,
    taskId      TEXT NOT NULL DEFAULT '',
    reason      TEXT NOT NULL DEFAULT '',
    requestedAt INTEGER NOT NULL
);

-- The agent process (group leader) of each live session, so that after a
-- crash of the app the next start can end what the dead app left running.
-- startTicks is the process start time (Linux /proc/PID/stat field 22) that
-- tells the recorded process from a later one that reused its pid.
CREATE TABLE agent_processes (
    taskId     TEXT PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    pid        INTEGER NOT NULL,
    startTicks INTEGER NOT NULL,
    createdAt  INTEGER NOT NULL
);

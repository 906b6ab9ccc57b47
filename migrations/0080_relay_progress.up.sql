-- How far the app stored each relay's journal (issue #15): the next start
-- attaches to a relay from seq + 1, so every journaled frame is stored once.
CREATE TABLE relay_progress (
    relayId   TEXT PRIMARY KEY,
    taskId    TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    updatedAt INTEGER NOT NULL
);

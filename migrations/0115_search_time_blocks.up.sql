-- Date filters of the search as row id ranges (issue 16).
--
-- A search ordered newest first with a date range used to scan every newer
-- match of its words down to the range (0.2-2 s for a frequent word at 1M
-- messages). Messages are mostly stored in time order, so a date range is
-- mostly a row id range, which FTS5 answers by seeking. This table keeps,
-- for each block of 1,024 row ids (id >> 10), the first and last createdAt
-- of its messages; a search turns its date range into the row id ranges of
-- the blocks that overlap it (a session imported later with old dates only
-- adds its own blocks). agent_messages ids are AUTOINCREMENT (never reused)
-- and createdAt is set once, at insert, so an insert trigger keeps it exact
-- enough: a deleted message only leaves its block's range a little wide,
-- which the search's own createdAt check absorbs.
CREATE TABLE message_time_blocks (
    block INTEGER PRIMARY KEY,
    minAt INTEGER NOT NULL,
    maxAt INTEGER NOT NULL
);

CREATE TRIGGER message_time_blocks_insert AFTER INSERT ON agent_messages BEGIN
    INSERT INTO message_time_blocks (block, minAt, maxAt) VALUES (new.id >> 10, new.createdAt, new.createdAt)
    ON CONFLICT (block) DO UPDATE SET minAt = min(minAt, excluded.minAt), maxAt = max(maxAt, excluded.maxAt)
    WHERE excluded.minAt < minAt OR excluded.maxAt > maxAt;
END;

INSERT INTO message_time_blocks (block, minAt, maxAt)
SELECT id >> 10, min(createdAt), max(createdAt) FROM agent_messages GROUP BY id >> 10;

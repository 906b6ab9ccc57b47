-- One trigger for a message row's insert instead of two (the search queue's,
-- 0110, and the time blocks', 0115), doing the same, the new row queued for
-- the search index without a NOT EXISTS subquery: an inserted row's id is
-- new (AUTOINCREMENT never reuses one), so it cannot be queued already (OR
-- IGNORE only in case). SQLite runs each trigger as a program of its own,
-- with its own frame, for every row; the writer inserts up to two message
-- rows for three frames of an agent's output (docs/streaming.md,
-- "Thirteenth pass"). The update trigger keeps its NOT EXISTS: an updated
-- row is often queued already, and an upsert's update runs its triggers
-- with ABORT, which would override an OR IGNORE.
DROP TRIGGER message_search_insert;
DROP TRIGGER message_time_blocks_insert;

CREATE TRIGGER message_insert AFTER INSERT ON agent_messages BEGIN
    INSERT OR IGNORE INTO message_search_pending (id) VALUES (new.id);
    INSERT INTO message_time_blocks (block, minAt, maxAt) VALUES (new.id >> 10, new.createdAt, new.createdAt)
    ON CONFLICT (block) DO UPDATE SET minAt = min(minAt, excluded.minAt), maxAt = max(maxAt, excluded.maxAt)
    WHERE excluded.minAt < minAt OR excluded.maxAt > maxAt;
END;

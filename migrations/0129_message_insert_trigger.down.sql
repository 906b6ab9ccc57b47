DROP TRIGGER IF EXISTS message_insert;

CREATE TRIGGER message_search_insert AFTER INSERT ON agent_messages BEGIN
    INSERT INTO message_search_pending (id)
    SELECT new.id WHERE NOT EXISTS (SELECT 1 FROM message_search_pending WHERE id = new.id);
END;

CREATE TRIGGER message_time_blocks_insert AFTER INSERT ON agent_messages BEGIN
    INSERT INTO message_time_blocks (block, minAt, maxAt) VALUES (new.id >> 10, new.createdAt, new.createdAt)
    ON CONFLICT (block) DO UPDATE SET minAt = min(minAt, excluded.minAt), maxAt = max(maxAt, excluded.maxAt)
    WHERE excluded.minAt < minAt OR excluded.maxAt > maxAt;
END;

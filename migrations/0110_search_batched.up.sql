-- The search index is updated in batches, not by a trigger per write
-- (issue 12). Migration 0070's triggers re-indexed a message on every
-- insert and every in-place update, so a streaming message re-written as it
-- grows paid FTS5's per-statement flush each time: ~15 % of ingest CPU with
-- many tasks streaming. Now a write only queues the message's rowid in
-- message_search_pending (a plain b-tree insert); store.IndexPending indexes
-- the queued messages in four statements (one FTS5 flush each, whatever the
-- number of messages). store.DB.Tx runs it at the end of every transaction;
-- the orchestrator's group-commit writer, which writes the most, runs it at
-- most every store.SearchLag, so search finds a message's text (finished or
-- still streaming) at most that long after it was stored. Deletes still
-- remove a message from the index at once. The triggers test for a queued
-- row rather than use INSERT OR IGNORE: the conflict clause of the upsert
-- that fires them would override the trigger's.
CREATE TABLE message_search_pending (id INTEGER PRIMARY KEY);

DROP TRIGGER message_search_insert;
DROP TRIGGER message_search_update;
DROP TRIGGER message_search_delete;

CREATE TRIGGER message_search_insert AFTER INSERT ON agent_messages BEGIN
    INSERT INTO message_search_pending (id)
    SELECT new.id WHERE NOT EXISTS (SELECT 1 FROM message_search_pending WHERE id = new.id);
END;

CREATE TRIGGER message_search_update AFTER UPDATE OF normalizedData, role ON agent_messages
WHEN old.normalizedData IS NOT new.normalizedData OR old.role IS NOT new.role BEGIN
    INSERT INTO message_search_pending (id)
    SELECT new.id WHERE NOT EXISTS (SELECT 1 FROM message_search_pending WHERE id = new.id);
END;

CREATE TRIGGER message_search_delete AFTER DELETE ON agent_messages BEGIN
    DELETE FROM message_search_pending WHERE id = old.id;
    DELETE FROM message_search WHERE rowid = old.id;
    DELETE FROM message_search_cjk WHERE rowid = old.id;
END;

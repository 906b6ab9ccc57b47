-- Back to migration 0070's per-write triggers; messages still queued are
-- indexed first.
DELETE FROM message_search WHERE rowid IN (SELECT id FROM message_search_pending);
DELETE FROM message_search_cjk WHERE rowid IN (SELECT id FROM message_search_pending);
INSERT INTO message_search (rowid, body, tags)
SELECT m.id, coalesce((SELECT group_concat(t, char(10)) FROM (
        SELECT CASE json_extract(p.value, '$.type')
            WHEN 'text' THEN json_extract(p.value, '$.text')
            WHEN 'reasoning' THEN json_extract(p.value, '$.text')
            WHEN 'system-status' THEN json_extract(p.value, '$.text')
            WHEN 'tool-use' THEN concat_ws(' ', json_extract(p.value, '$.toolName'),
                substr(json_extract(p.value, '$.input'), 1, 2000))
            WHEN 'tool-result' THEN concat_ws(' ', json_extract(p.value, '$.title'),
                substr(json_extract(p.value, '$.content'), 1, 2000))
            WHEN 'file' THEN json_extract(p.value, '$.path')
        END AS t
        FROM json_each(m.normalizedData, '$.parts') p
        UNION ALL SELECT json_extract(m.normalizedData, '$.result')
    ) WHERE t IS NOT NULL AND t != ''), ''),
    (SELECT 'role ' || m.role || ' agent ' || t.agentBackend || ' endagent project ' || t.projectId
        FROM tasks t WHERE t.id = m.taskId)
FROM agent_messages m WHERE m.id IN (SELECT id FROM message_search_pending);
INSERT INTO message_search_cjk (rowid, body)
SELECT rowid, body FROM message_search WHERE rowid IN (SELECT id FROM message_search_pending)
    AND body GLOB '*[⺀-鿿가-힯豈-﫿＀-￯]*';

DROP TRIGGER message_search_insert;
DROP TRIGGER message_search_update;
DROP TRIGGER message_search_delete;
DROP TABLE message_search_pending;

CREATE TRIGGER message_search_insert AFTER INSERT ON agent_messages BEGIN
    INSERT INTO message_search (rowid, body, tags)
    SELECT new.id, coalesce((SELECT group_concat(t, char(10)) FROM (
        SELECT CASE json_extract(p.value, '$.type')
            WHEN 'text' THEN json_extract(p.value, '$.text')
            WHEN 'reasoning' THEN json_extract(p.value, '$.text')
            WHEN 'system-status' THEN json_extract(p.value, '$.text')
            WHEN 'tool-use' THEN concat_ws(' ', json_extract(p.value, '$.toolName'),
                substr(json_extract(p.value, '$.input'), 1, 2000))
            WHEN 'tool-result' THEN concat_ws(' ', json_extract(p.value, '$.title'),
                substr(json_extract(p.value, '$.content'), 1, 2000))
            WHEN 'file' THEN json_extract(p.value, '$.path')
        END AS t
        FROM json_each(new.normalizedData, '$.parts') p
        UNION ALL SELECT json_extract(new.normalizedData, '$.result')
    ) WHERE t IS NOT NULL AND t != ''), ''),
        (SELECT 'role ' || new.role || ' agent ' || t.agentBackend || ' endagent project ' || t.projectId
        FROM tasks t WHERE t.id = new.taskId);
    INSERT INTO message_search_cjk (rowid, body)
    SELECT rowid, body FROM message_search WHERE rowid = new.id AND body GLOB '*[⺀-鿿가-힯豈-﫿＀-￯]*';
END;

CREATE TRIGGER message_search_update AFTER UPDATE OF normalizedData, role ON agent_messages
WHEN old.normalizedData IS NOT new.normalizedData OR old.role IS NOT new.role BEGIN
    DELETE FROM message_search WHERE rowid = old.id;
    DELETE FROM message_search_cjk WHERE rowid = old.id;
    INSERT INTO message_search (rowid, body, tags)
    SELECT new.id, coalesce((SELECT group_concat(t, char(10)) FROM (
        SELECT CASE json_extract(p.value, '$.type')
            WHEN 'text' THEN json_extract(p.value, '$.text')
            WHEN 'reasoning' THEN json_extract(p.value, '$.text')
            WHEN 'system-status' THEN json_extract(p.value, '$.text')
            WHEN 'tool-use' THEN concat_ws(' ', json_extract(p.value, '$.toolName'),
                substr(json_extract(p.value, '$.input'), 1, 2000))
            WHEN 'tool-result' THEN concat_ws(' ', json_extract(p.value, '$.title'),
                substr(json_extract(p.value, '$.content'), 1, 2000))
            WHEN 'file' THEN json_extract(p.value, '$.path')
        END AS t
        FROM json_each(new.normalizedData, '$.parts') p
        UNION ALL SELECT json_extract(new.normalizedData, '$.result')
    ) WHERE t IS NOT NULL AND t != ''), ''),
        (SELECT 'role ' || new.role || ' agent ' || t.agentBackend || ' endagent project ' || t.projectId
        FROM tasks t WHERE t.id = new.taskId);
    INSERT INTO message_search_cjk (rowid, body)
    SELECT rowid, body FROM message_search WHERE rowid = new.id AND body GLOB '*[⺀-鿿가-힯豈-﫿＀-￯]*';
END;

CREATE TRIGGER message_search_delete AFTER DELETE ON agent_messages BEGIN
    DELETE FROM message_search WHERE rowid = old.id;
    DELETE FROM message_search_cjk WHERE rowid = old.id;
END;


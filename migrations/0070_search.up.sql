-- Full-text search over every task's messages (issue 16).
--
-- message_search holds one row per agent_messages row (same rowid): the
-- searchable text of the message (body), extracted from normalizedData by
-- the triggers below, and filter tags (tags: "role R agent A endagent
-- project P", so a filter is a phrase the index intersects instead of a
-- join that scans every match). The triggers keep it in step with every
-- insert, every in-place update (a streaming message re-written as it
-- grows, a re-normalization) and every delete, without any Go code having
-- to remember it.
--
-- unicode61 splits words at anything but letters and digits, folds case and
-- accents (cafe finds Café), and the query side makes each term a prefix
-- phrase: parse_config_file, foo.bar() and src/app/main.go are found as
-- phrases of their words. CJK text has no spaces, so unicode61 sees a whole
-- run as one word: messages holding CJK characters are also indexed in
-- message_search_cjk with the trigram tokenizer, which finds any substring
-- of three characters or more (shorter CJK terms are matched with LIKE on
-- that smaller table). Trigram indexing costs about three times unicode61,
-- so only those messages pay it.
CREATE VIRTUAL TABLE message_search USING fts5(
    body, tags,
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE message_search_cjk USING fts5(
    body,
    tokenize = 'trigram case_sensitive 0 remove_diacritics 1'
);

-- The searchable text of a message: text and reasoning in full, a tool's
-- name, title and input, a file's path, a tool result's content (the first
-- 2,000 characters: outputs can be whole files) and a result's summary.
-- Repeated in each trigger below (SQLite has no functions in SQL).
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

-- Index what is already stored.
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
FROM agent_messages m;
INSERT INTO message_search_cjk (rowid, body)
SELECT rowid, body FROM message_search WHERE body GLOB '*[⺀-鿿가-힯豈-﫿＀-￯]*';

-- Full-text search over every task's messages (issue 16).
--
-- message_search holds one row per agent_messages row (same rowid): the
-- searchable text of the message, extracted from normalizedData by the
-- triggers below, so the index follows every insert, every in-place update
-- (a streaming message re-written as it grows, a re-normalization) and
-- every delete without any Go code having to remember it.
--
-- The trigram tokenizer matches any substring of 3 or more characters:
-- code identifiers (snake_case, camelCase, foo.bar(), paths) and CJK text
-- (which has no spaces between words) are found by any part of them;
-- case and diacritics are folded (cafe finds Café).
CREATE VIRTUAL TABLE message_search USING fts5(
    body,
    tokenize = 'trigram case_sensitive 0 remove_diacritics 1'
);

-- The searchable text of a message: text and reasoning in full, a tool's
-- name, title and input, a file's path, a tool result's content (the first
-- 2,000 characters: outputs can be whole files) and a result's summary.
-- Repeated in each trigger below (SQLite has no functions in SQL).
CREATE TRIGGER message_search_insert AFTER INSERT ON agent_messages BEGIN
    INSERT INTO message_search (rowid, body)
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
    ) WHERE t IS NOT NULL AND t != ''), '');
END;

CREATE TRIGGER message_search_update AFTER UPDATE OF normalizedData ON agent_messages
WHEN old.normalizedData IS NOT new.normalizedData BEGIN
    DELETE FROM message_search WHERE rowid = old.id;
    INSERT INTO message_search (rowid, body)
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
    ) WHERE t IS NOT NULL AND t != ''), '');
END;

CREATE TRIGGER message_search_delete AFTER DELETE ON agent_messages BEGIN
    DELETE FROM message_search WHERE rowid = old.id;
END;

-- Index what is already stored.
INSERT INTO message_search (rowid, body)
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
) WHERE t IS NOT NULL AND t != ''), '')
FROM agent_messages m;

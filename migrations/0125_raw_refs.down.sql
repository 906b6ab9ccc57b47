-- Expand the references into copies (frames referenced are stored plain).
UPDATE agent_messages SET rawData = coalesce((SELECT group_concat(CAST(f.data AS TEXT), char(10)) FROM (
    SELECT f.data FROM raw_frames f, json_each(agent_messages.rawRefs) r
    WHERE f.taskId = agent_messages.taskId
      AND f.seq BETWEEN json_extract(r.value, '$[0]') AND json_extract(r.value, '$[1]')
    ORDER BY f.seq) f), '')
WHERE rawRefs IS NOT NULL;
UPDATE message_raw_chunks SET data = CAST(data AS TEXT) || coalesce((SELECT group_concat(CAST(f.data AS TEXT), char(10)) FROM (
    SELECT f.data FROM raw_frames f, json_each(message_raw_chunks.refs) r
    WHERE f.taskId = message_raw_chunks.taskId
      AND f.seq BETWEEN json_extract(r.value, '$[0]') AND json_extract(r.value, '$[1]')
    ORDER BY f.seq) f), '')
WHERE refs IS NOT NULL;
ALTER TABLE message_raw_chunks DROP COLUMN refs;
ALTER TABLE agent_messages DROP COLUMN rawRefs;

-- Every frame of every run back as a raw_frames row: its bytes start after the
-- stored lengths of the frames before it in the run.
INSERT INTO raw_frames (taskId, seq, format, encoding, data, receivedAt)
SELECT taskId, firstSeq + k, format, CASE WHEN gz = 1 THEN 'gzip' ELSE '' END,
       substr(data, 1 + off, len), receivedAt + dt
FROM (
    SELECT r.taskId, r.firstSeq, r.format, r.data, r.receivedAt,
           CAST(m.key AS INTEGER) AS k,
           json_extract(m.value, '$[0]') AS len,
           json_extract(m.value, '$[1]') AS dt,
           json_extract(m.value, '$[2]') AS gz,
           coalesce(sum(json_extract(m.value, '$[0]')) OVER (PARTITION BY r.id ORDER BY CAST(m.key AS INTEGER)
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS off
    FROM raw_frame_runs r, json_each(r.meta) m
);
DROP TABLE raw_frame_runs;

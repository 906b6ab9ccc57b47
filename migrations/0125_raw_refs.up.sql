-- A message's raw data by reference (issue 12). A message's raw data was a
-- copy of the raw frames that make it (rawData, then message_raw_chunks):
-- with raw_frames that is every frame's bytes twice. Now a row or a chunk
-- may name its frames instead: rawRefs / refs is a JSON array of [first,
-- last] seq ranges of the task's raw_frames; the frames of a list are
-- joined by one newline, as the normalizers join them. A message's raw data
-- is its head (rawData, or its rawRefs expanded when rawRefs is not NULL)
-- followed by its chunks in idx order (a chunk: data, then its refs
-- expanded). Only frames stored plain (not gzip) are referenced, so this
-- migration's down step can expand them in SQL.
ALTER TABLE agent_messages ADD COLUMN rawRefs TEXT;
ALTER TABLE message_raw_chunks ADD COLUMN refs TEXT;

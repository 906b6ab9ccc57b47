-- A task's frames that follow each other, stored as one row (backend/store/rawruns.go):
-- firstSeq..lastSeq, their bytes one after the other in data (each as a raw_frames row
-- holds it: gzip-compressed past 4 KiB), and per frame in meta [stored length,
-- receivedAt - the run's receivedAt(, 1 when gzip'd)]. Frames stored before stay rows
-- of raw_frames; readers read both tables in seq order.
CREATE TABLE raw_frame_runs (
    id         INTEGER PRIMARY KEY,
    taskId     TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    firstSeq   INTEGER NOT NULL,
    lastSeq    INTEGER NOT NULL,
    format     TEXT NOT NULL,
    receivedAt INTEGER NOT NULL,
    meta       TEXT NOT NULL,
    data       BLOB NOT NULL,
    UNIQUE (taskId, firstSeq)
);

-- A task's one-line summary, written by a one-shot agent call when the task
-- finishes (issue 16; off unless the summary agent setting is chosen).
ALTER TABLE tasks ADD COLUMN summary TEXT NOT NULL DEFAULT '';

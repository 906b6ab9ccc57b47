DROP INDEX IF EXISTS tasks_parent;
ALTER TABLE tasks DROP COLUMN forkedFromMessageId;
ALTER TABLE tasks DROP COLUMN parentKind;
ALTER TABLE tasks DROP COLUMN parentTaskId;

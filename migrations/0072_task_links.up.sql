-- Forks and sub-tasks (issue 16): a task made by "Fork from here" or "Spawn
-- a sub-task" points at the task it came from (shown in both); a fork also
-- records the message it continues from.
ALTER TABLE tasks ADD COLUMN parentTaskId TEXT REFERENCES tasks(id) ON DELETE SET NULL;
ALTER TABLE tasks ADD COLUMN parentKind TEXT NOT NULL DEFAULT '';   -- '' | fork | spawn
ALTER TABLE tasks ADD COLUMN forkedFromMessageId TEXT NOT NULL DEFAULT '';
CREATE INDEX tasks_parent ON tasks(parentTaskId);

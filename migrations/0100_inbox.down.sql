DROP INDEX IF EXISTS tasks_unread;

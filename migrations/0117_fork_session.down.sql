DROP TRIGGER IF EXISTS tasks_fork_session_done;
ALTER TABLE tasks DROP COLUMN forkSession;

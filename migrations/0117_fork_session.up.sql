-- Native forks (issue 16): a task created as a fork of a Claude Code
-- session holds the parent's session id with forkSession = 1; its first
-- start resumes that session with --fork-session, which gives the task a
-- new session id. As soon as the task's sessionId changes (the agent
-- announced its own), the flag is cleared, so no later start forks again;
-- a start that failed before that still forks, never resuming the parent's
-- session itself.
ALTER TABLE tasks ADD COLUMN forkSession INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER tasks_fork_session_done AFTER UPDATE OF sessionId ON tasks
WHEN old.forkSession = 1 AND new.forkSession = 1 AND new.sessionId IS NOT old.sessionId BEGIN
    UPDATE tasks SET forkSession = 0 WHERE id = new.id;
END;

-- A project's check command (e.g. "make test"), kept apart from the
-- projects table: argv parsed without a shell, run in each compared task's
-- worktree when its agent finishes.
CREATE TABLE project_checks (
    projectId TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    command   TEXT NOT NULL
);

-- Worktree removals of tasks deleted while their host was unreachable
-- (issue 21, docs/remote.md): the task is deleted here at once, its
-- worktree (and branch) on the host removed as soon as the host answers,
-- across restarts. No reference to tasks nor projects: both may be gone.
CREATE TABLE remote_pending_removals (
    taskId       TEXT PRIMARY KEY,
    host         TEXT NOT NULL,
    repo         TEXT NOT NULL,
    worktree     TEXT NOT NULL,
    branch       TEXT NOT NULL DEFAULT '',
    sourceBranch TEXT NOT NULL DEFAULT '',
    force        INTEGER NOT NULL DEFAULT 0,
    forceBranch  INTEGER NOT NULL DEFAULT 0,
    requestedAt  INTEGER NOT NULL
);

-- Compare agents (issue 17): one prompt run on 2-5 agents, each task in its
-- own worktree; the group remembers which one was kept.
CREATE TABLE compare_groups (
    id         TEXT PRIMARY KEY,
    projectId  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    prompt     TEXT NOT NULL,
    createdAt  INTEGER NOT NULL,
    keptTaskId TEXT NOT NULL DEFAULT '',
    keptAt     INTEGER
);
CREATE INDEX compare_groups_project ON compare_groups(projectId, createdAt);
CREATE TABLE compare_members (
    taskId   TEXT PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    groupId  TEXT NOT NULL REFERENCES compare_groups(id) ON DELETE CASCADE,
    position INTEGER NOT NULL
);
CREATE INDEX compare_members_group ON compare_members(groupId, position);
-- The project's check command run in a task's worktree when its agent
-- finished: status running | passed | failed | error; output is the tail.
CREATE TABLE check_runs (
    taskId    TEXT PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    command   TEXT NOT NULL,
    status    TEXT NOT NULL,
    exitCode  INTEGER NOT NULL DEFAULT 0,
    output    TEXT NOT NULL DEFAULT '',
    startedAt INTEGER NOT NULL,
    endedAt   INTEGER
);

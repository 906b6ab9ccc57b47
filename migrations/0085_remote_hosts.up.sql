-- Remote hosts (issue 21). hosts: SSH destinations added by hand (those of
-- ~/.ssh/config are read from the file, not copied here), each with its
-- last health check (JSON of remote.Health). project_hosts: a project that
-- lives on a host, at a path there (absent = a local project).
CREATE TABLE remote_hosts (
    name          TEXT PRIMARY KEY,
    addedAt       INTEGER NOT NULL,
    lastHealth    TEXT NOT NULL DEFAULT '',
    lastCheckedAt INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE project_hosts (
    projectId TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    host      TEXT NOT NULL,
    path      TEXT NOT NULL
);

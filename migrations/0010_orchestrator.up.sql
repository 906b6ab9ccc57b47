-- Orchestrator state: follow-up queue, pending permission requests and
-- questions, "always allow" rules, the record of every permission decision,
-- and the non-message events of a session (rate limits, tool state, ...).

-- Follow-up messages typed while the agent was busy, sent in position order.
CREATE TABLE queued_messages (
    id        TEXT PRIMARY KEY,
    taskId    TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    text      TEXT NOT NULL,
    position  INTEGER NOT NULL,
    createdAt INTEGER NOT NULL,
    updatedAt INTEGER NOT NULL
);
CREATE INDEX queued_messages_task ON queued_messages(taskId, position);

-- Permission requests and questions the agent waits on.
CREATE TABLE pending_requests (
    taskId    TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    requestId TEXT NOT NULL,
    kind      TEXT NOT NULL,           -- permission | question
    request   TEXT NOT NULL,           -- agent.Request JSON
    createdAt INTEGER NOT NULL,
    PRIMARY KEY (taskId, requestId)
);

-- "Always allow" rules. scope task: taskId set; scope project: taskId NULL.
-- matchKind: prefix (command prefix), exact (one exact subject).
CREATE TABLE permission_rules (
    id        TEXT PRIMARY KEY,
    scope     TEXT NOT NULL,
    projectId TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    taskId    TEXT REFERENCES tasks(id) ON DELETE CASCADE,
    toolName  TEXT NOT NULL,
    matchKind TEXT NOT NULL,
    pattern   TEXT NOT NULL,
    createdAt INTEGER NOT NULL
);
CREATE INDEX permission_rules_project ON permission_rules(projectId, toolName);

-- Every answer to a permission request: by the user or by a rule.
CREATE TABLE permission_decisions (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    taskId    TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    requestId TEXT NOT NULL,
    toolId    TEXT NOT NULL DEFAULT '',
    toolName  TEXT NOT NULL,
    input     TEXT,
    behavior  TEXT NOT NULL,           -- allow | deny
    scope     TEXT NOT NULL,           -- once | task | project
    source    TEXT NOT NULL,           -- user | rule
    ruleId    TEXT,                    -- the rule created (user) or applied (rule)
    label     TEXT NOT NULL DEFAULT '',
    message   TEXT NOT NULL DEFAULT '',
    createdAt INTEGER NOT NULL
);
CREATE INDEX permission_decisions_task ON permission_decisions(taskId, id);

-- Session events that are not messages (rate-limit, tool-state-update,
-- session-updated, mode-change, complete, error, ...), as emitted.
CREATE TABLE task_events (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    taskId    TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    type      TEXT NOT NULL,
    data      TEXT NOT NULL,
    createdAt INTEGER NOT NULL
);
CREATE INDEX task_events_task ON task_events(taskId, id);

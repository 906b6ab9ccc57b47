-- The attention inbox (issue 17) reads, across every project, the pending
-- requests (already indexed by their primary key) and the tasks with an
-- unread finished result; this partial index keeps the second part a seek
-- however many tasks were ever run.
CREATE INDEX tasks_unread ON tasks(hasUnread) WHERE hasUnread = 1;

-- Every answer the user gave to a question (an agent's or the app's own),
-- stored in the transaction that takes the question off the pending list,
-- before the answer is sent (commit, then act; issue 12): the user's words
-- are kept whatever fails after.
CREATE TABLE question_answers (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    taskId    TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    requestId TEXT NOT NULL,
    toolId    TEXT NOT NULL DEFAULT '',
    request   TEXT NOT NULL,           -- agent.Request JSON: the questions asked
    answers   TEXT NOT NULL,           -- JSON [][]string: per question, the labels chosen or the text typed
    createdAt INTEGER NOT NULL
);
CREATE INDEX question_answers_task ON question_answers(taskId, id);

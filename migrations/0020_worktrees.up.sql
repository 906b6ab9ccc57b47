-- Git worktrees per task (issue 8).
--
-- Project settings: whether new tasks get their own worktree (default on;
-- only meaningful for git repositories), the folder holding them ('' =
-- <repo parent>/<repo name>.worktrees, outside the repository) and the
-- branch tasks start from ('' = the branch checked out in the main
-- worktree, else main, else master).
ALTER TABLE projects ADD COLUMN worktreesEnabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE projects ADD COLUMN worktreeRoot TEXT NOT NULL DEFAULT '';
ALTER TABLE projects ADD COLUMN defaultSourceBranch TEXT NOT NULL DEFAULT '';

-- Task git state. useWorktree NULL follows the project setting (the
-- per-task override is chosen at creation). sourceBranch is the branch the
-- task starts from and merges back into; worktreePath/branchName are set
-- when the worktree is made ('' = none, or removed: the branch name is kept
-- when only the folder was removed); baseCommit is the source tip at start,
-- headCommit the task branch tip recorded at the end of each run and
-- after each commit; mergedAt/mergeCommit record a merge into sourceBranch.
ALTER TABLE tasks ADD COLUMN useWorktree INTEGER;
ALTER TABLE tasks ADD COLUMN sourceBranch TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN worktreePath TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN branchName TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN baseCommit TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN headCommit TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN mergedAt INTEGER;
ALTER TABLE tasks ADD COLUMN mergeCommit TEXT NOT NULL DEFAULT '';

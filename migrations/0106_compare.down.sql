DROP TABLE check_runs;
DROP TABLE compare_members;
DROP TABLE compare_groups;

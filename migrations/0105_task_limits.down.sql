DROP TABLE task_limits;

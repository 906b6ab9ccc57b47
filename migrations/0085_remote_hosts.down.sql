DROP TABLE IF EXISTS project_hosts;
DROP TABLE IF EXISTS remote_hosts;

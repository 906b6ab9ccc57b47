ALTER TABLE tasks DROP COLUMN setupStatus;
DROP TABLE IF EXISTS project_settings;

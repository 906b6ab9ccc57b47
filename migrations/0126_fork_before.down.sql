ALTER TABLE tasks DROP COLUMN forkBefore;

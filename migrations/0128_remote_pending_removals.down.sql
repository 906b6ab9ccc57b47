DROP TABLE IF EXISTS remote_pending_removals;

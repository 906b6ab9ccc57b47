DROP TABLE IF EXISTS imported_sessions;

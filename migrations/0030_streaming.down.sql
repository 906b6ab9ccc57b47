DROP TABLE app_processes;
DROP TABLE message_raw_chunks;

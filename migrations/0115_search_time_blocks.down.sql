DROP TRIGGER IF EXISTS message_time_blocks_insert;
DROP TABLE IF EXISTS message_time_blocks;

DROP TRIGGER IF EXISTS message_search_delete;
DROP TRIGGER IF EXISTS message_search_update;
DROP TRIGGER IF EXISTS message_search_insert;
DROP TABLE IF EXISTS message_search_cjk;
DROP TABLE IF EXISTS message_search;

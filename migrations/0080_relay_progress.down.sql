DROP TABLE relay_progress;

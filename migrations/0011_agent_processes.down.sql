DROP TABLE IF EXISTS agent_processes;

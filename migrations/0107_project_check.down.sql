DROP TABLE project_checks;

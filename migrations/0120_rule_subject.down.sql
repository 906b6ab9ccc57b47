ALTER TABLE permission_rules DROP COLUMN subjectType;

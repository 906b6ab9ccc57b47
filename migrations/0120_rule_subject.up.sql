-- What kind of thing an "always allow" rule is about (orchestrator.Subject
-- types: command, path, other), so a rule can be edited after it is made
-- with the kinds that suit it (a prefix for a command, a folder for a path).
ALTER TABLE permission_rules ADD COLUMN subjectType TEXT NOT NULL DEFAULT 'other';

-- Existing rules: prefix and folder rules say it themselves; an exact rule
-- takes it from the request it answered (recorded with the decision).
UPDATE permission_rules SET subjectType = 'command' WHERE matchKind = 'prefix';
UPDATE permission_rules SET subjectType = 'path' WHERE matchKind = 'folder';
UPDATE permission_rules SET subjectType = coalesce((
    SELECT CASE
        WHEN json_type(d.input, '$.command') = 'text' THEN 'command'
        WHEN json_type(d.input, '$.file_path') = 'text' OR json_type(d.input, '$.filePath') = 'text'
          OR json_type(d.input, '$.path') = 'text' OR json_type(d.input, '$.notebook_path') = 'text' THEN 'path'
        ELSE 'other' END
    FROM permission_decisions d WHERE d.ruleId = permission_rules.id AND json_valid(d.input)
    ORDER BY d.id LIMIT 1), 'other')
WHERE matchKind = 'exact';

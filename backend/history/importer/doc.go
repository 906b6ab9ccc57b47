// Package importer finds the sessions the agent CLIs keep on disk (Claude
// Code's ~/.claude/projects/<folder>/<session>.jsonl, ...) and imports them
// as tasks: the raw records kept, normalized into the common message model,
// resumable through the CLI's own session id.
package importer

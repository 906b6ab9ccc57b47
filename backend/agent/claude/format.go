// Package claude is the Claude Code backend: it runs the `claude` CLI in
// bidirectional stream-json mode with the stdio permission prompt
// (backend.go), decodes its native JSON lines (wire.go) and normalizes them
// into agent events (normalize.go, whose doc comment is the mapping table).
package claude

import "github.com/jean-claude/jean-claude/backend/agent"

// FormatName is the raw format of Claude Code stream-json lines, as stored
// in agent_messages.rawFormat and given to `jean-claude normalize --format`.
const FormatName = "claude-code"

// Format returns the claude-code raw format: one JSON object per line.
func Format() agent.Format {
	return agent.Format{
		Name: FormatName,
		New:  func() agent.Normalizer { return NewNormalizer() },
	}
}

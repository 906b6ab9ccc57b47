package acp

import "github.com/jean-claude/jean-claude/backend/agent"

// Format returns the "acp" raw format: JSON-RPC messages, one per line.
func Format() agent.Format {
	return agent.Format{Name: FormatName, New: func() agent.Normalizer { return NewNormalizer() }, Steps: true}
}

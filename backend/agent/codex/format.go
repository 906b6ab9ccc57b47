package codex

import "github.com/jean-claude/jean-claude/backend/agent"

// ExecFormat returns the "codex" raw format (`codex exec --json` lines).
func ExecFormat() agent.Format {
	return agent.Format{Name: ExecFormatName, New: func() agent.Normalizer { return NewExecNormalizer() }}
}

// AppServerFormat returns the "codex-app-server" raw format (JSON-RPC lines).
func AppServerFormat() agent.Format {
	return agent.Format{Name: AppServerFormatName, New: func() agent.Normalizer { return NewAppServerNormalizer() }}
}

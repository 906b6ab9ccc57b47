package codex

import (
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

func paths(tb testing.TB, f agent.Format) []string { return agenttest.PathsOf(recordings(tb), f) }

// BenchmarkNormalize runs every `codex exec --json` recording through fresh
// normalizers: bytes/s, frames/s (lines in) and msgs/s (message events out).
func BenchmarkNormalize(b *testing.B) {
	agenttest.BenchNormalize(b, ExecFormat(), paths(b, ExecFormat()))
}

// BenchmarkNormalizeAppServer is the same for the app-server recordings.
func BenchmarkNormalizeAppServer(b *testing.B) {
	agenttest.BenchNormalize(b, AppServerFormat(), paths(b, AppServerFormat()))
}

// FuzzNormalize: arbitrary exec input never panics, every event marshals
// and every message has its raw frames.
func FuzzNormalize(f *testing.F) {
	agenttest.FuzzNormalize(f, ExecFormat(), paths(f, ExecFormat()), nil,
		`{"type":"item.completed","item":{"id":"i","type":"file_change","changes":[{"path":"p","kind":"update"}],"status":"completed"}}`)
}

// FuzzNormalizeAppServer is the same for app-server traffic.
func FuzzNormalizeAppServer(f *testing.F) {
	agenttest.FuzzNormalize(f, AppServerFormat(), paths(f, AppServerFormat()), nil,
		`{"method":"item/completed","params":{"item":{"type":"fileChange","id":"c","changes":[{"path":"p","kind":{"type":"update"},"diff":"@@ -1 +1 @@\n-a\n+b"}],"status":"completed"}}}`,
		`{"method":"item/fileChange/requestApproval","id":0,"params":{"itemId":"zz"}}`,
		`{"method":"turn/plan/updated","params":{"turnId":"t","plan":[{"step":"s","status":"inProgress"}]}}`)
}

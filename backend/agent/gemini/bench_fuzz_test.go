package gemini

import (
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

func paths(tb testing.TB, f agent.Format) []string { return agenttest.PathsOf(recordings(tb), f) }

// BenchmarkNormalize runs every stream-json recording through fresh
// normalizers: bytes/s, frames/s (lines in) and msgs/s (message events out).
func BenchmarkNormalize(b *testing.B) { agenttest.BenchNormalize(b, Format(), paths(b, Format())) }

// BenchmarkNormalizeJSON is the same for --output-format json.
func BenchmarkNormalizeJSON(b *testing.B) {
	agenttest.BenchNormalize(b, JSONFormat(), paths(b, JSONFormat()))
}

// FuzzNormalize: arbitrary stream-json input never panics, every event
// marshals and every message has its raw frames.
func FuzzNormalize(f *testing.F) {
	agenttest.FuzzNormalize(f, Format(), paths(f, Format()), nil,
		`{"type":"tool_result","tool_id":"x","status":"error"}`, `{"type":"result","status":"error"}`)
}

// FuzzNormalizeJSON is the same for --output-format json.
func FuzzNormalizeJSON(f *testing.F) {
	agenttest.FuzzNormalize(f, JSONFormat(), paths(f, JSONFormat()), nil,
		`{"session_id":"s","error":{"type":"x","message":"m"}}`)
}

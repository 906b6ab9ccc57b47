package acp

import (
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// BenchmarkNormalize runs every ACP recording (Gemini CLI and codex-acp),
// each through a fresh normalizer: bytes/s of raw frames, frames/s (JSON-RPC
// messages in) and msgs/s (message events out).
func BenchmarkNormalize(b *testing.B) { agenttest.BenchNormalize(b, Format(), recordings(b)) }

// FuzzNormalize feeds arbitrary line sequences: the normalizer must not
// panic, every event must marshal, every message must have an id, and a
// permission request must have its request id.
func FuzzNormalize(f *testing.F) {
	agenttest.FuzzNormalize(f, Format(), recordings(f), checkEvent,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"{\"error\":{}}","data":"x"}}`)
}

func checkEvent(t *testing.T, ev agent.Event) {
	agenttest.CheckEvent(t, ev)
	if ev.Type == agent.EventMessage && ev.Message.ID == "" {
		t.Fatalf("message event without id: %+v", ev)
	}
	if ev.Type == agent.EventPermissionRequest && (ev.Request == nil || ev.Request.RequestID == "") {
		t.Fatalf("permission request without id: %+v", ev)
	}
}

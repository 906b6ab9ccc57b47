package opencode

import (
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// growthReply is one assistant text part streamed in message.part.delta
// events, as OpenCode's server sends it (the frames of growth.py: no turn, so
// no result message and complete event, which repeat the text twice).
func growthReply(total, delta int) agenttest.Reply {
	ev := func(typ string, props map[string]any) []byte {
		return agenttest.JSON(map[string]any{"type": typ, "properties": props})
	}
	frames := [][]byte{
		ev("session.created", map[string]any{"info": map[string]any{"id": "ses_1", "title": "t", "time": map[string]any{"created": 1}}}),
		ev("message.updated", map[string]any{"sessionID": "ses_1", "info": map[string]any{"id": "msg_1", "role": "assistant", "sessionID": "ses_1", "modelID": "m", "providerID": "p", "time": map[string]any{"created": 1}}}),
		ev("message.part.updated", map[string]any{"sessionID": "ses_1", "part": map[string]any{"id": "prt_1", "messageID": "msg_1", "sessionID": "ses_1", "type": "text", "text": "", "time": map[string]any{"start": 1}}}),
	}
	var sb strings.Builder
	for _, c := range agenttest.Chunks(total, delta) {
		sb.WriteString(c)
		frames = append(frames, ev("message.part.delta", map[string]any{"sessionID": "ses_1", "messageID": "msg_1", "partID": "prt_1", "field": "text", "delta": c}))
	}
	text := sb.String()
	frames = append(frames,
		ev("message.part.updated", map[string]any{"sessionID": "ses_1", "part": map[string]any{"id": "prt_1", "messageID": "msg_1", "sessionID": "ses_1", "type": "text", "text": text, "time": map[string]any{"start": 1, "end": 2}}}),
		ev("session.idle", map[string]any{"sessionID": "ses_1"}))
	return agenttest.Reply{Frames: frames, Bytes: len(text)}
}

// BenchmarkGrowth: a reply of 10, 100 and 200 KB in 20-byte deltas; CPU per
// doubling (goal ≤ 2.2) and output per reply byte (goal ≤ 4).
func BenchmarkGrowth(b *testing.B) { agenttest.BenchGrowth(b, Format(), growthReply) }

// TestGrowthLinear: `jean-claude normalize` prints at most 4× the bytes of
// a reply streamed in 20-byte deltas.
func TestGrowthLinear(t *testing.T) { agenttest.CheckGrowth(t, Format(), growthReply) }

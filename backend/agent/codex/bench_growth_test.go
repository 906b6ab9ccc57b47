package codex

import (
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// growthReply is one agent message streamed as the app server's
// item/agentMessage/delta notifications.
func growthReply(total, delta int) agenttest.Reply {
	note := func(method string, params map[string]any) []byte {
		return agenttest.JSON(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	}
	item := map[string]any{"id": "msg_1", "type": "agentMessage", "text": ""}
	frames := [][]byte{
		note("turn/started", map[string]any{"threadId": "t1", "turn": map[string]any{"id": "turn1", "status": "inProgress", "items": []any{}}}),
		note("item/started", map[string]any{"threadId": "t1", "turnId": "turn1", "item": item}),
	}
	text := make([]byte, 0, total)
	for _, c := range agenttest.Chunks(total, delta) {
		text = append(text, c...)
		frames = append(frames, note("item/agentMessage/delta", map[string]any{"threadId": "t1", "turnId": "turn1", "itemId": "msg_1", "delta": c}))
	}
	frames = append(frames,
		note("item/completed", map[string]any{"threadId": "t1", "turnId": "turn1", "item": map[string]any{"id": "msg_1", "type": "agentMessage", "text": string(text)}}),
		note("turn/completed", map[string]any{"threadId": "t1", "turn": map[string]any{"id": "turn1", "status": "completed", "items": []any{}}}))
	return agenttest.Reply{Frames: frames, Bytes: len(text)}
}

// BenchmarkGrowth: a reply of 10, 100 and 200 KB in 20-byte deltas; CPU per
// doubling (goal ≤ 2.2) and output per reply byte (goal ≤ 4).
func BenchmarkGrowth(b *testing.B) { agenttest.BenchGrowth(b, AppServerFormat(), growthReply) }

// TestGrowthLinear: `jean-claude normalize` prints at most 4× the bytes of
// a reply streamed in 20-byte deltas.
func TestGrowthLinear(t *testing.T) { agenttest.CheckGrowth(t, AppServerFormat(), growthReply) }

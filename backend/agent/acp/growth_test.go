package acp

import (
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// growthReply is an ACP turn whose reply arrives in delta-byte
// agent_message_chunk notifications, after as many bytes of thought in
// agent_thought_chunk ones (both count as the reply's bytes).
func growthReply(total, delta int) agenttest.Reply {
	frames := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","messageId":"m","prompt":[{"type":"text","text":"go"}]}}`),
	}
	n := 0
	for _, kind := range []string{"agent_thought_chunk", "agent_message_chunk"} {
		for _, c := range agenttest.Chunks(total/2, delta) {
			n += len(c)
			frames = append(frames, agenttest.JSON(map[string]any{"jsonrpc": "2.0", "method": "session/update",
				"params": map[string]any{"sessionId": "s", "update": map[string]any{"sessionUpdate": kind, "content": map[string]any{"type": "text", "text": c}}}}))
		}
	}
	frames = append(frames, []byte(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`))
	return agenttest.Reply{Frames: frames, Bytes: n}
}

// BenchmarkGrowth: a reply of 10, 100 and 200 KB (half thought, half text)
// in 20-byte deltas; CPU per doubling (goal ≤ 2.2) and output per reply
// byte (goal ≤ 4).
func BenchmarkGrowth(b *testing.B) { agenttest.BenchGrowth(b, Format(), growthReply) }

// TestGrowthLinear: `jean-claude normalize` prints at most 4× the bytes of
// a reply streamed in 20-byte chunks.
func TestGrowthLinear(t *testing.T) { agenttest.CheckGrowth(t, Format(), growthReply) }

// BenchmarkGrowthTools: a turn (agenttest.ACPToolTurn) of 5, 50 and 100 tool calls (10, 100 and
// 200 KB of text and results); CPU per doubling (goal ≤ 2.2) and output
// per byte of the turn (goal ≤ 4). Each step is its own message.
func BenchmarkGrowthTools(b *testing.B) { agenttest.BenchGrowth(b, Format(), agenttest.ACPToolTurn) }

// TestToolTurnLinear: a turn of 50 and then 100 tool calls costs about
// twice the bytes allocated and printed, not four times (one message per
// step, not the whole turn emitted at every tool state).
func TestToolTurnLinear(t *testing.T) { agenttest.CheckLinear(t, Format(), agenttest.ACPToolTurn) }

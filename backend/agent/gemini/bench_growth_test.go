package gemini

import (
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// growthReply is one reply streamed as Gemini CLI's stream-json deltas.
func growthReply(total, delta int) agenttest.Reply {
	ts := "2026-11-22T00:00:00.000Z"
	frames := [][]byte{
		agenttest.JSON(map[string]any{"type": "init", "timestamp": ts, "session_id": "s1", "model": "m"}),
		agenttest.JSON(map[string]any{"type": "message", "timestamp": ts, "role": "user", "content": "hi"}),
	}
	n := 0
	for _, c := range agenttest.Chunks(total, delta) {
		n += len(c)
		frames = append(frames, agenttest.JSON(map[string]any{"type": "message", "timestamp": ts, "role": "assistant", "content": c, "delta": true}))
	}
	frames = append(frames, agenttest.JSON(map[string]any{"type": "result", "timestamp": ts, "status": "success",
		"stats": map[string]any{"total_tokens": 2, "input_tokens": 1, "output_tokens": 1, "duration_ms": 5, "tool_calls": 0}}))
	return agenttest.Reply{Frames: frames, Bytes: n}
}

// BenchmarkGrowth: a reply of 10, 100 and 200 KB in 20-byte deltas; CPU per
// doubling (goal ≤ 2.2) and output per reply byte (goal ≤ 4).
func BenchmarkGrowth(b *testing.B) { agenttest.BenchGrowth(b, Format(), growthReply) }

// TestGrowthLinear: `jean-claude normalize` prints at most 4× the bytes of
// a reply streamed in 20-byte deltas.
func TestGrowthLinear(t *testing.T) { agenttest.CheckGrowth(t, Format(), growthReply) }

// BenchmarkGrowthTools: a turn (agenttest.GeminiToolTurn) of 5, 50 and 100 tool calls (10, 100 and
// 200 KB of text and results); CPU per doubling (goal ≤ 2.2) and output
// per byte of the turn (goal ≤ 4). Each step is its own message.
func BenchmarkGrowthTools(b *testing.B) { agenttest.BenchGrowth(b, Format(), agenttest.GeminiToolTurn) }

// TestToolTurnLinear: a turn of 50 and then 100 tool calls costs about
// twice the bytes allocated and printed, not four times (one message per
// step, not the whole turn emitted at every tool state).
func TestToolTurnLinear(t *testing.T) { agenttest.CheckLinear(t, Format(), agenttest.GeminiToolTurn) }

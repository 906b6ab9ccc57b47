package claude

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// se is a stream_event line of message msg_1.
func se(ev map[string]any) []byte {
	return agenttest.JSON(map[string]any{"type": "stream_event", "event": ev, "session_id": "s1", "parent_tool_use_id": nil, "api_message_id": "msg_1"})
}

// growthStart is a reply's first lines: the init, the message's start and
// its first block's (block).
func growthStart(block map[string]any) [][]byte {
	return [][]byte{
		agenttest.JSON(map[string]any{"type": "system", "subtype": "init", "session_id": "s1", "model": "m", "tools": []string{}, "cwd": "/x"}),
		se(map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": []any{}, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}}),
		se(map[string]any{"type": "content_block_start", "index": 0, "content_block": block}),
	}
}

// growthWhole is the complete assistant line of message msg_1 with its one
// block (block), as Claude Code writes it once the block is streamed.
func growthWhole(block map[string]any) []byte {
	return agenttest.JSON(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
		"content": []any{block}, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}},
		"parent_tool_use_id": nil, "session_id": "s1", "uuid": "u-1"})
}

// growthReply is one text block streamed as Claude Code does with
// --include-partial-messages: stream_event lines, the complete assistant
// line, the message's stop and the result.
func growthReply(total, delta int) agenttest.Reply {
	frames := growthStart(map[string]any{"type": "text", "text": ""})
	var sb strings.Builder
	for _, c := range agenttest.Chunks(total, delta) {
		sb.WriteString(c)
		frames = append(frames, se(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": c}}))
	}
	frames = append(frames,
		growthWhole(map[string]any{"type": "text", "text": sb.String()}),
		se(map[string]any{"type": "content_block_stop", "index": 0}),
		se(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": 9}}),
		se(map[string]any{"type": "message_stop"}),
		agenttest.JSON(map[string]any{"type": "result", "subtype": "success", "is_error": false, "duration_ms": 5, "num_turns": 1, "result": "x", "session_id": "s1", "total_cost_usd": 0.0}))
	return agenttest.Reply{Frames: frames, Bytes: sb.Len()}
}

// BenchmarkGrowth: a reply of 10, 100 and 200 KB in 20-byte deltas; CPU per
// doubling (goal ≤ 2.2) and output per reply byte (goal ≤ 4).
func BenchmarkGrowth(b *testing.B) { agenttest.BenchGrowth(b, Format(), growthReply) }

// TestGrowthLinear: `jean-claude normalize` prints at most 4× the bytes of
// a reply streamed in 20-byte deltas.
func TestGrowthLinear(t *testing.T) { agenttest.CheckGrowth(t, Format(), growthReply) }

// growthThinking is a thinking block streamed as Claude Code 2.1.330 does
// (the recorded turn in agenttest/fakeclaude): a system thinking_tokens
// line with the estimate so far before every thinking delta, then the
// complete assistant line. Every thinking_tokens line updates one message.
func growthThinking(total, delta int) agenttest.Reply {
	frames := growthStart(map[string]any{"type": "thinking", "thinking": "", "signature": ""})
	var sb strings.Builder
	for i, c := range agenttest.Chunks(total, delta) {
		sb.WriteString(c)
		frames = append(frames,
			agenttest.JSON(map[string]any{"type": "system", "subtype": "thinking_tokens", "estimated_tokens": 5 * (i + 1), "estimated_tokens_delta": 5,
				"session_id": "s1", "uuid": fmt.Sprintf("6fea8277-6b39-4e6d-82e3-%012d", i)}),
			se(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "thinking_delta", "thinking": c}}))
	}
	frames = append(frames,
		growthWhole(map[string]any{"type": "thinking", "thinking": sb.String(), "signature": "sig"}),
		se(map[string]any{"type": "content_block_stop", "index": 0}),
		se(map[string]any{"type": "message_stop"}),
		agenttest.JSON(map[string]any{"type": "result", "subtype": "success", "is_error": false, "duration_ms": 5, "num_turns": 1, "result": "", "session_id": "s1", "total_cost_usd": 0.0}))
	return agenttest.Reply{Frames: frames, Bytes: sb.Len()}
}

// BenchmarkGrowthThinking: the same for a thinking block, whose estimate
// (one message) is updated before every delta.
func BenchmarkGrowthThinking(b *testing.B) { agenttest.BenchGrowth(b, Format(), growthThinking) }

// TestGrowthLinearThinking: the thinking estimate's message costs linear
// bytes too (it copied all its lines so far at every update: 3 GB allocated
// for 4,000 lines).
func TestGrowthLinearThinking(t *testing.T) { agenttest.CheckLinear(t, Format(), growthThinking) }

// toolTurn is a turn of total/2000 steps, each an assistant message (a
// sentence and a Read tool call) and the tool's 2 KB result: a long
// autonomous turn. Every step is its own message.
func toolTurn(total, _ int) agenttest.Reply {
	head := [][]byte{agenttest.JSON(map[string]any{"type": "system", "subtype": "init", "session_id": "s1", "model": "m", "tools": []string{}, "cwd": "/x"})}
	return agenttest.ToolTurn(total, head, func(i int, text, result string) [][]byte {
		id := fmt.Sprintf("toolu_%d", i)
		return [][]byte{
			agenttest.JSON(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%d", i), "type": "message", "role": "assistant", "model": "m",
				"content": []any{map[string]any{"type": "text", "text": text}, map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": "f.go"}}},
				"usage":   map[string]any{"input_tokens": 1, "output_tokens": 1}}, "parent_tool_use_id": nil, "session_id": "s1", "uuid": fmt.Sprintf("a-%d", i)}),
			agenttest.JSON(map[string]any{"type": "user", "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": result}}}, "parent_tool_use_id": nil, "session_id": "s1", "uuid": fmt.Sprintf("u-%d", i)}),
		}
	}, agenttest.JSON(map[string]any{"type": "result", "subtype": "success", "is_error": false, "duration_ms": 5, "num_turns": 1, "result": "x", "session_id": "s1", "total_cost_usd": 0.0}))
}

// TestToolTurnLinear: a turn of 50 and then 100 tool calls costs about
// twice the bytes (allocated, printed), not four times.
func TestToolTurnLinear(t *testing.T) { agenttest.CheckLinear(t, Format(), toolTurn) }

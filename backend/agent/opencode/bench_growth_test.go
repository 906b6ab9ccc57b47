package opencode

import (
	"fmt"
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

// toolTurn is a session of total/2000 steps, each an assistant message (a
// text part and a read tool going running, then completed with 2 KB of
// output): a long autonomous turn. Every step is its own message.
func toolTurn(total, _ int) agenttest.Reply {
	ev := func(typ string, props map[string]any) []byte {
		return agenttest.JSON(map[string]any{"type": typ, "properties": props})
	}
	head := [][]byte{ev("session.created", map[string]any{"info": map[string]any{"id": "ses_1", "title": "t", "time": map[string]any{"created": 1}}})}
	return agenttest.ToolTurn(total, head, func(i int, text, output string) [][]byte {
		msg := fmt.Sprintf("msg_%04d", i)
		part := func(id string, p map[string]any) []byte {
			p["id"], p["messageID"], p["sessionID"] = id, msg, "ses_1"
			return ev("message.part.updated", map[string]any{"sessionID": "ses_1", "part": p})
		}
		input := map[string]any{"filePath": "f.go"}
		return [][]byte{
			ev("message.updated", map[string]any{"sessionID": "ses_1", "info": map[string]any{"id": msg, "role": "assistant", "sessionID": "ses_1", "modelID": "m", "providerID": "p", "time": map[string]any{"created": 1}}}),
			part("prt_t"+msg, map[string]any{"type": "text", "text": text, "time": map[string]any{"start": 1, "end": 2}}),
			part("prt_c"+msg, map[string]any{"type": "tool", "tool": "read", "callID": "call_" + msg, "state": map[string]any{"status": "running", "input": input, "time": map[string]any{"start": 1}}}),
			part("prt_c"+msg, map[string]any{"type": "tool", "tool": "read", "callID": "call_" + msg, "state": map[string]any{"status": "completed", "input": input, "output": output, "title": "f.go", "metadata": map[string]any{}, "time": map[string]any{"start": 1, "end": 2}}}),
		}
	}, ev("session.idle", map[string]any{"sessionID": "ses_1"}))
}

// TestToolTurnLinear: a session of 50 and then 100 tool calls costs about
// twice the bytes (allocated, printed), not four times.
func TestToolTurnLinear(t *testing.T) { agenttest.CheckLinear(t, Format(), toolTurn) }

package codex

import (
	"fmt"
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

// toolTurn is a turn of total/2000 steps, each an agent message and a
// command with 2 KB of output: a long autonomous turn. Every item is its
// own message.
func toolTurn(total, _ int) agenttest.Reply {
	note := func(method string, params map[string]any) []byte {
		return agenttest.JSON(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	}
	head := [][]byte{note("turn/started", map[string]any{"threadId": "t1", "turn": map[string]any{"id": "turn1", "status": "inProgress", "items": []any{}}})}
	return agenttest.ToolTurn(total, head, func(i int, text, output string) [][]byte {
		msg, cmd := fmt.Sprintf("msg_%d", i), fmt.Sprintf("call_%d", i)
		started := map[string]any{"id": cmd, "type": "commandExecution", "command": "/bin/bash -lc 'cat f.go'", "cwd": "/x", "status": "inProgress"}
		done := map[string]any{"id": cmd, "type": "commandExecution", "command": "/bin/bash -lc 'cat f.go'", "cwd": "/x", "status": "completed", "aggregatedOutput": output, "exitCode": 0}
		return [][]byte{
			note("item/started", map[string]any{"threadId": "t1", "turnId": "turn1", "item": map[string]any{"id": msg, "type": "agentMessage", "text": ""}}),
			note("item/completed", map[string]any{"threadId": "t1", "turnId": "turn1", "item": map[string]any{"id": msg, "type": "agentMessage", "text": text}}),
			note("item/started", map[string]any{"threadId": "t1", "turnId": "turn1", "item": started}),
			note("item/completed", map[string]any{"threadId": "t1", "turnId": "turn1", "item": done}),
		}
	}, note("turn/completed", map[string]any{"threadId": "t1", "turn": map[string]any{"id": "turn1", "status": "completed", "items": []any{}}}))
}

// TestToolTurnLinear: a turn of 50 and then 100 commands costs about twice
// the bytes (allocated, printed), not four times.
func TestToolTurnLinear(t *testing.T) { agenttest.CheckLinear(t, AppServerFormat(), toolTurn) }

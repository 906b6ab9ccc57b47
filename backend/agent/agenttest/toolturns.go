package agenttest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// ACPToolTurn is an ACP turn of total/2000 steps, each a sentence of text
// and a tool call (pending, in progress, then completed with a 2 KB text
// result): a long autonomous turn, for the growth checks.
func ACPToolTurn(total, _ int) Reply {
	up := func(u map[string]any) []byte {
		return JSON(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "s", "update": u}})
	}
	head := [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","messageId":"m","prompt":[{"type":"text","text":"go"}]}}`)}
	return ToolTurn(total, head, func(i int, text, result string) [][]byte {
		id := fmt.Sprintf("call_%d", i)
		return [][]byte{
			up(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}}),
			up(map[string]any{"sessionUpdate": "tool_call", "toolCallId": id, "title": "Read f.go", "kind": "read", "status": "pending", "rawInput": map[string]any{"path": "f.go"}}),
			up(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "in_progress"}),
			up(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "completed",
				"content": []any{map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": result}}}}),
		}
	}, []byte(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`))
}

// GeminiToolTurn is a Gemini CLI stream-json turn of total/2000 steps, each
// a sentence of text and a tool call with a 2 KB result: a long autonomous
// turn, for the growth checks.
func GeminiToolTurn(total, _ int) Reply {
	ts := "2026-11-22T00:00:00.000Z"
	head := [][]byte{
		JSON(map[string]any{"type": "init", "timestamp": ts, "session_id": "s1", "model": "m"}),
		JSON(map[string]any{"type": "message", "timestamp": ts, "role": "user", "content": "hi"}),
	}
	return ToolTurn(total, head, func(i int, text, result string) [][]byte {
		id := fmt.Sprintf("read_file__read_file_%d", i)
		return [][]byte{
			JSON(map[string]any{"type": "message", "timestamp": ts, "role": "assistant", "content": text, "delta": true}),
			JSON(map[string]any{"type": "tool_use", "timestamp": ts, "tool_name": "read_file", "tool_id": id, "parameters": map[string]any{"file_path": "f.go"}}),
			JSON(map[string]any{"type": "tool_result", "timestamp": ts, "tool_id": id, "status": "success", "output": result}),
		}
	}, JSON(map[string]any{"type": "result", "timestamp": ts, "status": "success",
		"stats": map[string]any{"total_tokens": 2, "input_tokens": 1, "output_tokens": 1, "duration_ms": 5, "tool_calls": total / 2000}}))
}

// CheckRandomTurns feeds n turns of random shape, gen's for seeds 0 to
// n-1, each to a fresh normalizer of f: every message rebuilds from its own
// raw data (CheckRebuildFromRaw), every tool call ends in a final state,
// and check, when not nil, holds for the turn's messages. A failing turn's
// frames are printed.
func CheckRandomTurns(t *testing.T, f agent.Format, n int, gen func(*rand.Rand) [][]byte, check func(t *testing.T, msgs []agent.Message)) {
	t.Helper()
	for seed := range uint64(n) {
		frames := gen(rand.New(rand.NewPCG(seed, 7)))
		evs := FeedFrames(f, frames)
		if CheckRebuildFromRaw(t, f, evs) == 0 {
			t.Fatalf("seed %d: no message", seed)
		}
		msgs := agent.Fold(evs)
		for _, m := range msgs {
			for _, p := range m.Parts {
				if p.Type == agent.PartToolUse && !p.State.Final() {
					t.Errorf("seed %d: tool %s left %s", seed, p.ToolID, p.State)
				}
			}
		}
		if check != nil {
			check(t, msgs)
		}
		if t.Failed() {
			t.Fatalf("seed %d: frames:\n%s", seed, bytes.Join(frames, []byte("\n")))
		}
	}
}

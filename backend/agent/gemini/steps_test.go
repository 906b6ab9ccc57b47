package gemini

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// TestStepsRandomTurns: turns of random shape (text, tool calls, their
// results in any order, late or parallel, a result for a call never
// announced, the turn ending with calls open) split into steps that each
// rebuild from their own raw data, same id, same content; every call ends
// in a final state; no step is empty.
func TestStepsRandomTurns(t *testing.T) {
	agenttest.CheckRandomTurns(t, Format(), 400, randomTurn, func(t *testing.T, msgs []agent.Message) {
		for _, m := range msgs {
			if m.Role == agent.RoleAssistant && len(m.Parts) == 0 {
				t.Errorf("step %s is empty", m.ID)
			}
		}
	})
}

func randomTurn(r *rand.Rand) [][]byte {
	sec := 0
	ts := func() string { sec++; return fmt.Sprintf("2026-11-29T10:%02d:%02d.000Z", sec/60, sec%60) }
	frames := [][]byte{
		agenttest.JSON(map[string]any{"type": "init", "timestamp": ts(), "session_id": "s1", "model": "m"}),
		agenttest.JSON(map[string]any{"type": "message", "timestamp": ts(), "role": "user", "content": "go"}),
	}
	var open []string
	calls := 0
	for range 5 + r.IntN(40) {
		switch k := r.IntN(10); {
		case k < 4:
			frames = append(frames, agenttest.JSON(map[string]any{"type": "message", "timestamp": ts(), "role": "assistant", "content": fmt.Sprintf("w%d ", r.IntN(100)), "delta": true}))
		case k < 6:
			calls++
			id := fmt.Sprintf("run_shell_command__run_shell_command_%d", calls)
			open = append(open, id)
			frames = append(frames, agenttest.JSON(map[string]any{"type": "tool_use", "timestamp": ts(), "tool_name": "run_shell_command", "tool_id": id, "parameters": map[string]any{"command": "ls"}}))
		case k < 9 && len(open) > 0:
			i := r.IntN(len(open))
			id := open[i]
			open = append(open[:i], open[i+1:]...)
			status := "success"
			if r.IntN(4) == 0 {
				status = "error"
			}
			frames = append(frames, agenttest.JSON(map[string]any{"type": "tool_result", "timestamp": ts(), "tool_id": id, "status": status, "output": "out " + id}))
		case k == 9:
			calls++
			frames = append(frames, agenttest.JSON(map[string]any{"type": "tool_result", "timestamp": ts(), "tool_id": fmt.Sprintf("unknown_%d", calls), "status": "success", "output": "?"}))
		}
	}
	status := "success"
	if r.IntN(5) == 0 {
		status = "error"
	}
	return append(frames, agenttest.JSON(map[string]any{"type": "result", "timestamp": ts(), "status": status,
		"stats": map[string]any{"total_tokens": 2, "input_tokens": 1, "output_tokens": 1, "duration_ms": 5, "tool_calls": calls}}))
}

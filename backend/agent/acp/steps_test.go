package acp

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// TestStepsRandomTurns: ACP turns of random shape — text and thought
// chunks, tool calls whose updates and results come in any order (late,
// parallel, for a call never announced), permission requests answered or
// not, usage and plan updates, a session/cancel, an end_turn, cancelled
// or max_tokens end or none (the agent exited) — split into steps that each rebuild from their own raw data, same
// id, same content; every call ends in a final state.
func TestStepsRandomTurns(t *testing.T) {
	agenttest.CheckRandomTurns(t, Format(), 400, randomACPTurn, nil)
}

func randomACPTurn(r *rand.Rand) [][]byte {
	up := func(u map[string]any) []byte {
		return agenttest.JSON(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "s", "update": u}})
	}
	text := func(kind string) []byte {
		return up(map[string]any{"sessionUpdate": kind, "content": map[string]any{"type": "text", "text": fmt.Sprintf("w%d ", r.IntN(100))}})
	}
	frames := [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","messageId":"m","prompt":[{"type":"text","text":"go"}]}}`)}
	var open, asked []string
	calls, reqs := 0, 100
	pick := func(from *[]string) string {
		i := r.IntN(len(*from))
		id := (*from)[i]
		*from = append((*from)[:i], (*from)[i+1:]...)
		return id
	}
	for range 5 + r.IntN(40) {
		switch k := r.IntN(14); {
		case k < 3:
			frames = append(frames, text("agent_message_chunk"))
		case k < 4:
			frames = append(frames, text("agent_thought_chunk"))
		case k < 6:
			calls++
			id := fmt.Sprintf("call_%d", calls)
			open = append(open, id)
			frames = append(frames, up(map[string]any{"sessionUpdate": "tool_call", "toolCallId": id, "title": "Run ls", "kind": "execute", "status": "pending", "rawInput": map[string]any{"command": "ls"}}))
		case k < 7 && len(open) > 0:
			id := open[r.IntN(len(open))]
			frames = append(frames, up(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "in_progress"}))
		case k < 9 && len(open) > 0:
			id := pick(&open)
			status := "completed"
			if r.IntN(4) == 0 {
				status = "failed"
			}
			frames = append(frames, up(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": status,
				"content": []any{map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": "out " + id}}}}))
		case k < 10 && len(open) > 0:
			reqs++
			id := open[r.IntN(len(open))]
			asked = append(asked, fmt.Sprint(reqs))
			frames = append(frames, agenttest.JSON(map[string]any{"jsonrpc": "2.0", "id": reqs, "method": "session/request_permission", "params": map[string]any{
				"sessionId": "s", "toolCall": map[string]any{"toolCallId": id, "title": "Run ls"},
				"options": []any{map[string]any{"optionId": "allow", "name": "Allow", "kind": "allow_once"}, map[string]any{"optionId": "reject", "name": "Reject", "kind": "reject_once"}}}}))
		case k < 11 && len(asked) > 0:
			opt := "allow"
			if r.IntN(3) == 0 {
				opt = "reject"
			}
			frames = append(frames, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":%q}}}`, pick(&asked), opt)))
		case k < 12:
			frames = append(frames, up(map[string]any{"sessionUpdate": "usage_update", "used": r.IntN(1000), "size": 1000}))
		case k < 13:
			frames = append(frames, up(map[string]any{"sessionUpdate": "plan", "entries": []any{map[string]any{"content": "step", "status": "pending", "priority": "medium"}}}))
		default:
			calls++
			frames = append(frames, up(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": fmt.Sprintf("unknown_%d", calls), "status": "completed"}))
		}
	}
	stop := []string{"end_turn", "cancelled", "max_tokens"}[r.IntN(3)]
	if r.IntN(3) == 0 { // the client cancels, a few frames before the end
		at := len(frames) - r.IntN(min(4, len(frames)-1))
		frames = append(frames[:at], append([][]byte{[]byte(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`)}, frames[at:]...)...)
	}
	if r.IntN(5) == 0 {
		return frames // the agent exited mid-turn: Flush ends it
	}
	return append(frames, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":%q}}`, stop)))
}

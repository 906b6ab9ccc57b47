package opencode

import (
	"github.com/jean-claude/jean-claude/backend/agent"
)

// closeTools ends the tool calls still pending or running when the turn
// ends (session.idle, or the end of an `opencode run` stream): a pending
// one is cancelled (it never ran), a running one interrupted. Each gets a
// tool-state-update with the reason, and its message is emitted again with
// the final state (what the store keeps). It looks at the turn's messages,
// or, with no turn open (a message re-normalized from its raw frames, which
// end with the frame that closed it), at every message.
func (n *Normalizer) closeTools(frame []byte) []agent.Event {
	ids := sortedKeys(n.msgs)
	if n.turn != nil {
		ids = n.turn.msgIDs
	}
	var evs []agent.Event
	for _, id := range ids {
		ms := n.msgs[id]
		if ms == nil {
			continue
		}
		changed := false
		for _, ps := range ms.parts {
			if ps.p.Type != "tool" || ps.final != "" {
				continue
			}
			st := "pending"
			if ps.p.State != nil {
				st = ps.p.State.Status
			}
			if st == "completed" || st == "error" {
				continue
			}
			ps.final, ps.finalWhy = agent.ToolCancelled, "the turn ended before the tool ran"
			if st == "running" {
				ps.final, ps.finalWhy = agent.ToolInterrupted, "the turn ended while the tool was running"
			}
			ps.emitted = string(ps.final)
			evs = append(evs, agent.Event{Type: agent.EventToolStateUpdate, MessageID: ms.id,
				ToolID: toolID(&ps.p), State: ps.final, Error: ps.finalWhy})
			changed = true
		}
		if changed {
			ms.closeFrame = frame
			evs = append(evs, n.emitMessage(ms)...)
		}
	}
	return evs
}

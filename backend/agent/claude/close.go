package claude

import (
	"encoding/json"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// noteTool records a tool call of the turn that has no result yet.
func (n *Normalizer) noteTool(toolID, msgID string) {
	if toolID == "" {
		return
	}
	if n.tools == nil {
		n.tools = map[string]string{}
	}
	if _, ok := n.tools[toolID]; !ok {
		n.toolsOrder = append(n.toolsOrder, toolID)
	}
	n.tools[toolID] = msgID
}

// closeTools ends every tool call of the turn still without a result when
// the turn ends: denied when the result lists it among permission_denials,
// else interrupted (the turn was stopped) or cancelled (it ended without
// running it). Each gets a tool-state-update with the reason, and its
// message is emitted again with the part's final state (what is stored).
func (n *Normalizer) closeTools(evs []agent.Event, denials json.RawMessage, interrupted bool, reason string) []agent.Event {
	denied := map[string]bool{}
	var ds []struct {
		ToolUseID string `json:"tool_use_id"`
	}
	if _, err := agent.Decode(denials, &ds); err == nil {
		for _, d := range ds {
			denied[d.ToolUseID] = true
		}
	}
	touched := map[string]bool{}
	var order []string
	for _, id := range n.toolsOrder {
		msgID, open := n.tools[id]
		if !open {
			continue
		}
		ev := agent.Event{Type: agent.EventToolStateUpdate, MessageID: msgID, ToolID: id}
		switch {
		case denied[id]:
			ev.State, ev.Error = agent.ToolDenied, "permission denied"
		case interrupted:
			ev.State, ev.Error = agent.ToolInterrupted, "the turn was interrupted before the tool finished"
		default:
			ev.State, ev.Error = agent.ToolCancelled, "the turn ended ("+reason+") before the tool ran"
		}
		evs = append(evs, ev)
		if a := n.msgs[msgID]; a != nil && a.setToolState(id, ev.State, ev.Error) && !touched[msgID] {
			touched[msgID] = true
			order = append(order, msgID)
		}
	}
	for _, msgID := range order {
		evs = append(evs, n.msgs[msgID].event())
	}
	// Dropped, not cleared: a cleared map keeps the size it grew to for
	// as long as the session idles.
	n.tools, n.toolsOrder = nil, nil
	return evs
}

// setToolState sets the final state of tool call id in the message, the
// reason in metadata.toolErrors; it reports whether the call was there.
func (a *asmMsg) setToolState(id string, st agent.ToolState, why string) bool {
	for i := range a.parts {
		if p := &a.parts[i]; p.Type == agent.PartToolUse && p.ToolID == id {
			p.State = st
			if a.meta == nil {
				a.meta = map[string]any{}
			}
			errs, _ := a.meta["toolErrors"].(map[string]any)
			if errs == nil {
				errs = map[string]any{}
				a.meta["toolErrors"] = errs
			}
			errs[id] = why
			return true
		}
	}
	return false
}

// userRejected returns the tool ids whose permission decision in
// tool_result_meta was a rejection.
func userRejected(meta json.RawMessage) map[string]bool {
	if isNull(meta) {
		return nil
	}
	var ms []struct {
		ID                 string `json:"id"`
		PermissionDecision struct {
			Decision string `json:"decision"`
			Source   string `json:"source"`
		} `json:"permission_decision"`
	}
	if _, err := agent.Decode(meta, &ms); err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, m := range ms {
		if m.PermissionDecision.Decision == "reject" || m.PermissionDecision.Source == "user_reject" {
			out[m.ID] = true
		}
	}
	return out
}

// markDenied closes the denied calls: a tool-state-update denied with the
// tool result's text, and their assistant message again with the tool-use
// part denied; line (the user line that said so) joins its Raw.
func (n *Normalizer) markDenied(evs []agent.Event, denied []agent.Part, owners map[string]string, line []byte) []agent.Event {
	var order []string
	touched := map[string]bool{}
	for _, p := range denied {
		why := p.TextContent()
		evs = append(evs, agent.Event{Type: agent.EventToolStateUpdate, MessageID: owners[p.ToolID], ToolID: p.ToolID, State: agent.ToolDenied, Error: why})
		a := n.msgs[owners[p.ToolID]]
		if a != nil && a.setToolState(p.ToolID, agent.ToolDenied, why) && !touched[a.id] {
			touched[a.id] = true
			order = append(order, a.id)
		}
	}
	for _, id := range order {
		a := n.msgs[id]
		a.addLine(line)
		evs = append(evs, a.event())
	}
	return evs
}

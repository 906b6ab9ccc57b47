package opencode

import (
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// TestOpenToolsClosedAtIdle: a tool still pending or running when the
// session goes idle ends cancelled or interrupted, with the reason, in a
// tool-state-update and in the message emitted again (what is stored); the
// message rebuilds from its raw frames with that state.
func TestOpenToolsClosedAtIdle(t *testing.T) {
	frames := []string{
		`{"type":"session.status","properties":{"sessionID":"s","status":{"type":"busy"}}}`,
		`{"type":"message.updated","properties":{"info":{"id":"m1","role":"assistant","sessionID":"s","time":{"created":1}}}}`,
		`{"type":"message.part.updated","properties":{"part":{"id":"p1","messageID":"m1","sessionID":"s","type":"tool","tool":"bash","callID":"c1","state":{"status":"running","input":{"command":"sleep 9"}}}}}`,
		`{"type":"message.part.updated","properties":{"part":{"id":"p2","messageID":"m1","sessionID":"s","type":"tool","tool":"read","callID":"c2","state":{"status":"pending"}}}}`,
		`{"type":"session.idle","properties":{"sessionID":"s"}}`,
	}
	n := NewNormalizer()
	var evs []agent.Event
	for _, f := range frames {
		evs = append(evs, n.Feed([]byte(f))...)
	}
	states := map[string]agent.ToolState{}
	for _, ev := range evs {
		if ev.Type == agent.EventToolStateUpdate && ev.State.Final() {
			if ev.Error == "" {
				t.Errorf("tool %s closed without a reason", ev.ToolID)
			}
			states[ev.ToolID] = ev.State
		}
	}
	if states["c1"] != agent.ToolInterrupted || states["c2"] != agent.ToolCancelled {
		t.Errorf("closing states %v", states)
	}
	msgs := agent.Fold(evs)
	for _, m := range msgs {
		if m.ID != "m1" {
			continue
		}
		for _, p := range m.Parts {
			if p.Type == agent.PartToolUse && !p.State.Final() {
				t.Errorf("stored tool %s left %s", p.ToolID, p.State)
			}
		}
	}
	agenttest.CheckRebuildFromRaw(t, Format(), evs)
}

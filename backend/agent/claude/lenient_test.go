package claude

import (
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// TestFieldsDegradeAlone: the cases. Claude Code 2.1.197 writes
// retry_delay_ms as a float: the retry notice and its rate-limit event stay.
// A result whose duration_ms is 1e400 still completes the turn. A value of
// another type (a string num_turns) degrades that field only. Each is noted
// in metadata.anomalies, never a malformed-line error.
func TestFieldsDegradeAlone(t *testing.T) {
	n := NewNormalizer()
	evs := n.Feed([]byte(`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":1523.7,"error_status":429,"error":"rate_limit","uuid":"r1","session_id":"s"}`))
	var rl *agent.Event
	for i, ev := range evs {
		if ev.Type == agent.EventError {
			t.Fatalf("error event %q", ev.Error)
		}
		if ev.Type == agent.EventRateLimit {
			rl = &evs[i]
		}
	}
	if rl == nil || rl.RetryAfterMs == nil || *rl.RetryAfterMs != 1524 || rl.Attempt != 1 || rl.MaxRetries != 10 {
		t.Fatalf("rate limit %+v", rl)
	}
	evs = n.Feed([]byte(`{"type":"result","subtype":"success","is_error":false,"duration_ms":1e400,"num_turns":"3","result":"done","total_cost_usd":0.5,"uuid":"res1","session_id":"s"}`))
	var done *agent.Result
	var msg *agent.Message
	for _, ev := range evs {
		switch ev.Type {
		case agent.EventError:
			t.Fatalf("error event %q", ev.Error)
		case agent.EventComplete:
			done = ev.Result
		case agent.EventMessage:
			msg = ev.Message
		}
	}
	if done == nil || done.Text != "done" || done.Cost == nil || done.Cost.CostUSD != 0.5 {
		t.Fatalf("complete %+v", done)
	}
	anoms, _ := msg.Metadata[agent.AnomaliesKey].([]string)
	joined := strings.Join(anoms, "; ")
	if !strings.Contains(joined, "duration_ms: 1e400 out of range") || !strings.Contains(joined, "num_turns") {
		t.Errorf("anomalies %q", anoms)
	}
}

// TestUnknownSubtypeIsQuiet: an unknown system subtype (command_lifecycle,
// seen from 2.1.330 when not signed in) is a quiet notice with a readable
// line, never a bare internal name.
func TestUnknownSubtypeIsQuiet(t *testing.T) {
	evs := NewNormalizer().Feed([]byte(`{"type":"system","subtype":"command_lifecycle","phase":"start","uuid":"c1","session_id":"s"}`))
	m := evs[len(evs)-1].Message
	if m == nil || m.Metadata[agent.MetaQuiet] != true || m.Parts[0].Status != agent.StatusUnknown || m.Parts[0].Text != "System notice: command lifecycle" {
		t.Fatalf("notice %+v", m)
	}
}

// TestOpenToolClosedAtResult: a tool call without a result when the turn
// ends is closed (denied when listed in permission_denials, else
// interrupted/cancelled), in an event and in the message emitted again.
func TestOpenToolClosedAtResult(t *testing.T) {
	n := NewNormalizer()
	var evs []agent.Event
	for _, l := range []string{
		`{"type":"assistant","message":{"id":"m1","role":"assistant","model":"x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"rm -rf /"}}]},"uuid":"a1","session_id":"s"}`,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","model":"x","content":[{"type":"tool_use","id":"t2","name":"Read","input":{}}]},"uuid":"a2","session_id":"s"}`,
		`{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"result":"","permission_denials":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{}}],"uuid":"r","session_id":"s"}`,
	} {
		evs = append(evs, n.Feed([]byte(l))...)
	}
	got := map[string]agent.ToolState{}
	for _, ev := range evs {
		if ev.Type == agent.EventToolStateUpdate {
			got[ev.ToolID] = ev.State
			if ev.Error == "" {
				t.Errorf("%s closed without a reason", ev.ToolID)
			}
		}
	}
	if got["t1"] != agent.ToolDenied || got["t2"] != agent.ToolCancelled {
		t.Errorf("states %v", got)
	}
	for _, m := range agent.Fold(evs) {
		for _, p := range m.Parts {
			if p.Type == agent.PartToolUse && !p.State.Final() {
				t.Errorf("stored %s left %q", p.ToolID, p.State)
			}
		}
	}
}

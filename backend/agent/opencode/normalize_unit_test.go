package opencode

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jean-claude/jean-claude/backend/agent"
)

// feedAll feeds frames (one JSON per string) and returns the events.
func feedAll(n *Normalizer, frames ...string) []agent.Event {
	var out []agent.Event
	for _, f := range frames {
		out = append(out, n.Feed([]byte(f))...)
	}
	return out
}

// TestCatchUpFromMessagesIsIdempotent replays the real server's
// GET /session/{id}/message answer after the whole stream, as a reconnect
// does: nothing may change (same messages, same tool states).
func TestCatchUpFromMessagesIsIdempotent(t *testing.T) {
	n := NewNormalizer()
	for _, f := range readFrames(t, "testdata/serve-basic.sse") {
		n.Feed(f)
	}
	data, err := os.ReadFile("testdata/serve-basic.messages.json")
	if err != nil {
		t.Fatal(err)
	}
	var msgs []wireMessageWithParts
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		fr, _ := json.Marshal(map[string]any{"type": "message.updated", "properties": map[string]any{"info": m.Info}})
		if evs := n.Feed(fr); len(evs) != 0 {
			t.Errorf("message.updated from GET gave %s", encodeEvents(t, evs))
		}
		for _, p := range m.Parts {
			fr, _ := json.Marshal(map[string]any{"type": "message.part.updated", "properties": map[string]any{"part": p}})
			if evs := n.Feed(fr); len(evs) != 0 {
				t.Errorf("part from GET gave %s", encodeEvents(t, evs))
			}
		}
	}
}

const (
	userMsg  = `{"type":"message.updated","properties":{"sessionID":"s","info":{"id":"m1","role":"user","sessionID":"s","time":{"created":1000},"agent":"build","model":{"providerID":"p","modelID":"x"}}}}`
	asstMsg  = `{"type":"message.updated","properties":{"sessionID":"s","info":{"id":"m2","parentID":"m1","role":"assistant","sessionID":"s","time":{"created":1100},"modelID":"x","providerID":"p","cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}}}}`
	busy     = `{"type":"session.status","properties":{"sessionID":"s","status":{"type":"busy"}}}`
	idle     = `{"type":"session.idle","properties":{"sessionID":"s"}}`
	bashPart = `{"type":"message.part.updated","properties":{"part":{"id":"p1","messageID":"m2","sessionID":"s","type":"tool","tool":"bash","callID":"c1","state":%s}}}`
)

func lastMessage(t *testing.T, evs []agent.Event, id string) *agent.Message {
	t.Helper()
	var m *agent.Message
	for _, ev := range evs {
		if ev.Type == agent.EventMessage && ev.Message.ID == id {
			m = ev.Message
		}
	}
	if m == nil {
		t.Fatalf("no message %s in %s", id, encodeEvents(t, evs))
	}
	return m
}

func part(state string) string { return strings.Replace(bashPart, "%s", state, 1) }

// TestToolStateMachine: failing command, stale replays, missed pending.
func TestToolStateMachine(t *testing.T) {
	n := NewNormalizer()
	evs := feedAll(n, userMsg, busy, asstMsg,
		part(`{"status":"running","input":{"command":"false"},"time":{"start":1200}}`),
		part(`{"status":"completed","input":{"command":"false"},"output":"","title":"false","metadata":{"exit":1,"output":""},"time":{"start":1200,"end":1300}}`))
	var states []agent.ToolState
	for _, ev := range evs {
		if ev.Type == agent.EventToolStateUpdate {
			states = append(states, ev.State)
		}
	}
	if d := cmp.Diff([]agent.ToolState{"running", "completed"}, states); d != "" {
		t.Fatalf("states (-want +got):\n%s", d)
	}
	m := lastMessage(t, evs, "m2")
	if len(m.Parts) != 2 || m.Parts[0].Type != agent.PartToolUse || m.Parts[0].Kind != agent.ToolExecute || m.Parts[1].Type != agent.PartToolResult || !m.Parts[1].IsError {
		t.Fatalf("parts: %+v", m.Parts)
	}
	// A late replay of the running state changes nothing.
	if evs := feedAll(n, part(`{"status":"running","input":{"command":"false"},"time":{"start":1200}}`)); len(evs) != 0 {
		t.Fatalf("stale running gave %s", encodeEvents(t, evs))
	}
	// Exit 0 is no error.
	n2 := NewNormalizer()
	m = lastMessage(t, feedAll(n2, asstMsg, part(`{"status":"completed","input":{},"output":"ok","title":"t","metadata":{"exit":0}}`)), "m2")
	if m.Parts[1].IsError || m.Parts[1].TextContent() != "ok" || m.Parts[1].Title != "t" {
		t.Fatalf("exit 0: %+v", m.Parts[1])
	}
}

// TestAbortAndErrors: an abort ends the turn interrupted without an error
// event; an API error is fatal and makes the result an error.
func TestAbortAndErrors(t *testing.T) {
	n := NewNormalizer()
	evs := feedAll(n, userMsg, busy, asstMsg,
		`{"type":"session.error","properties":{"sessionID":"s","error":{"name":"MessageAbortedError","data":{"message":"aborted"}}}}`, idle)
	if countType(evs, agent.EventError) != 0 {
		t.Fatal("abort gave an error event")
	}
	last := evs[len(evs)-1]
	if last.Type != agent.EventComplete || !last.Result.Interrupted || last.Result.IsError {
		t.Fatalf("abort: %+v", last)
	}
	if evs := feedAll(n, idle); len(evs) != 0 {
		t.Fatal("a second idle made a second result")
	}
	// A late abort outside any turn ends nothing.
	if evs := feedAll(n, `{"type":"session.error","properties":{"sessionID":"s","error":{"name":"MessageAbortedError","data":{"message":"aborted"}}}}`, idle); len(evs) != 0 {
		t.Fatalf("late abort gave %s", encodeEvents(t, evs))
	}
	n = NewNormalizer()
	evs = feedAll(n, userMsg, busy, asstMsg,
		`{"type":"session.error","properties":{"sessionID":"s","error":{"name":"ProviderAuthError","data":{"providerID":"p","message":"bad key"}}}}`, idle)
	if e := evs[len(evs)-3]; e.Type != agent.EventError || !e.Fatal || e.Error != "bad key" {
		t.Fatalf("error event: %+v", e)
	}
	res := evs[len(evs)-1].Result
	if !res.IsError || res.Text != "bad key" || res.Reason != "error" {
		t.Fatalf("result: %+v", res)
	}
}

// TestRemovalsCompactionFiles covers message.removed, message.part.removed,
// compaction and file parts, session.compacted and message.part.delta for a
// part never announced.
func TestRemovalsCompactionFiles(t *testing.T) {
	n := NewNormalizer()
	evs := feedAll(n, userMsg,
		`{"type":"message.part.updated","properties":{"part":{"id":"f1","messageID":"m1","sessionID":"s","type":"file","mime":"text/plain","filename":"a.go","url":"file:///src/a.go","source":{"type":"file","path":"a.go","text":{"value":"@a.go","start":0,"end":5}}}}}`,
		`{"type":"message.part.updated","properties":{"part":{"id":"k1","messageID":"m1","sessionID":"s","type":"compaction","auto":true}}}`,
		`{"type":"message.part.delta","properties":{"sessionID":"s","messageID":"m1","partID":"t9","field":"text","delta":"hi"}}`)
	m := lastMessage(t, evs, "m1")
	want := []agent.Part{{Type: agent.PartFile, Path: "/src/a.go", Mime: "text/plain"}, {Type: agent.PartCompact, Trigger: "auto"}, {Type: agent.PartText, Text: "hi"}}
	if d := cmp.Diff(want, m.Parts); d != "" {
		t.Fatalf("parts (-want +got):\n%s", d)
	}
	if m.Metadata["fileSources"] == nil {
		t.Fatal("file source not kept")
	}
	evs = feedAll(n, `{"type":"message.part.removed","properties":{"sessionID":"s","messageID":"m1","partID":"k1"}}`)
	if m := lastMessage(t, evs, "m1"); len(m.Parts) != 2 || m.Parts[1].Type != agent.PartText {
		t.Fatalf("after part removal: %+v", m.Parts)
	}
	evs = feedAll(n, `{"type":"message.removed","properties":{"sessionID":"s","messageID":"m1"}}`)
	if len(evs) != 1 || evs[0].Type != agent.EventMessageRemoved || evs[0].MessageID != "m1" {
		t.Fatalf("message.removed: %+v", evs)
	}
	evs = feedAll(n, `{"id":"evt_c","type":"session.compacted","properties":{"sessionID":"s"}}`)
	if m := lastMessage(t, evs, "evt_c"); m.Role != agent.RoleSystem || m.Parts[0].Subtype != "compacted" {
		t.Fatalf("session.compacted: %+v", m)
	}
}

// TestFramesSSE covers the SSE splitter: multi-line data, comments, other
// fields, CRLF, a final event without a blank line, and JSON lines.
func TestFramesSSE(t *testing.T) {
	in := ": comment\r\nevent: x\r\nid: 1\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata:{\"b\":2}\n\n\n{\"c\":3}\ndata: {\"d\":4}"
	var got []string
	for f, err := range Frames(strings.NewReader(in)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(f))
	}
	if d := cmp.Diff([]string{"{\"a\":\n1}", `{"b":2}`, `{"c":3}`, `{"d":4}`}, got); d != "" {
		t.Fatalf("frames (-want +got):\n%s", d)
	}
}

// Recorded from the real OpenCode 1.18.33 (the real-CLI suite's steps: text,
// allow, deny, follow-up, stop, follow-up after stop): the stopped turn's
// assistant message is updated with its MessageAbortedError only after the
// next prompt was sent, a part of it first. That earlier turn's abort must
// not end the follow-up as interrupted.
func TestFollowUpAfterStopIsNotInterrupted(t *testing.T) {
	evs := normalizeAll(readFrames(t, "testdata/realcli-followup-after-stop.sse"))
	var last *agent.Result
	for _, ev := range evs {
		if ev.Type == agent.EventComplete {
			last = ev.Result
		}
	}
	if last == nil || last.Text != "Back after the stop: still here." {
		t.Fatalf("last completion = %+v", last)
	}
	if last.Interrupted || last.Reason != "stop" {
		t.Fatalf("the follow-up after a stop ended %q (interrupted %v), want stop", last.Reason, last.Interrupted)
	}
}

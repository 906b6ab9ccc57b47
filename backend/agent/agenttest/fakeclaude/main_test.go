package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// TestRecordedRepeatTurnAsReplaced: the template fill writes, for every
// line of every cycle, what replacing each pattern in turn wrote (the fake's
// former way, kept here as the definition).
func TestRecordedRepeatTurnAsReplaced(t *testing.T) {
	f := &fake{session: "fake-session-42", next: 3, out: bufio.NewWriter(&bytes.Buffer{})}
	const n = 300 // several cycles of the recorded turn
	got := f.recordedRepeatTurn(n)
	var body [][]byte
	for _, l := range bytes.Split(bytes.TrimSpace(partialTurn), []byte("\n")) {
		if !bytes.Contains(l, []byte(`"subtype":"init"`)) && !bytes.Contains(l, []byte(`"type":"result"`)) {
			body = append(body, l)
		}
	}
	if len(got) != n+2 {
		t.Fatalf("%d lines, want %d", len(got), n+2)
	}
	for i := range n {
		k := i / len(body)
		l := bytes.ReplaceAll(body[i%len(body)], []byte(recordedSession), []byte("fake-session-42"))
		l = bytes.ReplaceAll(l, []byte("msg_fake_"), fmt.Appendf(nil, "msg_fake_%d_%d_", 3, k))
		l = bytes.ReplaceAll(l, []byte("toolu_fake_"), fmt.Appendf(nil, "toolu_fake_%d_%d_", 3, k))
		l = bytes.ReplaceAll(l, []byte(`"uuid":"`), fmt.Appendf(nil, `"uuid":"r%d-%d-`, 3, k))
		if !bytes.Equal(got[i+1], l) {
			t.Fatalf("line %d:\n got %s\nwant %s", i, got[i+1], l)
		}
		if cap(got[i+1]) != len(got[i+1]) {
			t.Fatalf("line %d is not capped: a stamp or an append would write into the next", i)
		}
	}
	if f.next != 4 {
		t.Errorf("next turn %d, want 4", f.next)
	}
}

// TestRepeatTurnAsFormatted: the synthetic repeat turn's lines are, byte
// for byte, what the fake formatted before (kept here as the definition),
// with and without stamps.
func TestRepeatTurnAsFormatted(t *testing.T) {
	for _, stamped := range []bool{false, true} {
		f := &fake{cfg: config{stamp: stamped}, session: "fake-session-42", next: 2, seq: 7}
		ref := &fake{cfg: config{stamp: stamped}, session: "fake-session-42", next: 2, seq: 7}
		got, want := f.repeatTurn(301), formattedRepeatTurn(ref, 301)
		if len(got) != len(want) {
			t.Fatalf("%d lines, want %d", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("stamp %v, line %d:\n got %s\nwant %s", stamped, i, got[i], want[i])
			}
			if i > 0 && i <= 301 && cap(got[i]) != len(got[i]) {
				t.Fatalf("line %d is not capped: a stamp or an append would write into the next", i)
			}
		}
	}
}

// formattedRepeatTurn is the fake's former repeatTurn (fmt, line by line).
func formattedRepeatTurn(f *fake, n int) [][]byte {
	out := [][]byte{f.initLine()}
	sess, _ := json.Marshal(f.session)
	stamp := ""
	if f.cfg.stamp {
		stamp = " at " + stampPlaceholder
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("msg_rep_%d_%d", f.next, i/3)
		tool := fmt.Sprintf("toolu_rep_%d_%d", f.next, i/3)
		var b []byte
		switch i % 3 {
		case 0:
			b = fmt.Appendf(nil, `{"type":"assistant","message":{"id":%q,"type":"message","role":"assistant","model":"claude-fake","content":[{"type":"text","text":"Step %d%s: looking at the files."}],"usage":{"input_tokens":10,"output_tokens":5}},"parent_tool_use_id":null,"session_id":%s,"uuid":%q}`,
				id, i, stamp, sess, f.uuid())
		case 1:
			b = fmt.Appendf(nil, `{"type":"assistant","message":{"id":%q,"type":"message","role":"assistant","model":"claude-fake","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"ls","description":"List files"}}],"usage":{"input_tokens":10,"output_tokens":5}},"parent_tool_use_id":null,"session_id":%s,"uuid":%q}`,
				id, tool, sess, f.uuid())
		case 2:
			b = fmt.Appendf(nil, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"a.txt\nb.txt","is_error":false}]},"parent_tool_use_id":null,"session_id":%s,"uuid":%q,"tool_use_result":{"stdout":"a.txt\nb.txt","stderr":"","interrupted":false}}`,
				tool, sess, f.uuid())
		}
		out = append(out, b)
	}
	f.next++
	return append(out, f.result(false))
}

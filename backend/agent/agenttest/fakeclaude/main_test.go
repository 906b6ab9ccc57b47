package main

import (
	"bufio"
	"bytes"
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

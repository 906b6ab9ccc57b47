package claude

import (
	"bytes"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

func assistantLine(uuid, text string) []byte {
	return []byte(`{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"` +
		text + `"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"` + uuid + `"}`)
}

func lastRaw(t *testing.T, evs []agent.Event) []byte {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if e := evs[i]; e.Type == agent.EventMessage && e.Message.ID == "msg_1" || e.Type == agent.EventDelta && e.MessageID == "msg_1" {
			return evs[i].Raw
		}
	}
	t.Fatalf("no message event in %+v", evs)
	return nil
}

// A normalizer told that frames are kept (agent.FrameKeeper: the runtime's
// Stream) takes a message's first line as its raw data, without a copy; the
// next line's append copies it and never writes into the first frame. Told
// nothing (an importer feeding a bufio.Scanner's buffer), it copies: a frame
// overwritten after Feed leaves the events' raw data as it was.
func TestKeepFrames(t *testing.T) {
	one, two := assistantLine("u1", "hello"), assistantLine("u2", "world")
	want := string(one) + "\n" + string(two)

	kept := NewNormalizer()
	kept.KeepFrames()
	frame1 := bytes.Clone(one)
	raw := lastRaw(t, kept.Feed(frame1))
	if &raw[0] != &frame1[0] || string(raw) != string(one) {
		t.Fatalf("kept: the first line's raw data is a copy, or differs: %q", raw)
	}
	raw = lastRaw(t, kept.Feed(bytes.Clone(two)))
	if string(raw) != string(two) || string(kept.msgs["msg_1"].raw) != want || string(frame1) != string(one) {
		t.Fatalf("kept, second line: raw %q, message's %q, first frame now %q", raw, kept.msgs["msg_1"].raw, frame1)
	}

	copied := NewNormalizer()
	buf := bytes.Clone(one)
	raw = lastRaw(t, copied.Feed(buf))
	copy(buf, bytes.Repeat([]byte("x"), len(buf))) // the scanner reads the next line into it
	if string(raw) != string(one) {
		t.Fatalf("not kept: the raw data changed with the caller's buffer: %q", raw)
	}
	lastRaw(t, copied.Feed(bytes.Clone(two)))
	if got := string(copied.msgs["msg_1"].raw); got != want {
		t.Fatalf("not kept, second line: %q", got)
	}
}

package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// msgLineNorm: each line {"id","role","text"} is a whole message of one text part.
type msgLineNorm struct{}

func (msgLineNorm) Feed(frame []byte) []Event {
	var l struct{ ID, Role, Text string }
	if json.Unmarshal(frame, &l) != nil {
		return nil
	}
	return []Event{{Type: EventMessage, Raw: frame, Message: &Message{ID: l.ID, Role: Role(l.Role), Parts: []Part{{Type: PartText, Text: l.Text}}}}}
}

func (msgLineNorm) Flush() []Event { return nil }

func TestRebuildFoldsStepsOnlyIntoAnAssistantMessage(t *testing.T) {
	raw := []byte(strings.Join([]string{
		`{"id":"u","role":"user","text":"go"}`,
		`{"id":"a","role":"assistant","text":"one"}`,
		`{"id":"a2","role":"assistant","text":"two"}`,
		`{"id":"r","role":"result","text":"done"}`,
		`{"id":"a3","role":"assistant","text":"three"}`,
	}, "\n"))
	steps := Format{Name: "lines", New: func() Normalizer { return msgLineNorm{} }, Steps: true}
	texts := func(m Message) string {
		var out []string
		for _, p := range m.Parts {
			out = append(out, p.Text)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		f        Format
		id, want string
	}{
		{steps, "a", "one,two,three"}, // a stored turn: its later steps folded in, the result skipped
		{steps, "a2", "two,three"},
		{steps, "u", "go"}, // not an assistant message: nothing folds into it
		{steps, "r", "done"},
		{Format{Name: "lines", New: steps.New}, "a", "one"}, // a format without steps
	} {
		m, err := Rebuild(c.f, raw, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if got := texts(m); m.ID != c.id || got != c.want {
			t.Errorf("Rebuild(steps=%v, %s) = %s %q, want %q", c.f.Steps, c.id, m.ID, got, c.want)
		}
	}
	if _, err := Rebuild(steps, raw, "missing"); err == nil {
		t.Error("a message the raw data does not yield: no error")
	}
}

func TestAppendFrame(t *testing.T) {
	var buf []byte
	buf = AppendFrame(buf, []byte("a"))
	held := buf[:len(buf):len(buf)]
	for i := range 3000 {
		buf = AppendFrame(buf, []byte{'b' + byte(i%3)})
	}
	if string(held) != "a" || len(buf) != 1+2*3000 || !strings.HasPrefix(string(buf), "a\nb\nc\nd\nb") {
		t.Errorf("held %q, buf %d bytes starting %q", held, len(buf), buf[:min(9, len(buf))])
	}
	if c := cap(buf); c > 4*len(buf) {
		t.Errorf("capacity %d for %d bytes", c, len(buf))
	}
}

package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

const key = "sk-test-0123456789abcdef"

func TestRedactorFramesAndEvents(t *testing.T) {
	r := NewRedactor([]string{key, "short", ""})
	if r == nil {
		t.Fatal("no redactor for a real key")
	}
	msg := &Message{ID: "m1", Role: RoleAssistant, Parts: []Part{
		{Type: PartText, Text: "env: OPENAI_API_KEY=" + key},
		{Type: PartToolUse, ToolID: "t1", ToolName: "Bash", Input: json.RawMessage(`{"command":"echo ` + key + `"}`)},
	}, Metadata: map[string]any{"stderr": "bad key " + key, "n": 3}}
	frame := []byte(`{"type":"assistant","text":"env: OPENAI_API_KEY=` + key + `"}`)
	clean := []byte(`{"type":"assistant","text":"short and sweet"}`)
	bs := r.Batches([]Batch{
		{Frame: frame, Events: []Event{{Type: EventMessage, Message: msg}}},
		{Frame: clean, Events: []Event{{Type: EventMessage, Message: &Message{ID: "m2", Parts: []Part{{Type: PartText, Text: "short and sweet"}}}}}},
		{Events: []Event{{Type: EventError, Error: "401 for " + key}}},
	})
	all, _ := json.Marshal(bs)
	if strings.Contains(string(all), key) {
		t.Fatalf("the key is still there: %s", all)
	}
	if !strings.Contains(string(bs[0].Frame), "OPENAI_API_KEY="+Redacted) {
		t.Fatalf("frame = %s", bs[0].Frame)
	}
	m := bs[0].Events[0].Message
	if m.Parts[0].Text != "env: OPENAI_API_KEY="+Redacted || !strings.Contains(string(m.Parts[1].Input), Redacted) ||
		m.Metadata["stderr"] != "bad key "+Redacted || m.Metadata["n"] != 3 {
		t.Fatalf("message = %+v", m)
	}
	if msg.Parts[0].Text != "env: OPENAI_API_KEY="+key {
		t.Fatal("the normalizer's own message was changed in place")
	}
	if string(bs[1].Frame) != string(clean) || bs[1].Events[0].Message.Parts[0].Text != "short and sweet" {
		t.Fatal("a value shorter than a secret was redacted")
	}
	if bs[2].Events[0].Error != "401 for "+Redacted {
		t.Fatalf("error = %q", bs[2].Events[0].Error)
	}
	if got := r.String("exit 1: " + key); got != "exit 1: "+Redacted {
		t.Fatalf("String = %q", got)
	}
}

func TestRedactorJSONEscapedValue(t *testing.T) {
	secret := `p@ss"word\with/escapes`
	r := NewRedactor([]string{secret})
	esc, _ := json.Marshal(secret)
	bs := r.Batches([]Batch{{Frame: []byte(`{"text":` + string(esc) + `}`)}})
	if strings.Contains(string(bs[0].Frame), `word\\with`) || !strings.Contains(string(bs[0].Frame), Redacted) {
		t.Fatalf("frame = %s", bs[0].Frame)
	}
	if NewRedactor([]string{"1", "true"}) != nil {
		t.Fatal("short values make no redactor")
	}
	var none *Redactor
	if got := none.Batches([]Batch{{Frame: []byte("x")}}); string(got[0].Frame) != "x" {
		t.Fatal("a nil redactor changed a frame")
	}
}

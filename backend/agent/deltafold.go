package agent

import (
	"encoding/json"
	"reflect"
	"strings"
)

// ApplyDelta appends d to m (the message its event names) and reports
// whether it applied: false when d.Part is out of range or the part is not
// of the kind d.Field says. It is what the store and the UI do with a delta.
func ApplyDelta(m *Message, d Delta) bool {
	if m == nil || d.Part < 0 || d.Part >= len(m.Parts) {
		return false
	}
	p := &m.Parts[d.Part]
	switch {
	case d.Field == DeltaText && p.Type == PartText, d.Field == DeltaReason && p.Type == PartReasoning:
		p.Text += d.Text
	case d.Field == DeltaOutput && p.Type == PartToolResult:
		p.Content = StringContent(p.TextContent() + d.Text)
	default:
		return false
	}
	return true
}

// Fold applies events in order to a transcript keyed by message id: a
// message event replaces its message (a copy), a delta applies to it, a
// message-removed drops it. It returns the messages in first-seen order.
// Tests use it to compare live events with re-normalized ones.
func Fold(evs []Event) []Message {
	var order []string
	byID := map[string]*Message{}
	for _, ev := range evs {
		switch ev.Type {
		case EventMessage:
			if _, ok := byID[ev.Message.ID]; !ok {
				order = append(order, ev.Message.ID)
			}
			byID[ev.Message.ID] = CloneMessage(ev.Message)
		case EventDelta:
			if ev.Delta != nil {
				ApplyDelta(byID[ev.MessageID], *ev.Delta)
			}
		case EventMessageRemoved:
			delete(byID, ev.MessageID)
		}
	}
	out := make([]Message, 0, len(order))
	for _, id := range order {
		if m, ok := byID[id]; ok {
			out = append(out, *m)
		}
	}
	return out
}

// CloneMessage copies m deeply enough that applying deltas to the copy
// leaves m alone (its parts are copied; other values are shared).
func CloneMessage(m *Message) *Message {
	c := *m
	if m.Parts != nil {
		c.Parts = append(make([]Part, 0, len(m.Parts)), m.Parts...)
	}
	return &c
}

// TextDeltas returns the deltas that turn prev into next when next differs
// from prev only by text appended to text or reasoning parts; ok is false
// for any other change (a structural one: emit next whole). Equal messages
// give no deltas and ok true.
func TextDeltas(prev, next *Message) (ds []Delta, ok bool) {
	if prev == nil || next == nil || len(prev.Parts) != len(next.Parts) {
		return nil, false
	}
	for i := range next.Parts {
		a, b := &prev.Parts[i], &next.Parts[i]
		if a.Text == b.Text {
			continue
		}
		if (b.Type != PartText && b.Type != PartReasoning) || a.Type != b.Type || !strings.HasPrefix(b.Text, a.Text) {
			return nil, false
		}
		f := DeltaText
		if b.Type == PartReasoning {
			f = DeltaReason
		}
		ds = append(ds, Delta{Part: i, Field: f, Text: b.Text[len(a.Text):]})
	}
	if len(ds) == 0 {
		return nil, reflect.DeepEqual(prev, next)
	}
	// Everything but the grown texts must be equal.
	pc, nc := *prev, *next
	pc.Parts, nc.Parts = nil, nil
	if !reflect.DeepEqual(pc, nc) {
		return nil, false
	}
	for i := range next.Parts {
		a, b := prev.Parts[i], next.Parts[i]
		a.Text, b.Text = "", ""
		if !reflect.DeepEqual(a, b) {
			return nil, false
		}
	}
	return ds, true
}

// DeltaEvents wraps ds as delta events of message id, the first carrying
// raw (the frame that caused them).
func DeltaEvents(id string, ds []Delta, raw []byte) []Event {
	evs := make([]Event, len(ds))
	for i := range ds {
		evs[i] = Event{Type: EventDelta, MessageID: id, Delta: &ds[i]}
	}
	if len(evs) > 0 {
		evs[0].Raw = raw
	}
	return evs
}

// deltaJSON is Delta's compact wire form: a delta is the one event a reply
// sends per few bytes of text, so its envelope is kept small (part 0 and
// field "text", the common case, are left out).
type deltaJSON struct {
	Part  int        `json:"part,omitempty"`
	Field DeltaField `json:"field,omitempty"`
	Text  string     `json:"text"`
}

// MarshalJSON writes the compact form: "part" omitted when 0, "field"
// omitted when "text". Readers (the UI) default them so.
func (d Delta) MarshalJSON() ([]byte, error) {
	j := deltaJSON(d)
	if j.Field == DeltaText {
		j.Field = ""
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the compact form.
func (d *Delta) UnmarshalJSON(b []byte) error {
	var j deltaJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.Field == "" {
		j.Field = DeltaText
	}
	*d = Delta(j)
	return nil
}

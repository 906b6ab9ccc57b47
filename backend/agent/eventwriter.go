package agent

import (
	"encoding/json"
	"io"
)

// EventWriter prints events as JSON lines, as `jean-claude normalize` does.
// Unless each is set, a run of delta events to the same part of the same
// message is printed as one delta carrying their joined text: applying it
// gives the same message (Fold), and a reply streamed in tiny deltas costs
// about its own bytes, not an envelope per delta. The text is joined in one
// growing buffer (linear).
type EventWriter struct {
	enc     *json.Encoder
	each    bool
	pending *Event
	text    []byte
}

// NewEventWriter writes to w; each prints every delta as it came.
func NewEventWriter(w io.Writer, each bool) *EventWriter {
	return &EventWriter{enc: json.NewEncoder(w), each: each}
}

// Write prints ev, or holds it back when it is a delta that the next event
// may extend.
func (w *EventWriter) Write(ev Event) error {
	if w.each || ev.Type != EventDelta || ev.Delta == nil {
		if err := w.Flush(); err != nil {
			return err
		}
		return w.enc.Encode(ev)
	}
	if p := w.pending; p != nil && p.MessageID == ev.MessageID &&
		p.Delta.Part == ev.Delta.Part && p.Delta.Field == ev.Delta.Field {
		w.text = append(w.text, ev.Delta.Text...)
		return nil
	}
	if err := w.Flush(); err != nil {
		return err
	}
	d := *ev.Delta
	ev.Delta = &d
	w.pending, w.text = &ev, append(w.text[:0], d.Text...)
	return nil
}

// Flush prints the delta held back, if any. Call it after the last event.
func (w *EventWriter) Flush() error {
	if w.pending == nil {
		return nil
	}
	ev := *w.pending
	ev.Delta.Text = string(w.text)
	w.pending = nil
	return w.enc.Encode(ev)
}

package agent

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
)

// Rebuild feeds raw (a message's raw data) to a fresh normalizer of f and
// returns the last version of message id it yields: its last whole message
// event with the deltas after it applied, as the live orchestrator builds
// it.
//
// When f.Steps is set and id is an assistant message, the assistant
// messages raw yields after it are folded into it (their parts appended in
// order, their metadata merged): a message stored before its normalizer
// split turns into steps holds a whole turn, whose steps are now several
// messages, and the stored message keeps showing the whole turn. A step's
// own raw data yields no later assistant message, so a message stored
// since is rebuilt as it is.
func Rebuild(f Format, raw []byte, id string) (Message, error) {
	accs := map[string]*Accumulator{}
	var later []string // assistant messages first seen after id, in order
	for ev, err := range Normalize(f, bytes.NewReader(raw)) {
		if err != nil {
			return Message{}, fmt.Errorf("re-normalize %s: %w", id, err)
		}
		switch {
		case ev.Type == EventMessage && ev.Message != nil:
			mid := ev.Message.ID
			if mid != id && !(f.Steps && folds(accs[id]) && ev.Message.Role == RoleAssistant) {
				continue
			}
			if _, ok := accs[mid]; !ok && mid != id {
				later = append(later, mid)
			}
			accs[mid] = NewAccumulator(*ev.Message)
		case ev.Type == EventDelta && ev.Delta != nil:
			if a := accs[ev.MessageID]; a != nil {
				a.Apply(*ev.Delta)
			}
		}
	}
	if accs[id] == nil {
		return Message{}, fmt.Errorf("re-normalize: raw data of format %s no longer yields message %s", f.Name, id)
	}
	m := accs[id].Message()
	for _, sid := range later {
		foldStep(&m, accs[sid].Message())
	}
	return m, nil
}

// folds tells whether later steps fold into the message a holds: an
// assistant message already seen.
func folds(a *Accumulator) bool { return a != nil && a.msg.Role == RoleAssistant }

// foldStep appends step s of a turn to m: its parts, its cost, its metadata
// (maps merged key by key, lists joined, other values replaced).
func foldStep(m *Message, s Message) {
	m.Parts = append(slices.Clip(m.Parts), s.Parts...)
	if s.Cost != nil {
		m.Cost = s.Cost
	}
	if len(s.Metadata) == 0 {
		return
	}
	meta := maps.Clone(m.Metadata)
	if meta == nil {
		meta = map[string]any{}
	}
	for k, v := range s.Metadata {
		switch old := meta[k].(type) {
		case map[string]any:
			if nv, ok := v.(map[string]any); ok {
				merged := maps.Clone(old)
				maps.Copy(merged, nv)
				v = merged
			}
		case []string:
			if nv, ok := v.([]string); ok {
				v = append(slices.Clip(old), nv...)
			}
		case []any:
			if nv, ok := v.([]any); ok {
				v = append(slices.Clip(old), nv...)
			}
		}
		meta[k] = v
	}
	m.Metadata = meta
}

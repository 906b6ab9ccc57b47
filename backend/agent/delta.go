package agent

import "encoding/json"

// Accumulator applies deltas to a message in amortized linear time: the
// appended text of each part is kept in a growing buffer and turned back
// into the part's field only when Message is called (the orchestrator does
// that at most every ~100 ms and at the end of a stream). Applying deltas
// with string concatenation instead would copy the whole text per delta.
type Accumulator struct {
	msg  Message
	bufs map[int]*partBuf
}

type partBuf struct {
	field DeltaField
	b     []byte
}

// NewAccumulator starts from m (a whole message event); m's parts are
// copied, m itself is never changed.
func NewAccumulator(m Message) *Accumulator {
	m.Parts = append([]Part(nil), m.Parts...)
	return &Accumulator{msg: m}
}

// Apply appends d to its part. It reports false (and changes nothing) when
// the part does not exist or the field does not fit the part.
func (a *Accumulator) Apply(d Delta) bool {
	if d.Part < 0 || d.Part >= len(a.msg.Parts) {
		return false
	}
	p := &a.msg.Parts[d.Part]
	switch d.Field {
	case DeltaText, DeltaReason:
		if p.Type != PartText && p.Type != PartReasoning {
			return false
		}
	case DeltaOutput:
		if p.Type != PartToolResult {
			return false
		}
	default:
		return false
	}
	if a.bufs == nil {
		a.bufs = map[int]*partBuf{}
	}
	pb := a.bufs[d.Part]
	if pb == nil {
		pb = &partBuf{field: d.Field}
		if d.Field == DeltaOutput {
			pb.b = []byte(p.TextContent())
		} else {
			pb.b = []byte(p.Text)
		}
		a.bufs[d.Part] = pb
	}
	pb.b = append(pb.b, d.Text...)
	return true
}

// Message returns the message with every delta applied so far.
func (a *Accumulator) Message() Message {
	m := a.msg
	if len(a.bufs) == 0 {
		return m
	}
	m.Parts = append([]Part(nil), a.msg.Parts...)
	for i, pb := range a.bufs {
		if pb.field == DeltaOutput {
			m.Parts[i].Content, _ = json.Marshal(string(pb.b))
		} else {
			m.Parts[i].Text = string(pb.b)
		}
	}
	return m
}

// AccMark is an Accumulator's state at one point (see Mark).
type AccMark map[int]int

// Mark returns the current state, to return to with Reset.
func (a *Accumulator) Mark() AccMark {
	m := make(AccMark, len(a.bufs))
	for i, pb := range a.bufs {
		m[i] = len(pb.b)
	}
	return m
}

// Reset forgets the deltas applied after m was taken.
func (a *Accumulator) Reset(m AccMark) {
	for i, pb := range a.bufs {
		n, ok := m[i]
		if !ok {
			delete(a.bufs, i)
			continue
		}
		pb.b = pb.b[:n]
	}
}

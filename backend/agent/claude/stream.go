package claude

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// wireStream is a stream_event line (--include-partial-messages): one event
// of the Anthropic streaming API, wrapped.
type wireStream struct {
	UUID            string       `json:"uuid"`
	ParentToolUseID *string      `json:"parent_tool_use_id"`
	APIMessageID    string       `json:"api_message_id"`
	Event           wireAPIEvent `json:"event"`
}

// wireAPIEvent is message_start, content_block_start, content_block_delta,
// content_block_stop, message_delta or message_stop.
type wireAPIEvent struct {
	Type         string          `json:"type"`
	Index        agent.Int       `json:"index"`
	Message      *wireMessage    `json:"message"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        wireDelta       `json:"delta"`
	Usage        *wireUsage      `json:"usage"`
}

// wireDelta is a content_block_delta's or message_delta's delta.
type wireDelta struct {
	Type       string          `json:"type"`
	Text       string          `json:"text"`
	Thinking   string          `json:"thinking"`
	StopReason json.RawMessage `json:"stop_reason"`
}

// stream handles a stream_event line: a block's start is a new part (the
// message is emitted whole), a text or thinking delta is a delta event, the
// message's stop emits it whole. Input JSON deltas are not shown: the
// complete assistant line that ends each block carries the input.
func (n *Normalizer) stream(evs []agent.Event, line []byte) []agent.Event {
	var w wireStream
	anoms, err := decodeStream(line, &w)
	if err != nil {
		return append(evs, malformed(line, err))
	}
	e := &w.Event
	id := w.APIMessageID
	if e.Type == "message_start" && e.Message != nil && e.Message.ID != "" {
		id = e.Message.ID
	}
	if id == "" {
		id = n.streaming
	}
	if id == "" {
		return evs // a partial event outside any message: nothing to show
	}
	n.streaming = id
	a := n.msgs[id]
	if a == nil {
		a = &asmMsg{id: id}
		if w.ParentToolUseID != nil {
			a.parent = *w.ParentToolUseID
		}
		n.open(a)
	}
	start := a.addLine(line)
	a.anoms = append(a.anoms, anoms...)
	switch e.Type {
	case "message_start":
		if e.Message != nil {
			if e.Message.Model != "" {
				a.model = e.Message.Model
			}
			if u := usageOf(e.Message.Usage, &a.anoms); u != nil {
				a.usage = u
			}
		}
		return evs
	case "content_block_start":
		var b wireBlock
		if !decodeBlock(e.ContentBlock, &b) { // the block is valid JSON: kept by raw or encoding/json
			b = wireBlock{}
			if _, err := agent.Decode(e.ContentBlock, &b); err != nil || len(e.ContentBlock) == 0 {
				return evs
			}
		}
		if a.sidx == nil {
			a.sidx = map[int64]int{}
		}
		a.sidx[e.Index.V] = len(a.parts)
		a.parts = append(a.parts, blockPart(b, e.ContentBlock))
		return append(evs, a.event())
	case "content_block_delta":
		k, ok := a.sidx[e.Index.V]
		if !ok || k >= len(a.parts) {
			return evs
		}
		text, field := e.Delta.Text, agent.DeltaText
		if e.Delta.Type == "thinking_delta" {
			text, field = e.Delta.Thinking, agent.DeltaReason
		}
		want := agent.PartText
		if field == agent.DeltaReason {
			want = agent.PartReasoning
		}
		if text == "" || a.parts[k].Type != want {
			return evs // input_json_delta, signature_delta, ...
		}
		a.grow(k, text)
		return append(evs, agent.Event{Type: agent.EventDelta, MessageID: id,
			Delta: &agent.Delta{Part: k, Field: field, Text: text}, Raw: a.raw[start:len(a.raw):len(a.raw)], MessageRaw: a.rawSoFar()})
	case "message_delta":
		if u := usageOf(e.Usage, &a.anoms); u != nil {
			a.usage = u
		}
		return evs
	case "message_stop":
		n.streaming = ""
		return append(evs, a.changed()...)
	}
	return evs // content_block_stop, ping, ...
}

// addLine appends line to the message's raw frames and returns where it
// starts. Raw slices share this buffer: an emission costs no copy. A first
// line is taken as it is when frames are kept (capped to its length: the
// next line's append copies it), so one huge line is not held twice.
func (a *asmMsg) addLine(line []byte) int {
	if a.keep && a.raw == nil {
		a.raw = line[:len(line):len(line)]
		return 0
	}
	a.raw = agent.AppendFrame(a.raw, line) // doubling: append's 1.25× allocated ~5× a long message's raw data
	return len(a.raw) - len(line)
}

// rawSoFar is the message's raw frames so far, capped (the message event's
// Raw and a delta's MessageRaw).
func (a *asmMsg) rawSoFar() []byte { return a.raw[:len(a.raw):len(a.raw)] }

// grow appends text to part k's text in amortized linear time.
func (a *asmMsg) grow(k int, text string) {
	if a.texts == nil {
		a.texts = map[int]*strings.Builder{}
	}
	sb := a.texts[k]
	if sb == nil {
		sb = &strings.Builder{}
		sb.WriteString(a.parts[k].Text)
		a.texts[k] = sb
	}
	sb.WriteString(text)
	a.parts[k].Text = sb.String()
	if a.last != nil && k < len(a.last.Parts) && a.last.Parts[k].Type == a.parts[k].Type {
		a.last.Parts[k].Text = a.parts[k].Text // what the consumer has, deltas applied
	}
}

// confirm takes the parts of a complete assistant line: each replaces the
// next part that a stream started and no complete line confirmed yet, or
// is appended. A lone text (or thinking) block after a confirmed part of
// the same kind extends it (delta) instead: the blocks of one message
// arriving as separate lines read as one text.
func (a *asmMsg) confirm(parts []agent.Part, start int) (deltas []agent.Event, structural bool) {
	if len(parts) == 1 && a.confirmed == len(a.parts) && len(a.parts) > 0 {
		last := &a.parts[len(a.parts)-1]
		p := parts[0]
		if (p.Type == agent.PartText || p.Type == agent.PartReasoning) && last.Type == p.Type && p.Text != "" {
			f := agent.DeltaText
			if p.Type == agent.PartReasoning {
				f = agent.DeltaReason
			}
			k := len(a.parts) - 1
			a.grow(k, p.Text)
			return []agent.Event{{Type: agent.EventDelta, MessageID: a.id,
				Delta: &agent.Delta{Part: k, Field: f, Text: p.Text}, Raw: a.raw[start:len(a.raw):len(a.raw)], MessageRaw: a.rawSoFar()}}, false
		}
	}
	for _, p := range parts {
		if a.confirmed < len(a.parts) {
			delete(a.texts, a.confirmed)
			a.parts[a.confirmed] = p
		} else {
			a.parts = append(a.parts, p)
		}
		a.confirmed++
	}
	return nil, true
}

// changed emits the message whole unless it is what was last emitted (the
// complete assistant line that ends a streamed block usually is).
func (a *asmMsg) changed() []agent.Event {
	prev := a.last
	ev := a.event()
	if prev != nil && reflect.DeepEqual(prev, ev.Message) {
		return nil
	}
	return []agent.Event{ev}
}

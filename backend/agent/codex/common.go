package codex

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// hunkRE matches a unified diff hunk header.
var hunkRE = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// parseHunks reads the hunks of a unified diff; nil when there are none.
func parseHunks(diff string) []agent.PatchHunk {
	var out []agent.PatchHunk
	var cur *agent.PatchHunk
	for _, l := range strings.Split(diff, "\n") {
		if m := hunkRE.FindStringSubmatch(l); m != nil {
			out = append(out, agent.PatchHunk{OldStart: atoi(m[1], 0), OldLines: atoi(m[2], 1), NewStart: atoi(m[3], 0), NewLines: atoi(m[4], 1)})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil || l == "" || strings.HasPrefix(l, `\ `) {
			continue
		}
		switch l[0] {
		case ' ', '+', '-':
			cur.Lines = append(cur.Lines, l)
		}
	}
	return out
}

func atoi(s string, def int) int {
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

// errorText makes an API error readable: Codex often passes the provider's
// JSON error body through as the message.
func errorText(msg string) string {
	if strings.TrimSpace(msg) == "" {
		return "Codex reported an error without a message"
	}
	var inner struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"error"`
	}
	if strings.HasPrefix(strings.TrimSpace(msg), "{") && json.Unmarshal([]byte(msg), &inner) == nil && inner.Error.Message != "" {
		if inner.Error.Type != "" {
			return inner.Error.Message + " (" + inner.Error.Type + ")"
		}
		return inner.Error.Message
	}
	return msg
}

// reconnectRE matches Codex's retry notices: "Reconnecting... 1/2 (why)".
var reconnectRE = regexp.MustCompile(`^Reconnecting\.\.\. (\d+)/(\d+)`)

// retryEvent turns a retry notice into a rate-limit event.
func retryEvent(msg string) (agent.Event, bool) {
	m := reconnectRE.FindStringSubmatch(msg)
	if m == nil {
		return agent.Event{}, false
	}
	return agent.Event{Type: agent.EventRateLimit, Attempt: atoi(m[1], 0), MaxRetries: atoi(m[2], 0), Error: msg}, true
}

// unknownMessage keeps a frame the normalizer does not understand.
func unknownMessage(frame []byte, what string) agent.Event {
	h := fnv.New64a()
	h.Write(frame)
	return agent.Event{Type: agent.EventMessage, Raw: append([]byte(nil), frame...),
		Message: agent.QuietNotice("codex-unknown-"+strconv.FormatUint(h.Sum64(), 16), what, frame)}
}

func malformed(frame []byte, err error) agent.Event {
	return agent.Event{Type: agent.EventError, Error: fmt.Sprintf("codex: malformed line: %v", err), Raw: append([]byte(nil), frame...)}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// todoStatus maps Codex's plan step statuses to the todo vocabulary.
func todoStatus(s string) string {
	switch s {
	case "inProgress", "in_progress":
		return "in_progress"
	case "completed":
		return "completed"
	}
	return "pending"
}

// itemMessage is the message one Codex item becomes, built as the item's
// frames arrive.
type itemMessage struct {
	msg    agent.Message
	raw    []byte
	state  agent.ToolState
	hasUse bool
	sb     *strings.Builder // grows a streamed text
	last   *agent.Message   // the message last emitted
}

func (m *itemMessage) addRaw(frame []byte) { m.raw = agent.AppendFrame(m.raw, frame) }

func (m *itemMessage) event() agent.Event {
	c := m.msg
	c.Parts = append([]agent.Part(nil), m.msg.Parts...)
	m.last = agent.CloneMessage(&c)
	return agent.Event{Type: agent.EventMessage, Message: &c, Raw: m.raw[:len(m.raw):len(m.raw)]}
}

// toolUpdate sets the message to a tool-use part (and a tool-result part once
// done) and returns the events: the message, then a tool-state-update when
// the state changed.
func (m *itemMessage) toolUpdate(use agent.Part, result *agent.Part) []agent.Event {
	m.msg.Parts = []agent.Part{use}
	if result != nil {
		m.msg.Parts = append(m.msg.Parts, *result)
	}
	evs := []agent.Event{m.event()}
	if !m.hasUse || use.State != m.state {
		m.hasUse, m.state = true, use.State
		ev := agent.Event{Type: agent.EventToolStateUpdate, MessageID: m.msg.ID, ToolID: use.ToolID, State: use.State}
		if result != nil {
			if use.State == agent.ToolError || use.State == agent.ToolDenied {
				ev.Error = result.TextContent()
				if ev.Error == "" {
					ev.Error = "failed"
				}
			} else {
				ev.ToolResult = result.TextContent()
			}
		}
		evs = append(evs, ev)
	}
	return evs
}

// grow appends text to the item's first part (a text or reasoning item) in
// amortized linear time.
func (m *itemMessage) grow(text string) {
	p := &m.msg.Parts[0]
	if m.sb == nil || m.sb.Len() != len(p.Text) {
		m.sb = &strings.Builder{}
		m.sb.WriteString(p.Text)
	}
	m.sb.WriteString(text)
	p.Text = m.sb.String()
}

// change emits what changed since the item's last emission: deltas when only
// its text grew, else the whole message.
func (m *itemMessage) change(frame []byte) []agent.Event {
	if m.last != nil {
		if ds, ok := agent.TextDeltas(m.last, &m.msg); ok {
			if len(ds) == 0 {
				return nil
			}
			m.last = agent.CloneMessage(&m.msg)
			return agent.DeltaEvents(m.msg.ID, ds, append([]byte(nil), frame...))
		}
	}
	return []agent.Event{m.event()}
}

// openTools are the tool items whose state is not final yet, by item id.
type openTools map[string]*itemMessage

// track notes m's state after an update and passes its events through.
func (o openTools) track(m *itemMessage, evs []agent.Event) []agent.Event {
	if m.hasUse && !m.state.Final() {
		o[m.msg.ID] = m
	} else {
		delete(o, m.msg.ID)
	}
	return evs
}

// close ends every open tool item when its turn ends: a tool-state-update
// {state, error = why} and the message again with the final state and
// metadata.toolErrors (frame, the turn's end, joins its Raw so that it
// rebuilds closed).
func (o openTools) close(frame []byte, state agent.ToolState, why string) []agent.Event {
	ids := make([]string, 0, len(o))
	for id := range o {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var evs []agent.Event
	for _, id := range ids {
		m := o[id]
		if len(m.msg.Parts) == 0 || m.msg.Parts[0].Type != agent.PartToolUse {
			continue
		}
		m.addRaw(frame)
		m.msg.Parts[0].State, m.state = state, state
		meta := maps.Clone(m.msg.Metadata)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["toolErrors"] = map[string]any{m.msg.Parts[0].ToolID: why}
		m.msg.Metadata = meta
		evs = append(evs, agent.Event{Type: agent.EventToolStateUpdate, MessageID: m.msg.ID,
			ToolID: m.msg.Parts[0].ToolID, State: state, Error: why}, m.event())
	}
	clear(o)
	return evs
}

// itemState is a finished item's tool state: denied when the user declined
// it, error when it failed.
func itemState(status string) agent.ToolState {
	switch status {
	case "declined":
		return agent.ToolDenied
	case "failed":
		return agent.ToolError
	}
	return agent.ToolCompleted
}

// decode is json.Unmarshal, leniently: a field of another type is left as
// decoded so far (agent.Decode); only a frame that is not JSON fails.
func decode(data []byte, v any) error {
	_, err := agent.Decode(data, v)
	return err
}

// exitResult is a done command's result part: its output, titled with its
// exit code when there is one; a non-zero code makes the call an error.
func exitResult(use *agent.Part, code *agent.Int, out string) *agent.Part {
	if code != nil && code.V != 0 {
		use.State = agent.ToolError
	}
	r := &agent.Part{Type: agent.PartToolResult, ToolID: use.ToolID, Content: agent.StringContent(out), IsError: use.State == agent.ToolError}
	if code != nil {
		r.Title = fmt.Sprintf("exit code %d", code.V)
	}
	return r
}

// callResult is a done MCP (or dynamic) tool call's result part: its
// result, or its error (which makes the call an error) when it has one.
func callResult(use *agent.Part, result, errRaw json.RawMessage) *agent.Part {
	content := result
	if len(errRaw) > 0 && string(errRaw) != "null" {
		content, use.State = errRaw, agent.ToolError
	}
	return &agent.Part{Type: agent.PartToolResult, ToolID: use.ToolID, Content: agent.StringContent(string(content)), IsError: use.State == agent.ToolError}
}

// textResult is a result part of plain text (a search's query, an image's
// path).
func textResult(use *agent.Part, text string) *agent.Part {
	return &agent.Part{Type: agent.PartToolResult, ToolID: use.ToolID, Content: agent.StringContent(text)}
}

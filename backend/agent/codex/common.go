package codex

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
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
	return agent.Event{Type: agent.EventMessage, Raw: append([]byte(nil), frame...), Message: &agent.Message{
		ID:       "codex-unknown-" + strconv.FormatUint(h.Sum64(), 16),
		Role:     agent.RoleSystem,
		Parts:    []agent.Part{{Type: agent.PartSystemStatus, Subtype: "unknown", Text: "Unhandled Codex " + what}},
		Metadata: map[string]any{"raw": string(frame)},
	}}
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
}

func (m *itemMessage) addRaw(frame []byte) {
	if len(m.raw) > 0 {
		m.raw = append(m.raw, '\n')
	}
	m.raw = append(m.raw, frame...)
}

func (m *itemMessage) event() agent.Event {
	c := m.msg
	c.Parts = append([]agent.Part(nil), m.msg.Parts...)
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
			if use.State == agent.ToolError {
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

package codex

import (
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// resultSuffix ends the id of the result message the normalizer makes of a
// turn/completed: "<turn id>:result".
const resultSuffix = ":result"

// ForkPoint says where a native fork of a Codex thread continuing from
// message upTo (of msgs, a task's stored messages in order) ends: the
// app-server's thread/fork keeps the turns up to lastTurnId, so the
// message must end a turn (only system messages come between it and the
// turn's result) and turn is that turn's id; "" when upTo ends the thread
// (the whole of it). ok is false elsewhere: a user message, or a message
// in the middle of a turn.
func ForkPoint(msgs []agent.Message, upTo string) (turn string, ok bool) {
	at := -1
	for i, m := range msgs {
		if m.ID == upTo {
			at = i
			break
		}
	}
	if at < 0 || msgs[at].Role == agent.RoleUser {
		return "", false
	}
	for _, m := range msgs[at:] {
		switch {
		case m.Role == agent.RoleResult && strings.HasSuffix(m.ID, resultSuffix):
			if lastResult(msgs, m.ID) {
				return "", true // the thread's end: all of it
			}
			return strings.TrimSuffix(m.ID, resultSuffix), true
		case m.ID == upTo || m.Role == agent.RoleSystem:
		default:
			return "", false
		}
	}
	return "", true // nothing but system messages follow
}

// lastResult reports whether only system or result messages follow
// message id.
func lastResult(msgs []agent.Message, id string) bool {
	after := false
	for _, m := range msgs {
		if after && m.Role != agent.RoleSystem && m.Role != agent.RoleResult {
			return false
		}
		after = after || m.ID == id
	}
	return true
}

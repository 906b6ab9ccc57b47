package opencode

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// msgPrefix starts every OpenCode message id (its Identifier "message"):
// the normalizer keeps them as agent.Message.ID for user and assistant
// messages; the ids it makes up itself (results "result-…", system
// notices) and the orchestrator's own user messages ("user-…", replaced by
// OpenCode's echo once it comes) have other forms.
const msgPrefix = "msg_"

// ForkPoint says where a native fork of an OpenCode session continuing
// from message upTo (of msgs, a task's stored messages in order) stops:
// before is the id of the first message of the session after upTo, which
// POST /session/{id}/fork (messageID) leaves out with everything after it;
// "" when none follows (the whole session). ok is false when the fork
// cannot be native there: upTo is not among msgs, is a user message
// OpenCode never echoed, or is a sub-agent's (another session).
func ForkPoint(msgs []agent.Message, upTo string) (before string, ok bool) {
	at := -1
	for i, m := range msgs {
		if m.ID == upTo {
			at = i
			break
		}
	}
	if at < 0 {
		return "", false
	}
	m := msgs[at]
	spoken := m.Role == agent.RoleUser || m.Role == agent.RoleAssistant
	if m.ParentToolUseID != "" || (spoken && !strings.HasPrefix(m.ID, msgPrefix)) {
		return "", false
	}
	for _, m := range msgs[at+1:] {
		if strings.HasPrefix(m.ID, msgPrefix) && m.ParentToolUseID == "" {
			return m.ID, true
		}
	}
	return "", true
}

// forkSession copies session id into a new session (POST
// /session/{id}/fork) and returns the new one (a Session). With before, the
// copy stops at that message (left out, as everything after it); OpenCode
// 1.18 copies the whole session when its messageID is not one of the
// session's, so the session's messages are checked first.
func (c *client) forkSession(ctx context.Context, id, before string) (json.RawMessage, error) {
	body := map[string]any{}
	if before != "" {
		if err := c.hasMessage(ctx, id, before); err != nil {
			return nil, err
		}
		body["messageID"] = before
	}
	var raw json.RawMessage
	err := c.do(ctx, http.MethodPost, "/session/"+url.PathEscape(id)+"/fork", body, &raw)
	return raw, err
}

// hasMessage fails unless message mid is one of session id's.
func (c *client) hasMessage(ctx context.Context, id, mid string) error {
	msgs, err := c.messages(ctx, id)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		var info struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(m.Info, &info) == nil && info.ID == mid {
			return nil
		}
	}
	return fmt.Errorf("the fork point %s is not a message of the session (%d messages)", mid, len(msgs))
}

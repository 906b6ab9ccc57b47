package tasks

import (
	"context"
	"slices"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
)

// Sessions is the orchestrator as a retry sees it.
type Sessions interface {
	Running() []string
	Stop(ctx context.Context, taskID string) error
	Messages(ctx context.Context, taskID string) ([]agent.Message, error)
	Resume(ctx context.Context, taskID string) error
	SendMessage(ctx context.Context, taskID, text string) error
}

// Retry sends an errored task's prompt again once its cause is fixed (the
// agent installed, signed in): the message its agent never received
// (orchestrator.MetaUndelivered: Resume sends it), else the last thing the
// user asked, else Resume. A live session that failed (say, not signed
// in) started without what fixed it: it is ended first, so the retry
// starts the agent afresh.
func Retry(ctx context.Context, o Sessions, taskID string) error {
	if slices.Contains(o.Running(), taskID) {
		if err := o.Stop(ctx, taskID); err != nil {
			return err
		}
	}
	msgs, err := o.Messages(ctx, taskID)
	if err != nil {
		return err
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != agent.RoleUser {
			continue
		}
		if v, _ := m.Metadata[orchestrator.MetaUndelivered].(bool); v {
			return o.Resume(ctx, taskID)
		}
		if text := userText(m); strings.TrimSpace(text) != "" {
			return o.SendMessage(ctx, taskID, text)
		}
	}
	return o.Resume(ctx, taskID)
}

// userText is the text of a message's text parts.
func userText(m agent.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type == agent.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

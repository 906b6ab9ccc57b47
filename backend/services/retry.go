package services

import (
	"slices"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
)

// Retry sends an errored task's prompt again once its cause is fixed (the
// agent installed, signed in): the message its agent never received, else
// the last thing the user asked.
func (s *SessionService) Retry(taskID string) error {
	if err := need("taskId", taskID); err != nil {
		return err
	}
	// A live session that failed (say, not signed in) started without
	// what fixed it: end it, so the retry starts the agent afresh.
	if slices.Contains(s.o.Running(), taskID) {
		if err := s.o.Stop(s.ctx, taskID); err != nil {
			return userErr(err)
		}
	}
	msgs, err := s.o.Messages(s.ctx, taskID)
	if err != nil {
		return userErr(err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != agent.RoleUser {
			continue
		}
		if v, _ := m.Metadata[orchestrator.MetaUndelivered].(bool); v {
			return userErr(s.o.Resume(s.ctx, taskID))
		}
		if text := userText(m); strings.TrimSpace(text) != "" {
			return userErr(s.o.SendMessage(s.ctx, taskID, text))
		}
	}
	return userErr(s.o.Resume(s.ctx, taskID))
}

func userText(m agent.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type == agent.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

package orchestrator

import (
	"context"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// transcriptMax bounds agent.Config.Transcript: the latest exchanges win.
const transcriptMax = 8 << 10

// transcript summarizes a task's stored conversation (user and assistant
// text, oldest first, the last transcriptMax bytes) for a backend that must
// start a new session when the old one cannot be resumed.
func (o *Orchestrator) transcript(ctx context.Context, taskID string) string {
	msgs, err := store.Messages(ctx, o.db.R, taskID)
	if err != nil {
		return ""
	}
	var lines []string
	for _, m := range msgs {
		var who string
		switch m.Role {
		case agent.RoleUser:
			who = "User: "
		case agent.RoleAssistant:
			who = "Assistant: "
		default:
			continue
		}
		var sb strings.Builder
		for _, p := range m.Parts {
			if p.Type == agent.PartText {
				sb.WriteString(p.Text)
			}
		}
		if t := strings.TrimSpace(sb.String()); t != "" {
			lines = append(lines, who+t)
		}
	}
	out := strings.Join(lines, "\n")
	if len(out) > transcriptMax {
		out = out[len(out)-transcriptMax:]
		if i := strings.IndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
	}
	return out
}

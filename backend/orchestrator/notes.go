package orchestrator

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/store"
)

func newID() string { return uuid.NewString() }

// title is "project · task" for a notification.
func (o *Orchestrator) title(taskID string) (string, string) {
	t, err := store.LoadTaskRun(context.Background(), o.db.R, taskID)
	if err != nil {
		return "Jean-Claude", taskID
	}
	name := t.Name
	if name == "" {
		name = firstLine(t.Prompt)
		if len(name) > 60 {
			name = name[:57] + "..."
		}
	}
	return t.ProjectName + " · " + name, name
}

// taskNote is a completion or error notification, in the app's status
// words (notify.Words): "Done: …", "Failed: …".
func (o *Orchestrator) taskNote(taskID string, kind notify.Kind, detail string) notify.Notification {
	title, name := o.title(taskID)
	_ = name // the title names the task
	word := notify.WordDone
	if kind == notify.KindError {
		word = notify.WordFailed
	}
	return notify.Notification{Kind: kind, TaskID: taskID, Key: notify.ResultKey(taskID, kind == notify.KindError),
		Title: title, Body: notify.Body(word, detail)}
}

// requestNote says what the agent waits for: "Bash wants to run: npm test".
func (o *Orchestrator) requestNote(taskID, kind string, req agent.Request) notify.Notification {
	title, _ := o.title(taskID)
	key := notify.RequestKey(taskID, req.RequestID)
	if kind == store.RequestQuestion {
		q := req.Question
		if q == "" && len(req.Questions) > 0 {
			q = req.Questions[0].Question
		}
		return notify.Notification{Kind: notify.KindQuestion, TaskID: taskID, Key: key, Title: title, Body: notify.Body(notify.WordWaiting, "Question: "+firstLine(q))}
	}
	what := PermissionSummary(req)
	if plan := planText(req); plan != "" {
		what = "Plan ready for approval: " + firstLine(strings.TrimLeft(strings.TrimSpace(plan), "# "))
	}
	return notify.Notification{Kind: notify.KindPermission, TaskID: taskID, Key: key, Title: title, Body: notify.Body(notify.WordWaiting, what)}
}

// planText is the plan a permission request asks to approve (Claude's
// ExitPlanMode, or any request whose input carries a "plan"), or "".
func planText(req agent.Request) string {
	var in map[string]any
	_ = json.Unmarshal(req.Input, &in)
	if p, ok := in["plan"].(string); ok {
		return p
	}
	return ""
}

// PermissionSummary says a permission request in one line.
func PermissionSummary(req agent.Request) string {
	var in map[string]any
	_ = json.Unmarshal(req.Input, &in)
	tool := req.ToolName
	if tool == "" {
		tool = "The agent"
	}
	if c, ok := in["command"].(string); ok && c != "" {
		return tool + " wants to run: " + firstLine(c)
	}
	for _, k := range []string{"file_path", "filePath", "path", "notebook_path"} {
		if p, ok := in[k].(string); ok && p != "" {
			return tool + " wants to use " + p
		}
	}
	if len(req.Patterns) > 0 {
		return tool + " wants permission for: " + strings.Join(req.Patterns, ", ")
	}
	if req.Description != "" {
		return tool + " wants permission: " + firstLine(req.Description)
	}
	return tool + " wants permission"
}

// sendNote sends n unless the window has focus or its kind is turned off
// ("notify.<kind>" = "false" in settings). It never blocks on delivery when
// the Notifier is asynchronous.
// focused is whether the window had focus when the event happened.
func (o *Orchestrator) sendNote(ctx context.Context, n notify.Notification, focused bool) {
	if o.notifier == nil || focused {
		return
	}
	v, ok, err := store.SettingValue(ctx, o.db.R, n.Kind.SettingKey())
	if err != nil {
		o.log.Warn("orchestrator: read notification setting", "err", err)
	}
	if !notify.Enabled(v, ok) {
		return
	}
	if err := o.notifier.Notify(ctx, n); err != nil {
		o.log.Warn("orchestrator: notify", "kind", n.Kind, "task", n.TaskID, "err", err)
	}
}

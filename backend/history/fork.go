// Package history is the history across every agent (issue 16): forking a
// task from any message and spawning sub-tasks (this file); the importer of
// the CLIs' on-disk sessions is backend/history/importer, the full-text
// search is store.Search over the index of migration 0070.
package history

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/store"
)

// ErrNoMessage: the fork point is not a message of the task.
var ErrNoMessage = errors.New("no such message in the task")

// partLimit caps each tool input or output in a seeded transcript.
const partLimit = 2000

// SeedPrompt renders the transcript up to and including message upTo as
// the first prompt of a new session (any backend): a fork where the CLI
// cannot resume at a message. instruction ends it ("" = continue).
func SeedPrompt(task store.Task, msgs []agent.Message, upTo, instruction string) (string, error) {
	end := -1
	for i, m := range msgs {
		if m.ID == upTo {
			end = i
			break
		}
	}
	if end < 0 {
		return "", fmt.Errorf("history: message %s of task %s: %w", upTo, task.ID, ErrNoMessage)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "This conversation continues an earlier one (task %q, run by %s). Its transcript up to the point to continue from:\n\n<transcript>\n",
		task.Name, task.AgentBackend)
	for _, m := range msgs[:end+1] {
		writeMessage(&b, m)
	}
	b.WriteString("</transcript>\n\n")
	if instruction = strings.TrimSpace(instruction); instruction == "" {
		instruction = "Continue from there."
	}
	b.WriteString(instruction)
	return b.String(), nil
}

func writeMessage(b *strings.Builder, m agent.Message) {
	var lines []string
	for _, p := range m.Parts {
		switch p.Type {
		case agent.PartText:
			lines = append(lines, p.Text)
		case agent.PartToolUse:
			lines = append(lines, fmt.Sprintf("[tool %s: %s]", p.ToolName, clip(string(p.Input))))
		case agent.PartToolResult:
			lines = append(lines, fmt.Sprintf("[tool result: %s]", clip(p.TextContent())))
		case agent.PartFile:
			lines = append(lines, "[file "+p.Path+"]")
		}
	}
	if m.Role == agent.RoleResult && m.Result != "" && len(lines) == 0 {
		lines = append(lines, m.Result)
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "## %s\n%s\n\n", m.Role, strings.Join(lines, "\n"))
}

func clip(s string) string {
	if r := []rune(s); len(r) > partLimit {
		return string(r[:partLimit]) + "…"
	}
	return s
}

// ForkInput asks for a fork of TaskID from MessageID.
type ForkInput struct {
	TaskID, MessageID string
	// Backend runs the fork ("" = the task's backend); Prompt is what to do
	// from there ("" = continue).
	Backend agent.BackendType
	Prompt  string
	// CanFork, when set, says whether a backend outside NativeFork forks
	// its sessions from their end: an ACP agent that advertised
	// session/fork (its Info says Capabilities.Fork).
	CanFork func(agent.BackendType) bool
}

// NativeFork lists the backends whose CLI can fork a session itself
// (agent.Config.ForkSession): Claude Code's --resume ID --fork-session,
// OpenCode's POST /session/{id}/fork, the Codex app-server's thread/fork.
// Claude Code forks from the session's end only (2.1.330 has no
// resume-at-message option); OpenCode and Codex where ForkAt says.
var NativeFork = map[agent.BackendType]bool{agent.BackendClaudeCode: true, agent.BackendOpenCode: true, agent.BackendCodex: true}

// ForkAt lists the backends of NativeFork that fork from a message before
// the session's end: each says whether it can fork natively at that
// message and where the copy ends (agent.Config.ForkPoint; "" = the whole
// session). OpenCode: at any message of its session; Codex: at the end of
// any turn (thread/fork lastTurnId).
var ForkAt = map[agent.BackendType]func(msgs []agent.Message, upTo string) (point string, ok bool){
	agent.BackendOpenCode: opencode.ForkPoint,
	agent.BackendCodex:    codex.ForkPoint,
}

// Fork creates a task (in the task's project) that continues from the
// message, linked to the task as a fork. Natively when it can (the fork
// runs on the same backend, whose session the task has, and nativePoint
// says so): the new task then resumes a copy of the session that ends with
// the message (prompt: in.Prompt, or "Continue from there."). Otherwise a
// new session seeded with the transcript up to the message. It is created,
// not started; native says which.
func Fork(ctx context.Context, db *store.DB, in ForkInput) (t store.Task, native bool, err error) {
	parent, err := store.GetTask(ctx, db.R, in.TaskID)
	if err != nil {
		return store.Task{}, false, err
	}
	msgs, err := store.Messages(ctx, db.R, in.TaskID)
	if err != nil {
		return store.Task{}, false, err
	}
	prompt, err := SeedPrompt(parent, msgs, in.MessageID, in.Prompt)
	if err != nil {
		return store.Task{}, false, err
	}
	name := "Fork of " + cmpOr(parent.Name, "task")
	point, native := "", false
	if parent.SessionID != "" && (in.Backend == "" || in.Backend == parent.AgentBackend) {
		point, native = nativePoint(parent.AgentBackend, msgs, in)
	}
	if native {
		prompt = cmpOr(strings.TrimSpace(in.Prompt), "Continue from there.")
	}
	t, err = child(ctx, db, parent, in.Backend, name, prompt, store.LinkFork, in.MessageID)
	if err != nil || !native {
		return t, native, err
	}
	if err := store.SetForkSession(ctx, db.W, t.ID, parent.SessionID, point); err != nil {
		return store.Task{}, false, err
	}
	t.SessionID, t.ForkSession, t.ForkPoint = parent.SessionID, true, point
	return t, true, nil
}

// nativePoint says whether backend b forks its session natively from
// message in.MessageID of msgs, and where the copy ends (point; "" = the
// whole session): where ForkAt says, else (NativeFork, in.CanFork) only
// when the message ends the session.
func nativePoint(b agent.BackendType, msgs []agent.Message, in ForkInput) (point string, ok bool) {
	if at := ForkAt[b]; at != nil {
		return at(msgs, in.MessageID)
	}
	forks := NativeFork[b] || (in.CanFork != nil && in.CanFork(b))
	return "", forks && endsSession(msgs, in.MessageID)
}

// endsSession reports whether only result or system messages follow the
// message id in msgs.
func endsSession(msgs []agent.Message, id string) bool {
	for i, m := range msgs {
		if m.ID != id {
			continue
		}
		for _, after := range msgs[i+1:] {
			if after.Role != agent.RoleResult && after.Role != agent.RoleSystem {
				return false
			}
		}
		return true
	}
	return false
}

// Spawn creates a sub-task of the task (same project, any backend) with
// prompt, linked both ways. It is created, not started.
func Spawn(ctx context.Context, db *store.DB, taskID string, backend agent.BackendType, prompt string) (store.Task, error) {
	parent, err := store.GetTask(ctx, db.R, taskID)
	if err != nil {
		return store.Task{}, err
	}
	if strings.TrimSpace(prompt) == "" {
		return store.Task{}, errors.New("history: a sub-task needs a prompt")
	}
	return child(ctx, db, parent, backend, "", prompt, store.LinkSpawn, "")
}

func child(ctx context.Context, db *store.DB, parent store.Task, backend agent.BackendType, name, prompt, kind, messageID string) (store.Task, error) {
	model := ""
	if backend == "" || backend == parent.AgentBackend {
		backend, model = parent.AgentBackend, parent.Model
	}
	t, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: parent.ProjectID, Name: name, Prompt: prompt,
		AgentBackend: backend, Model: model, InteractionMode: parent.InteractionMode})
	if err != nil {
		return store.Task{}, err
	}
	if err := store.SetParent(ctx, db.W, t.ID, parent.ID, kind, messageID); err != nil {
		return store.Task{}, err
	}
	return t, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/history"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Tool names (Claude Code shows them as mcp__jean-claude__<name>).
const (
	ToolReportProgress = "report_progress"
	ToolAskUser        = "ask_user"
	ToolCreateSubtask  = "create_subtask"
	ToolGetTaskResult  = "get_task_result"
	ToolListTasks      = "list_tasks"
)

// ToolNames are every tool of the server.
var ToolNames = []string{ToolReportProgress, ToolAskUser, ToolCreateSubtask, ToolGetTaskResult, ToolListTasks}

// ProgressIn is report_progress's input.
type ProgressIn struct {
	Message string `json:"message" jsonschema:"what you did or are doing, one or two sentences shown to the user on the task"`
}

// AskIn is ask_user's input.
type AskIn struct {
	Question string   `json:"question" jsonschema:"the question, shown to the user as a question card"`
	Options  []string `json:"options,omitempty" jsonschema:"answers the user may pick from (they may also type their own)"`
	Header   string   `json:"header,omitempty" jsonschema:"a short title for the question"`
}

// SubtaskIn is create_subtask's input.
type SubtaskIn struct {
	Prompt  string `json:"prompt" jsonschema:"what the sub-task's agent should do"`
	Backend string `json:"backend,omitempty" jsonschema:"the agent to run it (e.g. claude-code, opencode, gemini, codex); default: this task's agent"`
	Wait    *bool  `json:"wait,omitempty" jsonschema:"wait for the sub-task to finish and return its result (default true)"`
}

// TaskResult is a task's outcome: get_task_result's and create_subtask's result.
type TaskResult struct {
	TaskID  string    `json:"taskId"`
	Name    string    `json:"name"`
	Backend string    `json:"backend"`
	Status  string    `json:"status"`
	Reason  string    `json:"reason,omitempty"`
	Result  string    `json:"result,omitempty"`
	Diff    *TaskDiff `json:"diff,omitempty"`
}

// TaskDiff is a task's work against its base commit.
type TaskDiff struct {
	Available bool       `json:"available"`
	Reason    string     `json:"reason,omitempty"`
	Added     int        `json:"added"`
	Removed   int        `json:"removed"`
	Files     []FileDiff `json:"files,omitempty"`
}

// FileDiff is one changed file.
type FileDiff struct {
	Path    string `json:"path"`
	Status  string `json:"status"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Patch   string `json:"patch,omitempty"`
}

// ResultIn is get_task_result's input.
type ResultIn struct {
	TaskID string `json:"taskId" jsonschema:"the task's id (see list_tasks)"`
}

// ListIn is list_tasks's input (none).
type ListIn struct{}

// TaskInfo is one task of list_tasks.
type TaskInfo struct {
	TaskID   string `json:"taskId"`
	Name     string `json:"name"`
	Backend  string `json:"backend"`
	Status   string `json:"status"`
	ParentID string `json:"parentId,omitempty"`
	This     bool   `json:"this,omitempty"`
}

// ListOut is list_tasks's result.
type ListOut struct {
	Tasks []TaskInfo `json:"tasks"`
}

func (s *Server) addTools(srv *mcp.Server, taskID string) {
	t := tools{s: s, taskID: taskID}
	mcp.AddTool(srv, &mcp.Tool{Name: ToolReportProgress, Annotations: &mcp.ToolAnnotations{Title: "Report progress"},
		Description: "Report your progress to the user: the message is shown on the task in Jean-Claude."}, t.progress)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolAskUser, Annotations: &mcp.ToolAnnotations{Title: "Ask the user"},
		Description: "Ask the user a question and wait for the answer (shown as a question card on the task)."}, t.ask)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolCreateSubtask, Annotations: &mcp.ToolAnnotations{Title: "Create a sub-task"},
		Description: "Start a sub-task in this project on another agent (or this one) and, by default, wait for its result and diff." +
			t.backendsHint()}, t.subtask)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolGetTaskResult, Annotations: &mcp.ToolAnnotations{Title: "Get a task's result", ReadOnlyHint: true},
		Description: "Read another task of this project: its status, final result and diff."}, t.result)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolListTasks, Annotations: &mcp.ToolAnnotations{Title: "List tasks", ReadOnlyHint: true},
		Description: "List this project's tasks (id, name, agent, status), newest first."}, t.list)
}

// tools are one task's tools.
type tools struct {
	s      *Server
	taskID string
}

func (t tools) backendsHint() string {
	if t.s.opt.Backends == nil {
		return ""
	}
	return " Agents: " + strings.Join(t.s.opt.Backends(), ", ") + "."
}

// progress and ask answer in plain text (no structured output: Claude Code
// hands the model the structured output when there is one).
func (t tools) progress(ctx context.Context, _ *mcp.CallToolRequest, in ProgressIn) (*mcp.CallToolResult, any, error) {
	if _, err := t.s.opt.Orchestrator.AddProgress(ctx, t.taskID, in.Message); err != nil {
		return nil, nil, err
	}
	return text("Reported."), nil, nil
}

func (t tools) ask(ctx context.Context, _ *mcp.CallToolRequest, in AskIn) (*mcp.CallToolResult, any, error) {
	q := strings.TrimSpace(in.Question)
	if q == "" {
		return nil, nil, errors.New("the question is empty")
	}
	opts := make([]agent.QuestionOption, 0, len(in.Options))
	for i, o := range in.Options {
		opts = append(opts, agent.QuestionOption{ID: fmt.Sprint(i), Label: o})
	}
	req := agent.Request{ToolName: Name + " " + ToolAskUser, Question: q, Options: opts,
		Questions: []agent.Question{{Question: q, Header: in.Header, Options: opts}}}
	answers, err := t.s.opt.Orchestrator.AskUser(ctx, t.taskID, req)
	if err != nil {
		return nil, nil, err
	}
	var parts []string
	for _, a := range answers {
		parts = append(parts, a...)
	}
	ans := strings.Join(parts, ", ")
	if ans == "" {
		ans = "(no answer)"
	}
	return text(ans), nil, nil
}

func (t tools) subtask(ctx context.Context, _ *mcp.CallToolRequest, in SubtaskIn) (*mcp.CallToolResult, TaskResult, error) {
	backend := strings.TrimSpace(in.Backend)
	if backend != "" && t.s.opt.Backends != nil && !slices.Contains(t.s.opt.Backends(), backend) {
		return nil, TaskResult{}, fmt.Errorf("unknown agent %q (one of: %s)", backend, strings.Join(t.s.opt.Backends(), ", "))
	}
	child, err := history.Spawn(ctx, t.s.opt.DB, t.taskID, agent.BackendType(backend), in.Prompt)
	if err != nil {
		return nil, TaskResult{}, err
	}
	if err := t.s.opt.Orchestrator.Start(ctx, child.ID); err != nil {
		return nil, TaskResult{}, fmt.Errorf("start sub-task %s: %w", child.ID, err)
	}
	if in.Wait != nil && !*in.Wait {
		res, err := t.s.result(ctx, child.ID)
		return nil, res, err
	}
	if err := t.s.waitDone(ctx, child.ID); err != nil {
		return nil, TaskResult{}, err
	}
	res, err := t.s.result(ctx, child.ID)
	return nil, res, err
}

func (t tools) result(ctx context.Context, _ *mcp.CallToolRequest, in ResultIn) (*mcp.CallToolResult, TaskResult, error) {
	if err := t.s.sameProject(ctx, t.taskID, in.TaskID); err != nil {
		return nil, TaskResult{}, err
	}
	res, err := t.s.result(ctx, in.TaskID)
	return nil, res, err
}

func (t tools) list(ctx context.Context, _ *mcp.CallToolRequest, _ ListIn) (*mcp.CallToolResult, ListOut, error) {
	me, err := store.GetTask(ctx, t.s.opt.DB.R, t.taskID)
	if err != nil {
		return nil, ListOut{}, err
	}
	all, err := store.ListTasks(ctx, t.s.opt.DB.R, me.ProjectID)
	if err != nil {
		return nil, ListOut{}, err
	}
	out := ListOut{Tasks: []TaskInfo{}}
	for _, x := range all {
		parent, _, _ := store.TaskLinks(ctx, t.s.opt.DB.R, x.ID)
		info := TaskInfo{TaskID: x.ID, Name: x.Name, Backend: string(x.AgentBackend), Status: string(x.Status), This: x.ID == t.taskID}
		if parent != nil {
			info.ParentID = parent.TaskID
		}
		out.Tasks = append(out.Tasks, info)
	}
	return nil, out, nil
}

// sameProject keeps a task's tools inside its project.
func (s *Server) sameProject(ctx context.Context, me, other string) error {
	a, err := store.GetTask(ctx, s.opt.DB.R, me)
	if err != nil {
		return err
	}
	b, err := store.GetTask(ctx, s.opt.DB.R, other)
	if err != nil || a.ProjectID != b.ProjectID {
		return fmt.Errorf("no task %q in this project", other)
	}
	return nil
}

// final reports a status a task rests in until someone acts.
func final(status store.TaskStatus) bool {
	switch status {
	case store.StatusCompleted, store.StatusErrored, store.StatusInterrupted:
		return true
	}
	return false
}

// waitDone waits until the task's turn ended (completed, errored or
// interrupted) or ctx is done.
func (s *Server) waitDone(ctx context.Context, taskID string) error {
	tick := time.NewTicker(s.opt.Poll)
	defer tick.Stop()
	for {
		t, err := store.GetTask(ctx, s.opt.DB.R, taskID)
		if err != nil {
			return err
		}
		if final(t.Status) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for sub-task %s: %w", taskID, ctx.Err())
		case <-tick.C:
		}
	}
}

// result reads a task's status, final text and diff.
func (s *Server) result(ctx context.Context, taskID string) (TaskResult, error) {
	t, err := store.GetTask(ctx, s.opt.DB.R, taskID)
	if err != nil {
		return TaskResult{}, err
	}
	msgs, err := store.Messages(ctx, s.opt.DB.R, taskID)
	if err != nil {
		return TaskResult{}, err
	}
	out := TaskResult{TaskID: t.ID, Name: t.Name, Backend: string(t.AgentBackend), Status: string(t.Status),
		Reason: t.StatusReason, Result: finalText(msgs)}
	if s.opt.Diff != nil {
		d, err := s.opt.Diff(ctx, taskID)
		if err != nil {
			d = TaskDiff{Reason: err.Error()}
		}
		out.Diff = &d
	}
	return out, nil
}

// finalText is the last turn's result, else the last assistant text.
func finalText(msgs []agent.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role == agent.RoleResult && m.Result != "" {
			return m.Result
		}
		if m.Role != agent.RoleAssistant {
			continue
		}
		var b []string
		for _, p := range m.Parts {
			if p.Type == agent.PartText && strings.TrimSpace(p.Text) != "" {
				b = append(b, p.Text)
			}
		}
		if len(b) > 0 {
			return strings.Join(b, "\n")
		}
	}
	return ""
}

// text is a result with one text content (a nil result lets the SDK send
// the structured output as JSON text).
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

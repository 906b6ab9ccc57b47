package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// ExecFormatName is the raw format of `codex exec --json` output.
const ExecFormatName = "codex"

// ExecNormalizer turns `codex exec --json` lines into normalized events.
// Each item becomes one message whose id is "<thread_id>:<item id>", re-emitted
// whole as item.started / item.updated / item.completed arrive; its Raw is
// the thread.started line followed by the item's lines.
//
// Mapping:
//
//	thread.started {thread_id}       session-id
//	turn.started                     nothing (counts turns)
//	item agent_message               assistant message, one text part; an item.updated
//	                                 that only extends the text is a delta event
//	item reasoning                   assistant message, one reasoning part
//	item command_execution           tool-use {toolName "command_execution", kind execute,
//	                                 input {command}}; when done a tool-result {content =
//	                                 aggregated_output, title "exit code N", isError when
//	                                 the exit code is not 0 or status failed/declined}
//	item file_change                 tool-use {toolName "file_change", kind edit, input
//	                                 {changes}}; when done a tool-result listing the changes,
//	                                 with a write structured result {filePath, operation
//	                                 create (add) | update} when one file changed
//	item todo_list                   tool-use {toolName "todo_list", kind todo} + tool-result
//	                                 with a todo structured result {oldTodos, newTodos}
//	                                 (completed → "completed", else "pending")
//	item mcp_tool_call               tool-use {toolName "<server>/<tool>", input arguments}
//	                                 + tool-result (result, or error)
//	item web_search                  tool-use {toolName "web_search", kind fetch, input {query}}
//	item error                       system message, system-status {subtype "error",
//	                                 status "error", text = message} (a warning)
//	item of another type             system message with a system-status part, raw kept
//	tool states                      item.started/updated → running; completed → completed,
//	                                 or error (status failed/declined, non-zero exit) +
//	                                 tool-state-update on every change
//	turn.completed / turn.failed     first, tool items still running: tool-state-update
//	  (first)                        cancelled {error = the reason}, the message again
//	turn.completed {usage}           result message "<thread>:turn<N>:result" {usage: input,
//	                                 output, cacheRead = cached_input, reasoning} + complete
//	                                 (usage is cumulative over a resumed thread)
//	turn.failed {error}              result message (isError) + error {fatal} + complete
//	                                 {isError}
//	error "Reconnecting... n/m (…)"  rate-limit {attempt n, maxRetries m, error}
//	error other                      error {fatal: false} (turn.failed follows when fatal)
//	unknown type                     quiet notice (agent.QuietNotice), raw kept
//	malformed line                   error {fatal: false, raw: the line}
//
// Item ids restart at item_0 in each `codex exec` run, so two runs of one
// thread (exec resume) share message ids; the live backend uses the
// app-server, whose item ids are unique.
type ExecNormalizer struct {
	threadID string
	started  []byte // the thread.started line
	turns    int
	turnRaw  []byte
	lastText string
	items    map[string]*itemMessage
	open     openTools // tool items not in a final state
	todos    []agent.TodoItem
	before   map[string][]agent.TodoItem // the todos before each todo_list item
}

// NewExecNormalizer returns a fresh exec normalizer.
func NewExecNormalizer() *ExecNormalizer {
	return &ExecNormalizer{items: map[string]*itemMessage{}, before: map[string][]agent.TodoItem{}, open: openTools{}}
}

var _ agent.Normalizer = (*ExecNormalizer)(nil)

// Flush implements agent.Normalizer.
func (n *ExecNormalizer) Flush() []agent.Event { return nil }

func (n *ExecNormalizer) prefix() []byte {
	if n.started == nil {
		return nil
	}
	return bytes.Clone(n.started)
}

func (n *ExecNormalizer) addTurnRaw(frame []byte) { n.turnRaw = agent.AppendFrame(n.turnRaw, frame) }

// Feed implements agent.Normalizer.
func (n *ExecNormalizer) Feed(frame []byte) []agent.Event {
	var e execEvent
	if err := decode(frame, &e); err != nil {
		return []agent.Event{malformed(frame, err)}
	}
	switch e.Type {
	case "thread.started":
		n.threadID = e.ThreadID
		n.started = bytes.Clone(frame)
		return []agent.Event{{Type: agent.EventSessionID, SessionID: e.ThreadID}}
	case "turn.started":
		n.turns++
		n.turnRaw = n.prefix()
		n.addTurnRaw(frame)
		n.lastText = ""
		return nil
	case "item.started", "item.updated", "item.completed":
		return n.item(frame, e.Item, e.Type == "item.completed")
	case "turn.completed", "turn.failed":
		return n.turnEnd(frame, &e)
	case "error":
		if ev, ok := retryEvent(e.Message); ok {
			return []agent.Event{ev}
		}
		return []agent.Event{{Type: agent.EventError, Error: errorText(e.Message), Raw: bytes.Clone(frame)}}
	}
	return []agent.Event{unknownMessage(frame, "exec event "+e.Type)}
}

func (n *ExecNormalizer) item(frame []byte, raw json.RawMessage, done bool) []agent.Event {
	var it execItem
	if err := decode(raw, &it); err != nil || it.ID == "" {
		if err == nil {
			err = fmt.Errorf("item without id")
		}
		return []agent.Event{malformed(frame, err)}
	}
	m := n.items[it.ID]
	if m == nil {
		m = &itemMessage{raw: n.prefix()}
		m.msg = agent.Message{ID: n.threadID + ":" + it.ID, Role: agent.RoleAssistant}
		n.items[it.ID] = m
	}
	m.addRaw(frame)
	if evs, ok := n.content(m, frame, &it, done); ok {
		return evs
	}
	use := agent.Part{Type: agent.PartToolUse, ToolID: it.ID, ToolName: it.Type, State: agent.ToolRunning}
	if done {
		use.State = itemState(it.Status)
	}
	result, ok := n.tool(&use, &it, done)
	if !ok {
		delete(n.items, it.ID)
		return []agent.Event{unknownMessage(frame, "item type "+it.Type)}
	}
	return n.open.track(m, m.toolUpdate(use, result))
}

// content maps the items that are not tool calls: the agent's text, its
// reasoning (both streamed as changes until done), an error. It reports
// false for any other item.
func (n *ExecNormalizer) content(m *itemMessage, frame []byte, it *execItem, done bool) ([]agent.Event, bool) {
	switch it.Type {
	case "agent_message":
		m.msg.Parts = []agent.Part{{Type: agent.PartText, Text: it.Text}}
		if done {
			n.lastText = it.Text
			n.addTurnRaw(frame)
		}
	case "reasoning":
		m.msg.Parts = []agent.Part{{Type: agent.PartReasoning, Text: it.Text}}
	case "error":
		m.msg.Role = agent.RoleSystem
		m.msg.Parts = []agent.Part{{Type: agent.PartSystemStatus, Subtype: "error", Status: "error", Text: it.Message}}
		return []agent.Event{m.event()}, true
	default:
		return nil, false
	}
	if done {
		return []agent.Event{m.event()}, true
	}
	return m.change(frame), true
}

// tool fills use for a tool item and returns its result part: once the
// item is done, or at once for a todo list (each version is its own
// result). It reports false for an item type it does not know.
func (n *ExecNormalizer) tool(use *agent.Part, it *execItem, done bool) (*agent.Part, bool) {
	var result func() *agent.Part
	switch it.Type {
	case "command_execution":
		use.Kind, use.Input = agent.ToolExecute, mustJSON(map[string]string{"command": it.Command})
		result = func() *agent.Part { return exitResult(use, it.ExitCode, it.AggregatedOutput) }
	case "file_change":
		use.Kind, use.Input = agent.ToolEdit, mustJSON(map[string]json.RawMessage{"changes": it.Changes})
		result = func() *agent.Part { return execFileChangeResult(use, it) }
	case "todo_list":
		use.Kind, use.Input = agent.ToolTodo, mustJSON(map[string]any{"items": it.Items})
		return n.todoResult(use, it), true
	case "mcp_tool_call":
		use.ToolName, use.Kind, use.Input = it.Server+"/"+it.Tool, agent.ToolOther, it.Arguments
		result = func() *agent.Part { return callResult(use, it.Result, it.Error) }
	case "web_search":
		use.Kind, use.Input = agent.ToolFetch, mustJSON(map[string]string{"query": it.Query})
		result = func() *agent.Part { return textResult(use, it.Query) }
	default:
		return nil, false
	}
	if !done {
		return nil, true
	}
	return result(), true
}

// execFileChangeResult is a done file_change's result: a line per file
// and, for one file changed, its write.
func execFileChangeResult(use *agent.Part, it *execItem) *agent.Part {
	var changes []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	}
	_ = decode(it.Changes, &changes)
	lines := make([]string, len(changes))
	for i, c := range changes {
		lines[i] = c.Kind + " " + c.Path
	}
	failed := use.State == agent.ToolError
	r := &agent.Part{Type: agent.PartToolResult, ToolID: it.ID, Content: agent.StringContent(strings.Join(lines, "\n")), IsError: failed}
	if len(changes) == 1 && !failed {
		op := map[string]string{"add": "create", "update": "update"}[changes[0].Kind]
		r.StructuredResult = &agent.StructuredResult{Kind: agent.StructuredWrite, FilePath: changes[0].Path, Operation: op}
	}
	return r
}

// todoResult is a todo_list's result: the list now against the list
// before this item's first version.
func (n *ExecNormalizer) todoResult(use *agent.Part, it *execItem) *agent.Part {
	todos := make([]agent.TodoItem, len(it.Items))
	for i, t := range it.Items {
		todos[i] = agent.TodoItem{Content: t.Text, Status: "pending"}
		if t.Completed {
			todos[i].Status = "completed"
		}
	}
	old, ok := n.before[it.ID]
	if !ok {
		old = n.todos
		n.before[it.ID] = old
	}
	n.todos = todos
	return &agent.Part{Type: agent.PartToolResult, ToolID: use.ToolID, Content: agent.StringContent(fmt.Sprintf("%d todos", len(todos))),
		StructuredResult: &agent.StructuredResult{Kind: agent.StructuredTodo, OldTodos: old, NewTodos: todos}}
}

func (n *ExecNormalizer) turnEnd(frame []byte, e *execEvent) []agent.Event {
	if n.turnRaw == nil {
		n.turnRaw = n.prefix()
	}
	n.addTurnRaw(frame)
	closing := n.open.close(frame, agent.ToolCancelled, "the turn ended ("+e.Type+") before the tool finished")
	turns := n.turns
	if turns == 0 {
		turns = 1
	}
	res := &agent.Result{Text: n.lastText, Reason: "completed"}
	if u := e.Usage; u != nil {
		res.Usage = &agent.TokenUsage{InputTokens: u.InputTokens.V, OutputTokens: u.OutputTokens.V, CacheReadTokens: u.CachedInputTokens.V,
			CacheCreationTokens: u.CacheWriteInputTokens.V, ReasoningTokens: u.ReasoningOutputTokens.V}
	}
	var evs []agent.Event
	if e.Type == "turn.failed" {
		res.IsError, res.Reason = true, "failed"
		msg := "turn failed"
		if e.Error != nil {
			msg = errorText(e.Error.Message)
		}
		if res.Text == "" {
			res.Text = msg
		}
		evs = append(evs, agent.Event{Type: agent.EventError, Error: msg, Fatal: true})
	}
	msg := &agent.Message{ID: fmt.Sprintf("%s:turn%d:result", n.threadID, turns), Role: agent.RoleResult, Parts: []agent.Part{},
		Result: agent.ResultText(res), IsError: res.IsError, Usage: res.Usage}
	raw := n.turnRaw[:len(n.turnRaw):len(n.turnRaw)]
	n.turnRaw = nil
	return append(append(append(closing, agent.Event{Type: agent.EventMessage, Message: msg, Raw: raw}), evs...), agent.Complete(res))
}

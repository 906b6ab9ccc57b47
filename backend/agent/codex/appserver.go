package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// AppServerFormatName is the raw format of `codex app-server` traffic:
// JSON-RPC messages, one per line, in both directions.
const AppServerFormatName = "codex-app-server"

// AppServerNormalizer turns `codex app-server` JSON-RPC messages (what the
// server wrote and what the client sent) into normalized events. Each thread
// item becomes one message whose id is the item id (unique in a thread),
// re-emitted whole as its frames arrive; Raw is the item's frames.
//
// Mapping:
//
//	result {thread{id, model}}               session-id (thread/start, thread/resume)
//	thread/started                           session-id (once per thread)
//	turn/started                             nothing (usage is summed per turn from here)
//	item userMessage                         user message {text parts}
//	item agentMessage + agentMessage/delta   assistant message, one text part: the item
//	                                         (or the first delta) emits it whole, each
//	                                         next delta is a delta event {part 0, text},
//	                                         Raw = the frame; item/completed whole again
//	item reasoning + reasoning/*Delta        the same with one reasoning part (field
//	                                         reasoning; summary, then content)
//	item plan + plan/delta                   the same, one text part
//	item commandExecution                    tool-use {toolName "commandExecution", kind
//	                                         execute, input {command, cwd, commandActions}};
//	                                         done: tool-result {content = aggregatedOutput,
//	                                         title "exit code N"; isError on failed/declined
//	                                         or a non-zero exit}; a declined item's state
//	                                         is denied, a failed one's error
//	item fileChange                          tool-use {toolName "fileChange", kind edit, input
//	                                         {changes}}; done: tool-result with a write
//	                                         structured result for the first file {filePath,
//	                                         content (added file), structuredPatch (update),
//	                                         operation create|update}
//	item mcpToolCall / dynamicToolCall       tool-use {toolName "<server>/<tool>" | tool,
//	                                         input arguments} + tool-result
//	item webSearch                           tool-use kind fetch {query}
//	item imageView                           tool-use kind read {path}
//	item collabAgentToolCall, subAgentActivity tool-use kind sub-agent
//	item contextCompaction                   system message with a compact part
//	item other                               system message with a system-status part, raw kept
//	item/commandExecution/requestApproval,
//	item/fileChange/requestApproval          the item's tool part goes pending +
//	                                         tool-state-update + permission-request
//	                                         {requestId: itemId, permissionOptions: accept
//	                                         (allow_once), acceptForSession (allow_always),
//	                                         decline (reject_once), cancel (reject_always)}
//	turn/plan/updated {plan}                 assistant message "<turn>:plan": tool-use "plan"
//	                                         (kind todo) + todo structured result
//	thread/tokenUsage/updated                summed (last) into the turn's usage; the context
//	                                         window goes to the result's modelUsage
//	turn/completed (first)                   every tool item not in a final state: tool-state-
//	                                         update cancelled (interrupted when the turn
//	                                         was) {error = the reason} and its message again
//	                                         with that state, metadata.toolErrors[toolId]
//	turn/completed {turn{status, error}}     result message "<turn>:result" {last agent text,
//	                                         usage, durationMs} + complete {reason: status,
//	                                         interrupted when "interrupted", isError when
//	                                         "failed"}; a failed turn also gives error {fatal}
//	error {error, willRetry}                 willRetry: rate-limit {error}; else error
//	                                         {fatal: false} (turn/completed failed follows)
//	error response to a client request       error {fatal for thread/* and turn/start}
//	status, rate-limit, diff, read-state,
//	  deprecation, remote-control and other
//	  bookkeeping notifications, client
//	  requests and replies                   nothing (the frames are kept raw)
//	unknown method                           quiet notice (agent.QuietNotice), raw kept
//	every frame                              decoded field by field (agent.Int numbers):
//	                                         an odd value degrades its field only
//	malformed line                           error {fatal: false, raw: the line}
type AppServerNormalizer struct {
	threadID    string
	announced   map[string]bool
	model       string
	threadFrame []byte            // the frame that named the model, first in a result's Raw
	outReq      map[string]string // id → method of client requests
	items       map[string]*itemMessage
	itemData    map[string]*appItem
	open        openTools // tool items not in a final state
	turnID      string
	turnRaw     []byte
	lastText    string
	usage       *agent.TokenUsage
	window      int64
	todos       []agent.TodoItem
}

// NewAppServerNormalizer returns a fresh app-server normalizer.
func NewAppServerNormalizer() *AppServerNormalizer {
	return &AppServerNormalizer{announced: map[string]bool{}, outReq: map[string]string{}, items: map[string]*itemMessage{}, itemData: map[string]*appItem{}, open: openTools{}}
}

var _ agent.Normalizer = (*AppServerNormalizer)(nil)

// Flush implements agent.Normalizer.
func (n *AppServerNormalizer) Flush() []agent.Event { return nil }

// serverRequests are the requests the server sends the client.
var serverRequests = map[string]bool{
	"item/commandExecution/requestApproval": true, "item/fileChange/requestApproval": true,
	"item/tool/requestUserInput": true, "mcpServer/elicitation/request": true,
	"item/permissions/requestApproval": true, "item/tool/call": true,
	"account/chatgptAuthTokens/refresh": true, "attestation/generate": true,
	"applyPatchApproval": true, "execCommandApproval": true,
}

// ignored are notifications with nothing for the transcript.
var ignored = map[string]bool{
	"thread/status/changed": true, "account/rateLimits/updated": true, "turn/diff/updated": true,
	"thread/readState/changed": true, "deprecationNotice": true, "remoteControl/status/changed": true,
	"serverRequest/resolved": true, "item/reasoning/summaryPartAdded": true, "initialized": true,
	"thread/settings/updated": true, "mcpServer/startupStatus/updated": true, "account/updated": true,
	"skills/changed": true, "app/list/updated": true, "item/commandExecution/outputDelta": true,
	"item/fileChange/outputDelta": true, "item/fileChange/patchUpdated": true, "fs/changed": true,
	"item/commandExecution/terminalInteraction": true, "item/mcpToolCall/progress": true,
}

// Feed implements agent.Normalizer.
func (n *AppServerNormalizer) Feed(frame []byte) []agent.Event {
	var m rpcMessage
	if err := decode(frame, &m); err != nil {
		return []agent.Event{malformed(frame, err)}
	}
	id := string(m.ID)
	if m.Method != "" && len(m.ID) > 0 && !serverRequests[m.Method] {
		// a client request
		n.outReq[id] = m.Method
		return nil
	}
	if m.Method == "" {
		return n.response(frame, &m, id)
	}
	switch m.Method {
	case "thread/started":
		var p threadResult
		_ = decode(m.Params, &p)
		return n.thread(bytes.Clone(frame), &p)
	case "turn/started":
		var p turnParams
		_ = decode(m.Params, &p)
		n.turnID, n.turnRaw, n.lastText, n.usage = p.Turn.ID, bytes.Clone(n.threadFrame), "", nil
		n.addTurnRaw(frame)
		return nil
	case "item/started", "item/completed":
		var p itemParams
		if err := decode(m.Params, &p); err != nil {
			return []agent.Event{malformed(frame, err)}
		}
		var it appItem
		if err := decode(p.Item, &it); err != nil || it.ID == "" {
			return []agent.Event{malformed(frame, fmt.Errorf("item: %v", err))}
		}
		it.Raw = p.Item
		return n.item(frame, &it, m.Method == "item/completed")
	case "item/agentMessage/delta", "item/reasoning/summaryTextDelta", "item/reasoning/textDelta", "item/plan/delta":
		var p deltaParams
		_ = decode(m.Params, &p)
		return n.delta(frame, m.Method, &p)
	case "item/commandExecution/requestApproval", "item/fileChange/requestApproval":
		var p approvalParams
		if err := decode(m.Params, &p); err != nil {
			return []agent.Event{malformed(frame, err)}
		}
		return n.approval(frame, m.Method, id, &p)
	case "turn/plan/updated":
		var p planParams
		_ = decode(m.Params, &p)
		return n.plan(frame, &p)
	case "thread/tokenUsage/updated":
		var p tokenUsageParams
		_ = decode(m.Params, &p)
		l := p.TokenUsage.Last
		if n.usage == nil {
			n.usage = &agent.TokenUsage{}
		}
		n.usage.InputTokens += l.InputTokens.V
		n.usage.OutputTokens += l.OutputTokens.V
		n.usage.CacheReadTokens += l.CachedInputTokens.V
		n.usage.CacheCreationTokens += l.CacheWriteInputTokens.V
		n.usage.ReasoningTokens += l.ReasoningOutputTokens.V
		n.window = p.TokenUsage.ModelContextWindow.V
		n.addTurnRaw(frame)
		return nil
	case "turn/completed":
		var p turnParams
		_ = decode(m.Params, &p)
		return n.turnEnd(frame, &p)
	case "error":
		var p errorParams
		_ = decode(m.Params, &p)
		msg := errorText(p.Error.Message)
		if p.WillRetry {
			return []agent.Event{{Type: agent.EventRateLimit, Error: msg}}
		}
		return []agent.Event{{Type: agent.EventError, Error: msg, Raw: bytes.Clone(frame)}}
	}
	if ignored[m.Method] || strings.HasPrefix(m.Method, "thread/") && m.Method != "thread/compacted" {
		return nil
	}
	if len(m.ID) > 0 {
		return []agent.Event{unknownMessage(frame, "server request "+m.Method)}
	}
	return []agent.Event{unknownMessage(frame, "notification "+m.Method)}
}

func (n *AppServerNormalizer) addTurnRaw(frame []byte) {
	n.turnRaw = agent.AppendFrame(n.turnRaw, frame)
}

func (n *AppServerNormalizer) thread(frame []byte, p *threadResult) []agent.Event {
	if p.Thread == nil || p.Thread.ID == "" {
		return nil
	}
	n.threadID = p.Thread.ID
	if p.Thread.Model != "" {
		n.model = p.Thread.Model
		n.threadFrame = frame
	}
	if n.announced[p.Thread.ID] {
		return nil
	}
	n.announced[p.Thread.ID] = true
	return []agent.Event{{Type: agent.EventSessionID, SessionID: p.Thread.ID}}
}

func (n *AppServerNormalizer) response(frame []byte, m *rpcMessage, id string) []agent.Event {
	method, sent := n.outReq[id]
	if sent {
		delete(n.outReq, id)
	}
	if m.Error != nil {
		if !sent {
			return nil // our own error reply to a server request
		}
		fatal := strings.HasPrefix(method, "thread/") || method == "turn/start" || method == "initialize"
		return []agent.Event{{Type: agent.EventError, Fatal: fatal, Error: fmt.Sprintf("codex: %s failed: %s (code %d)", method, errorText(m.Error.Message), m.Error.Code), Raw: bytes.Clone(frame)}}
	}
	var p threadResult
	if decode(m.Result, &p) == nil && p.Thread != nil {
		return n.thread(bytes.Clone(frame), &p)
	}
	return nil
}

func (n *AppServerNormalizer) message(it *appItem) *itemMessage {
	m := n.items[it.ID]
	if m == nil {
		m = &itemMessage{}
		m.msg = agent.Message{ID: it.ID, Role: agent.RoleAssistant}
		n.items[it.ID] = m
	}
	return m
}

func (n *AppServerNormalizer) item(frame []byte, it *appItem, done bool) []agent.Event {
	m := n.message(it)
	m.addRaw(frame)
	n.itemData[it.ID] = it
	if evs, ok := n.content(m, frame, it, done); ok {
		return evs
	}
	use := agent.Part{Type: agent.PartToolUse, ToolID: it.ID, ToolName: it.Type, State: agent.ToolRunning}
	if done {
		use.State = itemState(it.Status)
	}
	result, ok := appTool(&use, it, done)
	if !ok {
		delete(n.items, it.ID)
		return []agent.Event{unknownMessage(frame, "item type "+it.Type)}
	}
	return n.open.track(m, m.toolUpdate(use, result))
}

// content maps the items that are not tool calls: the user's message, the
// agent's text or plan, its reasoning, a compaction. It reports false for
// any other item.
func (n *AppServerNormalizer) content(m *itemMessage, frame []byte, it *appItem, done bool) ([]agent.Event, bool) {
	switch it.Type {
	case "userMessage":
		m.msg.Role = agent.RoleUser
		m.msg.Parts = appendUserInputs(m.msg.Parts[:0], it.Content)
		return []agent.Event{m.event()}, true
	case "agentMessage", "plan":
		if done || it.Text != "" {
			m.msg.Parts = []agent.Part{{Type: agent.PartText, Text: it.Text}}
		}
		if done && it.Type == "agentMessage" {
			n.lastText = it.Text
			n.addTurnRaw(frame)
		}
	case "reasoning":
		var content []string
		_ = decode(it.Content, &content)
		text := strings.Join(append(append([]string{}, it.Summary...), content...), "\n\n")
		if done || text != "" {
			m.msg.Parts = []agent.Part{{Type: agent.PartReasoning, Text: text}}
		}
	case "contextCompaction":
		m.msg.Role = agent.RoleSystem
		m.msg.Parts = []agent.Part{{Type: agent.PartCompact, Trigger: "auto"}}
	default:
		return nil, false
	}
	if len(m.msg.Parts) == 0 {
		return nil, true // an empty start: wait for text
	}
	return []agent.Event{m.event()}, true
}

// appendUserInputs appends a userMessage's inputs (UserInput) as parts.
func appendUserInputs(parts []agent.Part, content json.RawMessage) []agent.Part {
	var inputs []struct {
		Type string `json:"type"`
		Text string `json:"text"`
		Path string `json:"path"`
		URL  string `json:"url"`
	}
	_ = decode(content, &inputs)
	for _, in := range inputs {
		if in.Type == "text" {
			parts = append(parts, agent.Part{Type: agent.PartText, Text: in.Text})
		} else {
			parts = append(parts, agent.Part{Type: agent.PartFile, Path: in.Path + in.URL})
		}
	}
	return parts
}

// appTool fills use for a tool item and returns its result part once the
// item is done (nil before). It reports false for an item type it does not
// know.
func appTool(use *agent.Part, it *appItem, done bool) (*agent.Part, bool) {
	var result func() *agent.Part
	switch it.Type {
	case "commandExecution":
		use.Kind = agent.ToolExecute
		use.Input = mustJSON(map[string]any{"command": it.Command, "cwd": it.Cwd, "commandActions": it.CommandActions})
		result = func() *agent.Part { return appCommandResult(use, it) }
	case "fileChange":
		use.Kind, use.Input = agent.ToolEdit, mustJSON(map[string]any{"changes": it.Changes})
		result = func() *agent.Part { return appFileChangeResult(use, it) }
	case "mcpToolCall", "dynamicToolCall":
		if it.Server != "" {
			use.ToolName = it.Server + "/" + it.Tool
		} else if it.Tool != "" {
			use.ToolName = it.Tool
		}
		use.Kind, use.Input = agent.ToolOther, it.Arguments
		result = func() *agent.Part { return callResult(use, it.Result, it.Error) }
	case "webSearch":
		use.Kind, use.Input = agent.ToolFetch, mustJSON(map[string]string{"query": it.Query})
		result = func() *agent.Part { return textResult(use, it.Query) }
	case "imageView":
		use.Kind, use.Input = agent.ToolRead, mustJSON(map[string]string{"path": it.Path})
		result = func() *agent.Part { return textResult(use, it.Path) }
	case "collabAgentToolCall", "subAgentActivity":
		use.Kind, use.Input = agent.ToolSubAgent, it.Raw
		result = func() *agent.Part { return textResult(use, it.Status) }
	default:
		return nil, false
	}
	if !done {
		return nil, true
	}
	return result(), true
}

// appCommandResult is a done commandExecution's result: its output (or
// "declined"), an error when it exited non-zero.
func appCommandResult(use *agent.Part, it *appItem) *agent.Part {
	out := ""
	if it.AggregatedOutput != nil {
		out = *it.AggregatedOutput
	}
	if out == "" && it.Status == "declined" {
		out = "declined"
	}
	return exitResult(use, it.ExitCode, out)
}

// appFileChangeResult is a done fileChange's result: a line per file and,
// for a change that went through, the first file's write.
func appFileChangeResult(use *agent.Part, it *appItem) *agent.Part {
	lines := make([]string, len(it.Changes))
	for i, c := range it.Changes {
		lines[i] = c.Kind.Type + " " + c.Path
	}
	if it.Status == "declined" {
		lines = append(lines, "declined")
	}
	failed := use.State == agent.ToolError
	r := &agent.Part{Type: agent.PartToolResult, ToolID: it.ID, Content: agent.StringContent(strings.Join(lines, "\n")), IsError: failed}
	if len(it.Changes) > 0 && !failed {
		c := it.Changes[0]
		sr := &agent.StructuredResult{Kind: agent.StructuredWrite, FilePath: c.Path}
		switch c.Kind.Type {
		case "add":
			sr.Operation, sr.Content = "create", c.Diff
		case "update":
			sr.Operation, sr.StructuredPatch = "update", parseHunks(c.Diff)
		}
		r.StructuredResult = sr
	}
	return r
}

func (n *AppServerNormalizer) delta(frame []byte, method string, p *deltaParams) []agent.Event {
	m := n.items[p.ItemID]
	if m == nil {
		typ := map[string]string{"item/agentMessage/delta": "agentMessage", "item/plan/delta": "plan"}[method]
		if typ == "" {
			typ = "reasoning"
		}
		m = n.message(&appItem{ID: p.ItemID, Type: typ})
	}
	m.addRaw(frame)
	typ := agent.PartText
	if strings.HasPrefix(method, "item/reasoning/") {
		typ = agent.PartReasoning
	}
	if len(m.msg.Parts) == 0 || m.last == nil || len(m.last.Parts) == 0 || m.msg.Parts[0].Type != typ {
		m.msg.Parts = []agent.Part{{Type: typ, Text: p.Delta}}
		return []agent.Event{m.event()}
	}
	if p.Delta == "" {
		return nil
	}
	m.grow(p.Delta)
	m.last.Parts[0].Text = m.msg.Parts[0].Text
	f := agent.DeltaText
	if typ == agent.PartReasoning {
		f = agent.DeltaReason
	}
	return []agent.Event{{Type: agent.EventDelta, MessageID: m.msg.ID, Delta: &agent.Delta{Part: 0, Field: f, Text: p.Delta},
		Raw: append([]byte(nil), frame...)}}
}

// ApprovalOptions are the answers Codex accepts to an approval request, as
// permission options.
var ApprovalOptions = []agent.PermissionOption{
	{ID: "accept", Name: "Allow", Kind: "allow_once"},
	{ID: "acceptForSession", Name: "Allow for this session", Kind: "allow_always"},
	{ID: "decline", Name: "Decline", Kind: "reject_once"},
	{ID: "cancel", Name: "Decline and stop the turn", Kind: "reject_always"},
}

func (n *AppServerNormalizer) approval(frame []byte, method, id string, p *approvalParams) []agent.Event {
	reqID := p.ItemID
	if reqID == "" {
		reqID = "rpc-" + strings.Trim(id, `"`)
	}
	req := &agent.Request{RequestID: reqID, ToolID: p.ItemID, PermissionOptions: ApprovalOptions}
	var evs []agent.Event
	if it := n.itemData[p.ItemID]; it != nil {
		m := n.items[p.ItemID]
		m.addRaw(frame)
		if len(m.msg.Parts) > 0 && m.msg.Parts[0].Type == agent.PartToolUse {
			use := m.msg.Parts[0]
			use.State = agent.ToolPending
			req.ToolName, req.Input = use.ToolName, use.Input
			var result *agent.Part
			if len(m.msg.Parts) > 1 {
				result = &m.msg.Parts[1]
			}
			evs = n.open.track(m, m.toolUpdate(use, result))
		}
	}
	if req.ToolName == "" {
		req.ToolName = strings.TrimSuffix(strings.TrimPrefix(method, "item/"), "/requestApproval")
	}
	if p.Command != nil {
		req.Description = *p.Command
		if req.Input == nil {
			req.Input = mustJSON(map[string]any{"command": *p.Command, "cwd": p.Cwd})
		}
	}
	if p.Reason != nil && *p.Reason != "" {
		if req.Description != "" {
			req.Description += " — "
		}
		req.Description += *p.Reason
	}
	if req.Description == "" {
		req.Description = "Apply file changes"
		if p.GrantRoot != nil {
			req.Description += " (write access to " + *p.GrantRoot + ")"
		}
	}
	return append(evs, agent.Event{Type: agent.EventPermissionRequest, Request: req})
}

func (n *AppServerNormalizer) plan(frame []byte, p *planParams) []agent.Event {
	id := p.TurnID + ":plan"
	m := n.items[id]
	if m == nil {
		m = &itemMessage{}
		m.msg = agent.Message{ID: id, Role: agent.RoleAssistant}
		n.items[id] = m
	}
	m.addRaw(frame)
	todos := make([]agent.TodoItem, len(p.Plan))
	for i, s := range p.Plan {
		todos[i] = agent.TodoItem{Content: s.Step, Status: todoStatus(s.Status)}
	}
	use := agent.Part{Type: agent.PartToolUse, ToolID: id, ToolName: "plan", Kind: agent.ToolTodo, State: agent.ToolCompleted, Input: mustJSON(p)}
	text := ""
	if p.Explanation != nil {
		text = *p.Explanation
	}
	res := agent.Part{Type: agent.PartToolResult, ToolID: id, Content: agent.StringContent(text),
		StructuredResult: &agent.StructuredResult{Kind: agent.StructuredTodo, OldTodos: n.todos, NewTodos: todos}}
	n.todos = todos
	return n.open.track(m, m.toolUpdate(use, &res))
}

func (n *AppServerNormalizer) turnEnd(frame []byte, p *turnParams) []agent.Event {
	n.addTurnRaw(frame)
	t := p.Turn
	state, why := agent.ToolCancelled, "the turn ended ("+t.Status+") before the tool finished"
	if t.Status == "interrupted" {
		state, why = agent.ToolInterrupted, "the turn was interrupted"
	}
	closing := n.open.close(frame, state, why)
	res := &agent.Result{Text: n.lastText, Reason: t.Status, Interrupted: t.Status == "interrupted", IsError: t.Status == "failed", Usage: n.usage}
	if t.DurationMs != nil {
		res.DurationMs = t.DurationMs.V
	}
	if n.model != "" && n.window > 0 {
		mu := agent.ModelUsage{ContextWindow: n.window}
		if n.usage != nil {
			mu.InputTokens, mu.OutputTokens, mu.CacheReadTokens, mu.CacheCreationTokens = n.usage.InputTokens, n.usage.OutputTokens, n.usage.CacheReadTokens, n.usage.CacheCreationTokens
		}
		res.ModelUsage = map[string]agent.ModelUsage{n.model: mu}
	}
	var errEv []agent.Event
	if t.Error != nil && res.IsError {
		msg := errorText(t.Error.Message)
		if res.Text == "" {
			res.Text = msg
		}
		errEv = append(errEv, agent.Event{Type: agent.EventError, Error: msg, Fatal: true})
	}
	msg := &agent.Message{ID: t.ID + ":result", Role: agent.RoleResult, Parts: []agent.Part{}, Result: agent.ResultText(res), IsError: res.IsError,
		Usage: res.Usage, DurationMs: res.DurationMs, ModelUsage: res.ModelUsage, Model: n.model, Metadata: map[string]any{"status": t.Status}}
	raw := n.turnRaw[:len(n.turnRaw):len(n.turnRaw)]
	n.turnRaw, n.usage, n.lastText = nil, nil, ""
	evs := append(append(closing, agent.Event{Type: agent.EventMessage, Message: msg, Raw: raw}), errEv...)
	return append(evs, agent.Complete(res))
}

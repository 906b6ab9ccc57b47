package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Normalizer turns Claude Code stream-json stdout lines (and the user turns
// the host writes to stdin) into normalized events. It is pure and
// stateful: no I/O, clock or randomness. Feed it one line at a time.
//
// # Mapping (the design's Claude tables, plus what 2.1.x added)
//
// Line `type` / `subtype` → normalized:
//
//	system/init                       hidden (session-id only)
//	system/hook_started, hook_progress,
//	  hook_completed, hook_response   hidden
//	system/thinking_tokens            system-status part {subtype, status
//	                                  "thinking", text "thinking (about N
//	                                  tokens)"}, metadata.estimatedTokens; the
//	                                  lines between two assistant/user/result
//	                                  lines are ONE message (ID = first uuid,
//	                                  Raw = all of them), updated in place
//	system/status status=compacting   system message (ID = line uuid) with ONE
//	                                  compact part {status "compacting"};
//	                                  completed by compact_boundary
//	system/status other               hidden; a permissionMode field also gives
//	                                  a mode-change event (default→ask,
//	                                  acceptEdits→accept-edits, plan→plan,
//	                                  bypassPermissions→bypass)
//	system/compact_boundary           the compact part {trigger, preTokens} from
//	                                  compact_metadata {trigger, pre_tokens}; it
//	                                  re-emits the compacting message (same ID,
//	                                  Raw = both lines), or starts its own
//	system/api_retry                  system-status part {subtype, status: error,
//	                                  text} + rate-limit event {retryAfterMs =
//	                                  retry_delay_ms, attempt, maxRetries, error}
//	system/permission_denied          system-status part {status "denied", text =
//	                                  message}, metadata toolName/toolUseId
//	system/other (command_lifecycle,  a quiet notice: system message, system-status
//	  anything new)                   part {subtype, status "unknown", text "System
//	                                  notice: command lifecycle"}, metadata.quiet,
//	                                  metadata.raw = the line (the UI collapses and
//	                                  counts these; raw on demand)
//	assistant                         assistant message, ID = message.id; the
//	                                  lines sharing a message.id (one block per
//	                                  line) become ONE message: a block a stream
//	                                  started is replaced by the complete one, a
//	                                  new block is a new part (the message is
//	                                  emitted whole), a lone text/thinking block
//	                                  after a complete one of the same kind
//	                                  extends it (a delta event); Raw = all its
//	                                  lines. A repeated line (same uuid) is ignored.
//	assistant, model "<synthetic>"
//	  with is_api_error_message       the message (isError) + error event
//	                                  {error: its text, fatal: true}
//	user                              user message, ID = the line's uuid (prompts,
//	                                  tool results, "[Request interrupted by user]";
//	                                  also the turns the backend writes on stdin,
//	                                  which it delivers as frames too)
//	result                            result message (ID = uuid) + complete event
//	control_request can_use_tool      permission-request event {requestId, toolName,
//	                                  toolId = tool_use_id, input, description,
//	                                  suggestions = permission_suggestions}
//	control_request can_use_tool
//	  tool_name AskUserQuestion       question event {requestId, question, options
//	                                  (first question), questions (all)}; option
//	                                  ids are the labels
//	control_request other             quiet notice (as system/other)
//	control_response, keep_alive,
//	  control_cancel_request          hidden (the backend consumes them)
//	stream_event (--include-partial-messages; keyed by api_message_id, else
//	  the open message_start):
//	  message_start                   the message's model and usage (no event)
//	  content_block_start             a new part (text "", thinking "", tool_use
//	                                  with input {}): the message emitted whole
//	  content_block_delta text_delta,
//	    thinking_delta                delta {messageId, part, field text|reasoning,
//	                                  text}, Raw = the line
//	  content_block_delta other       nothing (input_json_delta: the complete
//	                                  assistant line carries the input)
//	  message_delta                   usage (no event)
//	  message_stop                    the message emitted whole
//	  content_block_stop, other       nothing
//	unknown type                      quiet notice (as system/other)
//	malformed line                    error event {fatal: false}, Raw = the line
//	                                  (only a line that is not JSON: a field of
//	                                  another type, out of range or missing
//	                                  degrades that field, see Anomalies)
//
// Turn end: every tool_use of the turn without a tool_result when the result
// line comes is closed: a tool-state-update {state denied (its id is in
// permission_denials) | interrupted (the turn was interrupted) | cancelled,
// error = the reason}, and its message is emitted again with the tool-use
// part's state set and metadata.toolErrors[toolId] = the reason.
//
// Anomalies: numbers are decoded leniently (agent.Int, agent.Float: 1500.0
// for an integer, 1e400, "12"); a value of another type leaves its field
// empty; each such field is listed in the message's metadata.anomalies
// (e.g. "duration_ms: 1e400 out of range"), the rest of the line is used.
//
// Content blocks → parts:
//
//	text                      text {text}
//	thinking                  reasoning {text = thinking}
//	redacted_thinking         reasoning {text "(redacted thinking)"}
//	tool_use, server_tool_use tool-use {toolId = id, toolName = name, input, kind}
//	tool_result               tool-result {toolId = tool_use_id, content (a
//	                          string, or text/file parts), isError = is_error}
//	image                     file {mime = source.media_type, content = source}
//	other                     system-status {subtype "content-block", status = type,
//	                          text = the block}
//
// Tool kinds: Read→read; Write, Edit, MultiEdit, NotebookEdit→edit; Bash,
// BashOutput, KillShell→execute; Grep, Glob, LS→search; WebFetch,
// WebSearch→fetch; TodoWrite, TaskCreate, TaskUpdate, TaskList,
// TaskGet→todo; AskUserQuestion→ask-user; Task, Agent→sub-agent;
// Skill→skill; anything else→other.
//
// Special fields:
//
//	session_id              ONE session-id event, from the first line that has one
//	parent_tool_use_id      message.parentToolUseId (sub-agent grouping)
//	isSynthetic             message.isSynthetic (isMeta, isReplay,
//	                        isCompactSummary → metadata)
//	is_error                result message isError
//	cost_usd                message.cost.costUsd (per-message cost, when present)
//	message.usage           message.usage (input, output, cache read/creation)
//	message.model           message.model
//	total_cost_usd          result totalCost {costUsd, totalCostUsd}
//	duration_ms             result durationMs
//	usage                   result usage (+ output_tokens_details.thinking_tokens
//	                        as reasoningTokens)
//	modelUsage              result modelUsage {inputTokens, outputTokens,
//	                        cacheReadTokens, cacheCreationTokens, contextWindow,
//	                        maxOutputTokens, costUsd}
//	terminal_reason         complete.result.reason (subtype when absent)
//	terminal_reason aborted_*, or (older CLIs, no terminal_reason) subtype
//	  error_during_execution after a "[Request interrupted by user" line
//	                        complete.result.interrupted = true, isError = false
//	subtype error_*         complete.result.isError = true (unless interrupted;
//	                        old CLIs said is_error false on these)
//	num_turns, duration_api_ms, permission_denials, errors, stop_reason
//	                        result metadata (errors also become the complete
//	                        event's text when there is no result text)
//	tool_use_result         the tool-result's structuredResult, by shape:
//	                          {type create|update, filePath, content,
//	                           structuredPatch, originalFile} (Write) or
//	                          {filePath, oldString, structuredPatch,
//	                           originalFile} (Edit, MultiEdit) → write
//	                          {oldTodos, newTodos} (TodoWrite) → todo
//	                          {success, commandName} (Skill) → skill
//	                          {task} (TaskCreate), {tasks} (TaskList),
//	                          {taskId, statusChange|updatedFields}
//	                          (TaskUpdate) → todo
//	                        (by shape, not by tool name, so one stored user
//	                        line re-normalizes alone to the same message)
//	tool_result_meta        user message metadata.toolResultMeta (the
//	                        permission_decision of each tool: config,
//	                        user_temporary, user_reject, ...); an error
//	                        tool_result whose decision is reject gives a
//	                        tool-state-update denied {error = its text} and
//	                        the assistant message again with the tool-use
//	                        part denied (its Raw then ends with this line)
//
// Messages without a uuid/message.id get a stable ID from a hash of their
// line. Every message event carries Raw: the lines that rebuild it when
// fed to a fresh Normalizer. Flush returns nothing: nothing is held back.
type Normalizer struct {
	sessionSent bool
	// msgs holds the assistant messages of the current turn by message.id,
	// so that their lines merge even when other lines come between.
	msgs  map[string]*asmMsg
	order []string
	// compacting is the open compaction (a status "compacting" line).
	compacting *pendingCompact
	// sawInterrupt: this turn had a "[Request interrupted by user" line.
	sawInterrupt bool
	// thinking is the open thinking_tokens message (until the next
	// assistant, user or result line).
	thinking *pendingCompact
	// streaming is the message id of the open stream (message_start until
	// message_stop), for stream lines without api_message_id.
	streaming string
	// tools are the tool calls of the turn without a result yet: tool id →
	// message id; each is closed when the turn ends.
	tools      map[string]string
	toolsOrder []string
	// keep: frames are never modified after Feed (agent.FrameKeeper), so a
	// message's raw data may be its first line itself rather than a copy.
	keep bool
}

// KeepFrames implements agent.FrameKeeper.
func (n *Normalizer) KeepFrames() { n.keep = true }

type asmMsg struct {
	id        string
	timestamp string
	model     string
	parent    string
	synthetic bool
	isError   bool
	usage     *agent.TokenUsage
	cost      *agent.CostInfo
	meta      map[string]any
	parts     []agent.Part
	raw       []byte // its lines, newline-joined, append-only
	keep      bool   // raw may be its first line itself (Normalizer.keep)
	uuids     []string
	anoms     agent.Anomalies

	// Streaming (stream_event lines): sidx maps a stream block index to
	// its part; parts[confirmed:] were started by a stream and not yet
	// confirmed by a complete assistant line; texts grow streamed text.
	last      *agent.Message // as last emitted
	sidx      map[int64]int
	confirmed int
	texts     map[int]*strings.Builder
}

type pendingCompact struct {
	id   string
	line []byte
}

// add appends line to the message's lines and returns them all. The buffer
// only grows: what earlier events hold is a capped slice of it that later
// lines never touch, so a message updated by every line of a long phase
// (thinking_tokens: one per thinking delta) costs linear bytes, not a copy
// of everything so far per line.
func (p *pendingCompact) add(line []byte) []byte {
	p.line = agent.AppendFrame(p.line, line)
	return p.line[:len(p.line):len(p.line)]
}

// maxOpenMessages bounds how many assistant messages of one turn are kept
// for merging; the oldest is forgotten past it.
const maxOpenMessages = 64

// NewNormalizer returns a fresh normalizer.
func NewNormalizer() *Normalizer { return &Normalizer{} }

var _ agent.Normalizer = (*Normalizer)(nil)

// Flush implements agent.Normalizer; nothing is ever held back.
func (n *Normalizer) Flush() []agent.Event { return nil }

// Feed implements agent.Normalizer.
func (n *Normalizer) Feed(frame []byte) []agent.Event {
	line := bytes.TrimSpace(frame)
	if len(line) == 0 {
		return nil
	}
	if bytes.IndexByte(line, '\n') >= 0 {
		// Not a line as cut by agent.Lines: compact it, so that the Raw of
		// its events (lines joined with "\n") still splits back into lines.
		var buf bytes.Buffer
		if err := json.Compact(&buf, line); err != nil {
			return []agent.Event{malformed(line, err)}
		}
		line = buf.Bytes()
	}
	h, ok := scanHead(line)
	if !ok {
		return []agent.Event{malformed(line, nil)}
	}
	var evs []agent.Event
	if !n.sessionSent && len(h.sessionID) > 0 {
		n.sessionSent = true
		evs = append(evs, agent.Event{Type: agent.EventSessionID, SessionID: unquote(h.sessionID)})
	}
	typ := string(h.typ)
	if bytes.IndexByte(h.typ, '\\') >= 0 {
		typ = unquote(h.typ)
	}
	switch typ {
	case "system":
		return n.system(evs, line, unquote(h.subtype))
	case "assistant":
		n.thinking = nil
		return n.assistant(evs, line)
	case "user":
		n.thinking = nil
		return n.user(evs, line)
	case "result":
		n.thinking = nil
		return n.result(evs, line)
	case "control_request":
		return n.controlRequest(evs, line)
	case "stream_event":
		return n.stream(evs, line)
	case "control_response", "keep_alive", "control_cancel_request":
		return evs
	default:
		if h.typ == nil {
			typ = "unknown"
		}
		return append(evs, rawStatusMessage(line, typ, ""))
	}
}

func malformed(line []byte, err error) agent.Event {
	msg := "not a JSON object"
	if err != nil {
		msg = err.Error()
	} else if !json.Valid(line) {
		var v any
		if e := json.Unmarshal(line, &v); e != nil {
			msg = e.Error()
		}
	}
	return agent.Event{
		Type:  agent.EventError,
		Error: "claude-code: malformed line: " + msg,
		Raw:   bytes.Clone(line),
	}
}

// lineID is a stable ID for a line that has none of its own.
func lineID(line []byte) string {
	h := fnv.New64a()
	h.Write(line)
	return fmt.Sprintf("claude-%016x", h.Sum64())
}

func orID(id string, line []byte) string {
	if id != "" {
		return id
	}
	return lineID(line)
}

// rawStatusMessage is a system message holding one system-status part and
// the raw line in metadata.raw: how unknown input is kept.
func rawStatusMessage(line []byte, subtype, status string) agent.Event {
	var probe struct {
		UUID string `json:"uuid"`
	}
	_ = json.Unmarshal(line, &probe)
	kind := subtype
	if status != "" {
		kind += ": " + status
	}
	return agent.Event{Type: agent.EventMessage, Message: agent.QuietNotice(orID(probe.UUID, line), kind, line), Raw: bytes.Clone(line)}
}

func jsonString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// NativeMode maps Claude's permission mode names to interaction modes.
func NativeMode(native string) (agent.InteractionMode, bool) {
	switch native {
	case "default":
		return agent.ModeAsk, true
	case "acceptEdits":
		return agent.ModeAcceptEdits, true
	case "plan":
		return agent.ModePlan, true
	case "bypassPermissions":
		return agent.ModeBypass, true
	}
	return "", false
}

// PermissionMode maps an interaction mode to Claude's --permission-mode.
func PermissionMode(m agent.InteractionMode) (string, bool) {
	switch m {
	case agent.ModeAsk, "":
		return "default", true
	case agent.ModeAcceptEdits:
		return "acceptEdits", true
	case agent.ModePlan:
		return "plan", true
	case agent.ModeBypass:
		return "bypassPermissions", true
	}
	return "", false
}

func (n *Normalizer) system(evs []agent.Event, line []byte, subtype string) []agent.Event {
	switch subtype {
	case "init", "hook_started", "hook_progress", "hook_completed", "hook_response":
		return evs
	}
	var w wireSystem
	anoms, err := decodeSystem(line, &w)
	if err != nil {
		return append(evs, malformed(line, err))
	}
	switch subtype {
	case "thinking_tokens":
		return append(evs, n.thinkingTokens(line, &w, anoms))
	case "status":
		return n.status(evs, line, &w, anoms)
	case "compact_boundary":
		return append(evs, n.compactBoundary(line, &w, anoms))
	case "api_retry":
		return append(evs, apiRetry(line, &w, anoms)...)
	case "permission_denied":
		return append(evs, permissionDenied(line, &w, anoms))
	}
	if subtype == "" {
		subtype = "system"
	}
	m := agent.QuietNotice(orID(w.UUID, line), subtype, line)
	m.Metadata = anoms.Into(m.Metadata)
	if st := jsonString(w.Status); st != "" {
		m.Metadata["status"] = st
	}
	return append(evs, agent.Event{Type: agent.EventMessage, Message: m, Raw: bytes.Clone(line)})
}

// sysMsg is a system message of one part, the line's anomalies in its
// metadata.
func sysMsg(anoms agent.Anomalies, id string, raw []byte, part agent.Part, meta map[string]any) agent.Event {
	return agent.Event{
		Type:    agent.EventMessage,
		Message: &agent.Message{ID: id, Role: agent.RoleSystem, Parts: []agent.Part{part}, Metadata: anoms.Into(meta)},
		Raw:     raw,
	}
}

// thinkingTokens: one message per thinking phase, updated as the estimate
// grows.
func (n *Normalizer) thinkingTokens(line []byte, w *wireSystem, anoms agent.Anomalies) agent.Event {
	est := anoms.Int("estimated_tokens", w.EstimatedTokens)
	if n.thinking == nil {
		n.thinking = &pendingCompact{id: orID(w.UUID, line)}
	}
	part := agent.Part{Type: agent.PartSystemStatus, Subtype: "thinking_tokens", Status: "thinking",
		Text: fmt.Sprintf("thinking (about %d tokens)", est)}
	return sysMsg(anoms, n.thinking.id, n.thinking.add(line), part, map[string]any{"estimatedTokens": est})
}

// status: "compacting" opens a compaction (its boundary closes it); a
// permission mode is a mode change; anything else shows nothing.
func (n *Normalizer) status(evs []agent.Event, line []byte, w *wireSystem, anoms agent.Anomalies) []agent.Event {
	if jsonString(w.Status) == "compacting" {
		id := orID(w.UUID, line)
		n.compacting = &pendingCompact{id: id, line: bytes.Clone(line)}
		return append(evs, sysMsg(anoms, id, bytes.Clone(line), agent.Part{Type: agent.PartCompact, Status: "compacting"}, nil))
	}
	if w.PermissionMode != "" {
		if m, ok := NativeMode(w.PermissionMode); ok {
			evs = append(evs, agent.Event{Type: agent.EventModeChange, Mode: m})
		}
	}
	return evs
}

// compactBoundary ends a compaction: the message "compacting" opened, or
// one of its own.
func (n *Normalizer) compactBoundary(line []byte, w *wireSystem, anoms agent.Anomalies) agent.Event {
	part := agent.Part{Type: agent.PartCompact}
	var meta map[string]any
	if w.CompactMetadata != nil {
		part.Trigger = w.CompactMetadata.Trigger
		part.PreTokens = anoms.Int("compact_metadata.pre_tokens", w.CompactMetadata.PreTokens)
	}
	id, raw := orID(w.UUID, line), bytes.Clone(line)
	if c := n.compacting; c != nil {
		id = c.id
		raw = slices.Concat(c.line, []byte("\n"), line)
		meta = map[string]any{"boundaryUuid": w.UUID}
		n.compacting = nil
	}
	return sysMsg(anoms, id, raw, part, meta)
}

// apiRetry is a status message ("API error 529 (overloaded), retry 2/10
// in 1200 ms") and a rate-limit event.
func apiRetry(line []byte, w *wireSystem, anoms agent.Anomalies) []agent.Event {
	errText := jsonString(w.Error)
	status := strings.TrimSpace(string(w.ErrorStatus))
	text := "API error"
	if status != "" && status != "null" {
		text += " " + status
	}
	if errText != "" {
		text += " (" + errText + ")"
	}
	attempt, maxRetries := int(anoms.Int("attempt", w.Attempt)), int(anoms.Int("max_retries", w.MaxRetries))
	text += fmt.Sprintf(", retry %d/%d", attempt, maxRetries)
	var delay *int64
	if d := anoms.FloatPtr("retry_delay_ms", w.RetryDelayMs); d != nil {
		ms := int64(math.Round(min(max(*d, 0), math.MaxInt64/2)))
		delay = &ms
		text += fmt.Sprintf(" in %d ms", ms)
	}
	part := agent.Part{Type: agent.PartSystemStatus, Subtype: "api_retry", Status: errText, Text: text}
	return []agent.Event{
		sysMsg(anoms, orID(w.UUID, line), bytes.Clone(line), part, nil),
		{Type: agent.EventRateLimit, RetryAfterMs: delay, Attempt: attempt, MaxRetries: maxRetries, Error: text},
	}
}

// permissionDenied is a denial the CLI decided itself (a rule, a mode).
func permissionDenied(line []byte, w *wireSystem, anoms agent.Anomalies) agent.Event {
	part := agent.Part{Type: agent.PartSystemStatus, Subtype: "permission_denied", Status: "denied", Text: jsonString(w.Message)}
	meta := map[string]any{}
	if w.ToolName != "" {
		meta["toolName"] = w.ToolName
	}
	if w.ToolUseID != "" {
		meta["toolUseId"] = w.ToolUseID
	}
	return sysMsg(anoms, orID(w.UUID, line), bytes.Clone(line), part, meta)
}

// toolKind classifies a Claude tool by name.
func toolKind(name string) agent.ToolKind {
	switch name {
	case "Read", "NotebookRead":
		return agent.ToolRead
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return agent.ToolEdit
	case "Bash", "BashOutput", "KillShell", "KillBash":
		return agent.ToolExecute
	case "Grep", "Glob", "LS":
		return agent.ToolSearch
	case "WebFetch", "WebSearch":
		return agent.ToolFetch
	case "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet":
		return agent.ToolTodo
	case "AskUserQuestion":
		return agent.ToolAskUser
	case "Task", "Agent":
		return agent.ToolSubAgent
	case "Skill":
		return agent.ToolSkill
	}
	return agent.ToolOther
}

// blockPart maps one content block to a part.
func blockPart(b wireBlock, raw json.RawMessage) agent.Part {
	switch b.Type {
	case "text":
		return agent.Part{Type: agent.PartText, Text: b.Text}
	case "thinking":
		return agent.Part{Type: agent.PartReasoning, Text: b.Thinking}
	case "redacted_thinking":
		return agent.Part{Type: agent.PartReasoning, Text: "(redacted thinking)"}
	case "tool_use", "server_tool_use":
		return agent.Part{Type: agent.PartToolUse, ToolID: b.ID, ToolName: b.Name, Input: b.Input, Kind: toolKind(b.Name)}
	case "tool_result":
		return agent.Part{Type: agent.PartToolResult, ToolID: b.ToolUseID, Content: resultContent(b.Content), IsError: b.IsError}
	case "image":
		var src struct {
			MediaType string `json:"media_type"`
		}
		_ = json.Unmarshal(b.Source, &src)
		return agent.Part{Type: agent.PartFile, Mime: src.MediaType, Content: b.Source}
	}
	return agent.Part{Type: agent.PartSystemStatus, Subtype: "content-block", Status: b.Type, Text: string(raw)}
}

// resultContent maps tool_result content: a string stays a JSON string; a
// list of blocks becomes a list of parts.
func resultContent(c json.RawMessage) json.RawMessage {
	c = bytes.TrimSpace(c)
	if len(c) == 0 || string(c) == "null" {
		return agent.StringContent("")
	}
	if c[0] != '[' {
		return c
	}
	var wc wireContent
	if err := wc.UnmarshalJSON(c); err != nil {
		return c
	}
	parts := make([]agent.Part, len(wc.blocks))
	for i, b := range wc.blocks {
		parts[i] = blockPart(b, wc.raw(i))
	}
	out, err := json.Marshal(parts)
	if err != nil {
		return c
	}
	return out
}

func usageOf(u *wireUsage, a *agent.Anomalies) *agent.TokenUsage {
	if u == nil {
		return nil
	}
	t := &agent.TokenUsage{
		InputTokens:         a.Int("usage.input_tokens", u.InputTokens),
		OutputTokens:        a.Int("usage.output_tokens", u.OutputTokens),
		CacheReadTokens:     a.Int("usage.cache_read_input_tokens", u.CacheReadInputTokens),
		CacheCreationTokens: a.Int("usage.cache_creation_input_tokens", u.CacheCreationInputTokens),
	}
	if u.OutputTokensDetails != nil {
		t.ReasoningTokens = a.Int("usage.output_tokens_details.thinking_tokens", u.OutputTokensDetails.ThinkingTokens)
	}
	return t
}

func (n *Normalizer) assistant(evs []agent.Event, line []byte) []agent.Event {
	var w wireChat
	if err := decodeChat(line, &w); err != nil {
		return append(evs, malformed(line, err))
	}
	if w.Message == nil {
		return append(evs, rawStatusMessage(line, "assistant", "no message"))
	}
	id := w.Message.ID
	if id == "" {
		id = orID(w.UUID, line)
	}
	a := n.msgs[id]
	if a == nil {
		a = &asmMsg{id: id, timestamp: w.Timestamp}
		if w.ParentToolUseID != nil {
			a.parent = *w.ParentToolUseID
		}
		n.open(a)
	} else if w.UUID != "" && slices.Contains(a.uuids, w.UUID) {
		return evs // the same line again
	}
	if a.timestamp == "" {
		a.timestamp = w.Timestamp
	}
	bs := w.Message.Content.blocks
	start := a.addLine(line)
	if w.UUID != "" {
		a.uuids = append(a.uuids, w.UUID)
	}
	a.anoms = append(a.anoms, w.anoms...)
	parts := make([]agent.Part, len(bs))
	for i, b := range bs {
		parts[i] = blockPart(b, w.Message.Content.raw(i))
	}
	if w.Message.Model != "" {
		a.model = w.Message.Model
	}
	if u := usageOf(w.Message.Usage, &a.anoms); u != nil {
		a.usage = u
	}
	if c := a.anoms.FloatPtr("cost_usd", w.CostUSD); c != nil {
		a.cost = &agent.CostInfo{CostUSD: *c}
	}
	a.synthetic = a.synthetic || w.IsSynthetic
	apiErr := w.IsAPIErrorMessage || (w.Message.Model == "<synthetic>" && !isNull(w.Error))
	if apiErr {
		a.isError = true
		if a.meta == nil {
			a.meta = map[string]any{}
		}
		if e := jsonString(w.Error); e != "" {
			a.meta["error"] = e
		}
		if !isNull(w.APIErrorStatus) {
			a.meta["apiErrorStatus"] = json.RawMessage(bytes.Clone(w.APIErrorStatus))
		}
	}
	for _, p := range parts {
		if p.Type == agent.PartToolUse {
			n.noteTool(p.ToolID, id)
		}
	}
	if ds, structural := a.confirm(parts, start); !structural && !apiErr {
		return append(evs, ds...)
	}
	evs = append(evs, a.changed()...)
	if apiErr {
		var text []string
		for _, b := range bs {
			if b.Type == "text" && b.Text != "" {
				text = append(text, b.Text)
			}
		}
		msg := strings.Join(text, "\n")
		if msg == "" {
			msg = "API error"
			if e := jsonString(w.Error); e != "" {
				msg += ": " + e
			}
		}
		evs = append(evs, agent.Event{Type: agent.EventError, Error: msg, Fatal: true})
	}
	return evs
}

func (n *Normalizer) open(a *asmMsg) {
	if n.msgs == nil {
		n.msgs = map[string]*asmMsg{}
	}
	if len(n.order) >= maxOpenMessages {
		delete(n.msgs, n.order[0])
		n.order = n.order[1:]
	}
	a.keep = n.keep
	n.msgs[a.id] = a
	n.order = append(n.order, a.id)
}

// event is the message's current state as a message event.
func (a *asmMsg) event() agent.Event {
	m := &agent.Message{
		ID:              a.id,
		Role:            agent.RoleAssistant,
		Parts:           append(make([]agent.Part, 0, len(a.parts)), a.parts...),
		Timestamp:       a.timestamp,
		Cost:            a.cost,
		Usage:           a.usage,
		Model:           a.model,
		ParentToolUseID: a.parent,
		IsSynthetic:     a.synthetic,
		IsError:         a.isError,
	}
	if len(a.meta) > 0 || len(a.anoms) > 0 {
		m.Metadata = make(map[string]any, len(a.meta)+1)
		for k, v := range a.meta {
			m.Metadata[k] = v
		}
		m.Metadata = a.anoms.Into(m.Metadata)
	}
	a.last = agent.CloneMessage(m)
	// Raw shares the message's append-only buffer: no copy per emission.
	return agent.Event{Type: agent.EventMessage, Message: m, Raw: a.rawSoFar()}
}

func (n *Normalizer) user(evs []agent.Event, line []byte) []agent.Event {
	var w wireChat
	if err := decodeChat(line, &w); err != nil {
		return append(evs, malformed(line, err))
	}
	if w.Message == nil {
		return append(evs, rawStatusMessage(line, "user", "no message"))
	}
	bs := w.Message.Content.blocks
	m := &agent.Message{
		ID:          orID(w.UUID, line),
		Role:        agent.RoleUser,
		Parts:       make([]agent.Part, 0, len(bs)),
		Timestamp:   w.Timestamp,
		IsSynthetic: w.IsSynthetic,
	}
	if w.ParentToolUseID != nil {
		m.ParentToolUseID = *w.ParentToolUseID
	}
	structured := structuredResult(w.ToolUseResult)
	rejected := userRejected(w.ToolResultMeta)
	var denied []agent.Part
	owners := map[string]string{}
	for id := range rejected {
		owners[id] = n.tools[id]
	}
	for i, b := range bs {
		if b.Type == "text" && strings.HasPrefix(b.Text, "[Request interrupted by user") {
			n.sawInterrupt = true
		}
		p := blockPart(b, w.Message.Content.raw(i))
		if p.Type == agent.PartToolResult {
			if p.IsError && rejected[p.ToolID] {
				denied = append(denied, p)
			}
			delete(n.tools, p.ToolID)
		}
		if p.Type == agent.PartToolResult && structured != nil {
			p.StructuredResult = structured
			structured = nil
		}
		m.Parts = append(m.Parts, p)
	}
	meta := map[string]any{}
	if !isNull(w.ToolResultMeta) {
		meta["toolResultMeta"] = json.RawMessage(bytes.Clone(w.ToolResultMeta))
	}
	if w.IsMeta {
		meta["isMeta"] = true
	}
	if w.IsReplay {
		meta["isReplay"] = true
	}
	if w.IsCompact {
		meta["isCompactSummary"] = true
	}
	meta = w.anoms.Into(meta)
	if len(meta) > 0 {
		m.Metadata = meta
	}
	evs = append(evs, agent.Event{Type: agent.EventMessage, Message: m, Raw: bytes.Clone(line)})
	return n.markDenied(evs, denied, owners, line)
}

// structuredResult recognizes a tool_use_result by its shape.
func structuredResult(raw json.RawMessage) *agent.StructuredResult {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil // absent, or an error string
	}
	if !mayBeStructured(raw) {
		return nil // e.g. Bash {stdout, stderr}: not worth a decode
	}
	var r wireToolUseResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil
	}
	switch {
	case r.OldTodos != nil || r.NewTodos != nil:
		return &agent.StructuredResult{Kind: agent.StructuredTodo, OldTodos: todos(r.OldTodos), NewTodos: todos(r.NewTodos)}
	case r.FilePath != "" && (r.StructuredPatch != nil || r.Type == "create" || r.Type == "update"):
		s := &agent.StructuredResult{Kind: agent.StructuredWrite, FilePath: r.FilePath, OriginalFile: r.OriginalFile, Operation: r.Type}
		if r.Content != nil {
			s.Content = *r.Content
		}
		if s.Operation == "" {
			s.Operation = "update" // Edit / MultiEdit
		}
		if len(r.StructuredPatch) > 0 && string(r.StructuredPatch) != "null" {
			var hunks []agent.PatchHunk
			if json.Unmarshal(r.StructuredPatch, &hunks) == nil {
				s.StructuredPatch = hunks
			}
		}
		return s
	case r.CommandName != "" && r.Success != nil:
		return &agent.StructuredResult{Kind: agent.StructuredSkill, Success: *r.Success, CommandName: r.CommandName}
	case r.Tasks != nil:
		s := &agent.StructuredResult{Kind: agent.StructuredTodo, NewTodos: make([]agent.TodoItem, 0, len(r.Tasks))}
		for _, t := range r.Tasks {
			s.NewTodos = append(s.NewTodos, t.item())
		}
		return s
	case r.Task != nil:
		return &agent.StructuredResult{Kind: agent.StructuredTodo, NewTodos: []agent.TodoItem{r.Task.item()}}
	case r.TaskID != nil && (r.StatusChange != nil || r.UpdatedFields != nil):
		it := agent.TodoItem{ID: idString(r.TaskID)}
		if r.StatusChange != nil {
			it.Status = r.StatusChange.To
			return &agent.StructuredResult{Kind: agent.StructuredTodo,
				OldTodos: []agent.TodoItem{{ID: it.ID, Status: r.StatusChange.From}},
				NewTodos: []agent.TodoItem{it}}
		}
		return &agent.StructuredResult{Kind: agent.StructuredTodo, NewTodos: []agent.TodoItem{it}}
	}
	return nil
}

// structuredKeys are the keys one of which every recognized
// tool_use_result shape has.
var structuredKeys = [][]byte{[]byte(`"filePath"`), []byte(`"oldTodos"`), []byte(`"newTodos"`),
	[]byte(`"commandName"`), []byte(`"task"`), []byte(`"tasks"`), []byte(`"taskId"`)}

func mayBeStructured(raw []byte) bool {
	for _, k := range structuredKeys {
		if bytes.Contains(raw, k) {
			return true
		}
	}
	return false
}

func (t wireTask) item() agent.TodoItem {
	content := t.Subject
	if content == "" {
		content = t.Description
	}
	status := t.Status
	if status == "" {
		status = "pending"
	}
	return agent.TodoItem{ID: idString(t.ID), Content: content, Status: status, ActiveForm: t.ActiveForm}
}

func idString(raw json.RawMessage) string {
	if s := jsonString(raw); s != "" {
		return s
	}
	if isNull(raw) {
		return ""
	}
	return string(bytes.TrimSpace(raw))
}

func todos(raw json.RawMessage) []agent.TodoItem {
	if isNull(raw) {
		return nil
	}
	var ws []wireTodo
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil
	}
	out := make([]agent.TodoItem, len(ws))
	for i, t := range ws {
		out[i] = agent.TodoItem{ID: t.ID, Content: t.Content, Status: t.Status, ActiveForm: t.ActiveForm, Priority: t.Priority}
	}
	return out
}

func (n *Normalizer) result(evs []agent.Event, line []byte) []agent.Event {
	var w wireResult
	if err := decodeResult(line, &w); err != nil {
		return append(evs, malformed(line, err))
	}
	durationMs := w.anoms.Int("duration_ms", w.DurationMs)
	// 2.1.330 says aborted_*; older versions only end an interrupted turn
	// with error_during_execution after the "[Request interrupted by
	// user...]" line (the same subtype is also used for API errors).
	interrupted := strings.HasPrefix(w.TerminalReason, "aborted") ||
		(w.Subtype == "error_during_execution" && w.TerminalReason == "" && n.sawInterrupt)
	n.sawInterrupt = false
	reason := w.TerminalReason
	if reason == "" {
		reason = w.Subtype
	}
	evs = n.closeTools(evs, w.PermissionDenials, interrupted, reason)
	// The turn is over: its assistant messages are complete, and what
	// held them is let go (a session idles until its next turn).
	n.msgs, n.order = nil, nil
	n.streaming = ""
	m := &agent.Message{
		ID:         orID(w.UUID, line),
		Role:       agent.RoleResult,
		Parts:      []agent.Part{},
		IsError:    w.IsError,
		DurationMs: durationMs,
		Usage:      usageOf(w.Usage, &w.anoms),
	}
	if w.Result != nil {
		m.Result = *w.Result
	}
	res := &agent.Result{
		Text:        m.Result,
		IsError:     (w.IsError || strings.HasPrefix(w.Subtype, "error")) && !interrupted,
		DurationMs:  durationMs,
		Usage:       m.Usage,
		Reason:      w.TerminalReason,
		Interrupted: interrupted,
	}
	if res.Reason == "" {
		res.Reason = w.Subtype
	}
	if res.Text == "" && !interrupted && !isNull(w.Errors) {
		var errs []string
		if json.Unmarshal(w.Errors, &errs) == nil {
			res.Text = strings.Join(errs, "\n")
		}
	}
	if t := w.anoms.FloatPtr("total_cost_usd", w.TotalCostUSD); t != nil {
		total := *t
		m.TotalCost = &agent.CostInfo{CostUSD: total, TotalCostUSD: &total}
		res.Cost = &agent.CostInfo{CostUSD: total}
	}
	if len(w.ModelUsage) > 0 {
		m.ModelUsage = modelUsageOf(&w)
		res.ModelUsage = m.ModelUsage
	}
	meta := resultMeta(&w) // notes odd numbers in w.anoms: before Into reads them
	m.Metadata = w.anoms.Into(meta)
	evs = append(evs, agent.Event{Type: agent.EventMessage, Message: m, Raw: bytes.Clone(line)})
	return append(evs, agent.Complete(res))
}

// modelUsageOf is a result's usage per model (its odd numbers noted).
func modelUsageOf(w *wireResult) map[string]agent.ModelUsage {
	mu := make(map[string]agent.ModelUsage, len(w.ModelUsage))
	for k, u := range w.ModelUsage {
		mu[k] = agent.ModelUsage{
			InputTokens:         w.anoms.Int("modelUsage."+k+".inputTokens", u.InputTokens),
			OutputTokens:        w.anoms.Int("modelUsage."+k+".outputTokens", u.OutputTokens),
			CacheReadTokens:     w.anoms.Int("modelUsage."+k+".cacheReadInputTokens", u.CacheReadInputTokens),
			CacheCreationTokens: w.anoms.Int("modelUsage."+k+".cacheCreationInputTokens", u.CacheCreationInputTokens),
			ContextWindow:       w.anoms.Int("modelUsage."+k+".contextWindow", u.ContextWindow),
			MaxOutputTokens:     w.anoms.Int("modelUsage."+k+".maxOutputTokens", u.MaxOutputTokens),
			CostUSD:             w.anoms.Float("modelUsage."+k+".costUSD", u.CostUSD),
		}
	}
	return mu
}

// resultMeta is what a result message keeps of its line beside the
// result: subtype, why the turn ended, turns, API time, the denials and
// errors as the CLI wrote them.
func resultMeta(w *wireResult) map[string]any {
	meta := map[string]any{"subtype": w.Subtype}
	if w.TerminalReason != "" {
		meta["terminalReason"] = w.TerminalReason
	}
	if v := w.anoms.Int("num_turns", w.NumTurns); v != 0 {
		meta["numTurns"] = v
	}
	if v := w.anoms.Int("duration_api_ms", w.DurationAPIMs); v != 0 {
		meta["durationApiMs"] = v
	}
	if s := jsonString(w.StopReason); s != "" {
		meta["stopReason"] = s
	}
	if !isNull(w.PermissionDenials) && string(w.PermissionDenials) != "[]" {
		meta["permissionDenials"] = json.RawMessage(bytes.Clone(w.PermissionDenials))
	}
	if !isNull(w.Errors) {
		meta["errors"] = json.RawMessage(bytes.Clone(w.Errors))
	}
	if !isNull(w.APIErrorStatus) {
		meta["apiErrorStatus"] = json.RawMessage(bytes.Clone(w.APIErrorStatus))
	}
	return meta
}

func (n *Normalizer) controlRequest(evs []agent.Event, line []byte) []agent.Event {
	var w wireControl
	if err := json.Unmarshal(line, &w); err != nil {
		return append(evs, malformed(line, err))
	}
	if w.Request == nil || w.Request.Subtype != "can_use_tool" {
		sub := ""
		if w.Request != nil {
			sub = w.Request.Subtype
		}
		return append(evs, rawStatusMessage(line, "control_request", sub))
	}
	r := w.Request
	req := &agent.Request{
		RequestID:   w.RequestID,
		ToolName:    r.ToolName,
		ToolID:      r.ToolUseID,
		Input:       r.Input,
		Description: r.Description,
	}
	if r.ToolName == "AskUserQuestion" {
		var in wireAskInput
		_ = json.Unmarshal(r.Input, &in)
		for _, q := range in.Questions {
			nq := agent.Question{Question: q.Question, Header: q.Header, MultiSelect: q.MultiSelect}
			for _, o := range q.Options {
				nq.Options = append(nq.Options, agent.QuestionOption{ID: o.Label, Label: o.Label, Description: o.Description})
			}
			req.Questions = append(req.Questions, nq)
		}
		if len(req.Questions) > 0 {
			req.Question = req.Questions[0].Question
			req.Options = req.Questions[0].Options
		}
		return append(evs, agent.Event{Type: agent.EventQuestion, Request: req})
	}
	if !isNull(r.PermissionSuggestion) {
		req.Suggestions = r.PermissionSuggestion
	}
	return append(evs, agent.Event{Type: agent.EventPermissionRequest, Request: req})
}

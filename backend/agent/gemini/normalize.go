package gemini

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Raw format names.
const (
	FormatName     = "gemini"      // --output-format stream-json, one line per frame
	JSONFormatName = "gemini-json" // --output-format json, the whole output is one frame
)

// Normalizer turns Gemini CLI stream-json lines into normalized events. Each
// `gemini -p` run is one turn. A turn's assistant output is split into
// steps, one message each, as Claude Code's API messages are: a step ends
// with the results of its tool calls, and the agent's next output opens the
// next one. The first step's id is "<sid>:<timestamp of its first line>";
// a later step's is "<sid>:<timestamp of its first line>:<tool id>", the
// tool whose result came last before it. A step's raw data is the init
// line, for a later step that result's line (the anchor that names it),
// then the step's lines, so the ids stay stable when the stored lines are
// normalized again, and a long turn costs linear bytes (a turn kept as one
// message and emitted whole at every tool state cost O(n²)). Messages
// stored before steps hold the whole turn: agent.Rebuild folds its steps
// back into them (Format().Steps).
//
// Mapping (line → events):
//
//	init {session_id, model}          session-id (once per session id); the model is kept
//	                                  for the turn's messages
//	message role=user                 user message "<sid>:user:<timestamp>"
//	message role=assistant (delta)    text part of the open step (a new step when the open
//	                                  one's tools have results): the first line of a text
//	                                  part emits the step whole, the next ones are delta
//	                                  events {part, text} (Raw = the line); the step is
//	                                  emitted whole again at a tool and at the result
//	tool_use {tool_name, tool_id,     tool-use part {toolId, toolName, input = parameters,
//	  parameters}                     kind} in the open step (a new step when its tools have
//	                                  results) + tool-state-update running
//	tool_result {status, output,      tool-result part in its tool's step {content = output
//	  error}                          or error.message, isError when status is not success}; the tool-use
//	                                  part goes completed/error + tool-state-update;
//	                                  write_file → write structured result {filePath,
//	                                  content} (create or update is not told); write_todos → todo
//	                                  structured result {oldTodos, newTodos}
//	result (any status)               first, every tool_use without a tool_result is
//	                                  closed: tool-state-update cancelled {error = the
//	                                  reason} and its step emitted with the tool-use
//	                                  part cancelled, metadata.toolErrors[toolId] (a step
//	                                  emitted here has the result line in its Raw)
//	result status=success             result message "<sid>:result:<timestamp>" {result =
//	                                  last text, usage, durationMs, modelUsage} + complete
//	result status=error               the same with isError + error {fatal, error.message};
//	                                  a quota/429 message also gives rate-limit
//	error {severity, message}         error {fatal: severity is "error"}
//	unknown type                      quiet notice (agent.QuietNotice): system-status
//	                                  {subtype = type, status "unknown"}, metadata.quiet,
//	                                  metadata.raw
//	any line                          decoded field by field (agent.Int numbers): an odd
//	                                  value degrades its field only, listed in the
//	                                  message's metadata.anomalies
//	malformed line                    error {fatal: false, raw: the line}
//
// Tool kinds: read_file, read_many_files → read; write_file, replace, edit →
// edit; run_shell_command → execute; glob, grep, grep_search,
// search_file_content, list_directory, ls → search; web_fetch,
// google_web_search → fetch; write_todos → todo; ask_user → ask-user;
// invoke_agent, delegate_to_agent → sub-agent; activate_skill → skill;
// save_memory, update_topic, anything else → other.
type Normalizer struct {
	sessionID string
	announced map[string]bool
	model     string
	init      []byte // the init line, first frame of every message's Raw
	turn      *turn
	todos     []agent.TodoItem
	anoms     agent.Anomalies // of the line being fed
}

// turn is one `gemini -p` run's assistant output, split into steps.
type turn struct {
	raw   []byte // every line of the turn, after the init line: the result's Raw
	steps []*step
	tools map[string]*tool
	order []string // tool ids in order
}

// step is one assistant message of a turn: the agent's output up to the
// results of its tool calls. The agent's next output opens the next step,
// so a long turn is many bounded messages, each emitted whole only at its
// own changes (a turn emitted whole at every tool state costs O(n²)).
type step struct {
	raw     []byte // the init line, the anchor (steps after the first), its lines
	msg     agent.Message
	sb      *strings.Builder // grows the last text part while deltas come
	dirty   bool             // deltas since the message was last emitted whole
	anchor  []byte           // the last tool_result line of this step: the next step's anchor
	afterID string           // the tool id of anchor
}

// noteAnoms records a line's anomalies in the step's message metadata.
func (s *step) noteAnoms(a agent.Anomalies) {
	if len(a) > 0 {
		s.msg.Metadata = a.Into(maps.Clone(s.msg.Metadata))
	}
}

func (s *step) add(frame []byte) { s.raw = agent.AppendFrame(s.raw, frame) }

// last is the turn's open step.
func (t *turn) last() *step { return t.steps[len(t.steps)-1] }

type tool struct {
	step   *step
	use    int
	result int
	name   string
	params json.RawMessage
}

// NewNormalizer returns a fresh stream-json normalizer.
func NewNormalizer() *Normalizer { return &Normalizer{announced: map[string]bool{}} }

var _ agent.Normalizer = (*Normalizer)(nil)

// Flush implements agent.Normalizer: changes are emitted as they happen.
func (n *Normalizer) Flush() []agent.Event { return nil }

// Feed implements agent.Normalizer.
func (n *Normalizer) Feed(frame []byte) []agent.Event {
	var l line
	anoms, err := agent.DecodeNoting(frame, &l)
	if err != nil {
		return []agent.Event{{Type: agent.EventError, Error: "gemini: malformed line: " + err.Error(), Raw: bytes.Clone(frame)}}
	}
	n.anoms = anoms
	switch l.Type {
	case "init":
		n.init = bytes.Clone(frame)
		n.model = l.Model
		n.turn = nil
		if l.SessionID == "" || n.announced[l.SessionID] {
			n.sessionID = l.SessionID
			return nil
		}
		n.sessionID = l.SessionID
		n.announced[l.SessionID] = true
		return []agent.Event{{Type: agent.EventSessionID, SessionID: l.SessionID}}
	case "message":
		if l.Role == "user" {
			n.turn = nil
			return []agent.Event{{Type: agent.EventMessage, Raw: n.withInit(frame), Message: &agent.Message{
				ID: n.sessionID + ":user:" + l.Timestamp, Role: agent.RoleUser, Timestamp: l.Timestamp,
				Parts: []agent.Part{{Type: agent.PartText, Text: l.Content}},
			}}}
		}
		return n.text(frame, &l)
	case "tool_use":
		return n.toolUse(frame, &l)
	case "tool_result":
		return n.toolResult(frame, &l)
	case "result":
		return n.result(frame, &l)
	case "error":
		msg := l.Message
		if msg == "" {
			msg = "error line without a message"
		}
		return []agent.Event{{Type: agent.EventError, Error: "gemini: " + msg, Fatal: l.Severity == "error", Raw: bytes.Clone(frame)}}
	}
	h := fnv.New64a()
	h.Write(frame)
	kind := l.Type
	if kind == "" {
		kind = "line without a type"
	}
	return []agent.Event{{Type: agent.EventMessage, Raw: bytes.Clone(frame),
		Message: agent.QuietNotice("gemini-unknown-"+strconv.FormatUint(h.Sum64(), 16), kind, frame)}}
}

// text is an assistant message line: a delta of the step's last text part,
// else a new text part.
func (n *Normalizer) text(frame []byte, l *line) []agent.Event {
	s := n.output(frame, l.Timestamp)
	s.noteAnoms(n.anoms)
	if k := len(s.msg.Parts) - 1; k >= 0 && s.msg.Parts[k].Type == agent.PartText && s.sb != nil && len(n.anoms) == 0 {
		if l.Content == "" {
			return nil
		}
		s.sb.WriteString(l.Content)
		s.msg.Parts[k].Text = s.sb.String()
		s.dirty = true
		return []agent.Event{{Type: agent.EventDelta, MessageID: s.msg.ID,
			Delta: &agent.Delta{Part: k, Field: agent.DeltaText, Text: l.Content}, Raw: bytes.Clone(frame)}}
	}
	s.sb = &strings.Builder{}
	s.sb.WriteString(l.Content)
	s.msg.Parts = append(s.msg.Parts, agent.Part{Type: agent.PartText, Text: s.sb.String()})
	return []agent.Event{emit(s)}
}

func (n *Normalizer) toolUse(frame []byte, l *line) []agent.Event {
	s := n.output(frame, l.Timestamp)
	t := n.turn
	s.noteAnoms(n.anoms)
	s.sb = nil
	tl := &tool{step: s, use: len(s.msg.Parts), result: -1, name: l.ToolName, params: l.Parameters}
	if _, seen := t.tools[l.ToolID]; !seen {
		t.order = append(t.order, l.ToolID)
	}
	t.tools[l.ToolID] = tl
	s.msg.Parts = append(s.msg.Parts, agent.Part{
		Type: agent.PartToolUse, ToolID: l.ToolID, ToolName: l.ToolName,
		Input: l.Parameters, Kind: ToolKind(l.ToolName), State: agent.ToolRunning,
	})
	return []agent.Event{emit(s), {Type: agent.EventToolStateUpdate, MessageID: s.msg.ID, ToolID: l.ToolID, State: agent.ToolRunning}}
}

// withInit is frame preceded by the init line, so a fresh normalizer fed it
// knows the session id.
func (n *Normalizer) withInit(frame []byte) []byte {
	if n.init == nil {
		return bytes.Clone(frame)
	}
	out := make([]byte, 0, len(n.init)+1+len(frame))
	out = append(append(append(out, n.init...), '\n'), frame...)
	return out
}

// ensureTurn returns the open turn, opening it (and its first step, named
// by ts) at frame; frame is added to the turn's lines.
func (n *Normalizer) ensureTurn(frame []byte, ts string) *turn {
	if t := n.turn; t != nil {
		t.raw = agent.AppendFrame(t.raw, frame)
		return t
	}
	t := &turn{raw: n.withInit(frame), tools: map[string]*tool{}}
	t.steps = []*step{n.newStep(n.sessionID+":"+ts, ts, nil)}
	n.turn = t
	return t
}

// newStep starts a step whose raw data is the init line and the anchor.
func (n *Normalizer) newStep(id, ts string, anchor []byte) *step {
	s := &step{msg: agent.Message{ID: id, Role: agent.RoleAssistant, Timestamp: ts, Model: n.model}}
	if n.init != nil {
		s.add(n.init)
	}
	if anchor != nil {
		s.add(anchor)
	}
	return s
}

// output returns the step the agent's output line frame goes to: the open
// step, or a new one when the open step's tools have results. A later step
// is named by its first line's timestamp and the tool whose result came
// last before it ("<sid>:<timestamp>:<tool id>"); that result's line leads
// its raw data, so a fresh normalizer fed it names the step alike.
func (n *Normalizer) output(frame []byte, ts string) *step {
	t := n.ensureTurn(frame, ts)
	s := t.last()
	if s.anchor != nil {
		s = n.newStep(n.sessionID+":"+ts+":"+s.afterID, ts, s.anchor)
		t.steps = append(t.steps, s)
	}
	s.add(frame)
	return s
}

// emit is the step's message event; its Raw shares the step's buffer.
func emit(s *step) agent.Event {
	s.dirty = false
	m := s.msg
	m.Parts = slices.Clone(s.msg.Parts)
	return agent.Event{Type: agent.EventMessage, Message: &m, Raw: s.raw[:len(s.raw):len(s.raw)]}
}

func (n *Normalizer) toolResult(frame []byte, l *line) []agent.Event {
	t := n.ensureTurn(frame, l.Timestamp)
	tl := t.tools[l.ToolID]
	if tl == nil { // a result without its tool_use: keep it anyway, in the open step
		s := t.last()
		tl = &tool{step: s, use: len(s.msg.Parts), result: -1}
		t.tools[l.ToolID] = tl
		t.order = append(t.order, l.ToolID)
		s.msg.Parts = append(s.msg.Parts, agent.Part{Type: agent.PartToolUse, ToolID: l.ToolID, ToolName: "unknown", Kind: agent.ToolOther})
	}
	s := tl.step
	s.add(frame)
	if s == t.last() {
		s.anchor, s.afterID = bytes.Clone(frame), l.ToolID
	}
	s.noteAnoms(n.anoms)
	s.sb = nil
	failed := l.Status != "success"
	text := outputText(l.Output)
	if failed && l.Error != nil && l.Error.Message != "" && text == "" {
		text = l.Error.Message
	}
	res := agent.Part{Type: agent.PartToolResult, ToolID: l.ToolID, IsError: failed, Content: agent.StringContent(text)}
	if !failed {
		res.StructuredResult = n.structured(tl)
	}
	if tl.result < 0 {
		tl.result = len(s.msg.Parts)
		s.msg.Parts = append(s.msg.Parts, res)
	} else {
		s.msg.Parts[tl.result] = res
	}
	state := agent.ToolCompleted
	if failed {
		state = agent.ToolError
	}
	s.msg.Parts[tl.use].State = state
	ev := agent.Event{Type: agent.EventToolStateUpdate, MessageID: s.msg.ID, ToolID: l.ToolID, State: state}
	if failed {
		ev.Error = text
		if l.Error != nil && l.Error.Type != "" {
			ev.Error = l.Error.Type + ": " + text
		}
	} else {
		ev.ToolResult = text
	}
	return []agent.Event{emit(s), ev}
}

// outputText is a tool's output: a string, or JSON kept as text.
func outputText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// structured is the rich result of the file and todo tools.
func (n *Normalizer) structured(tl *tool) *agent.StructuredResult {
	switch tl.name {
	case "write_file":
		var p writeParams
		if json.Unmarshal(tl.params, &p) != nil || p.FilePath == "" {
			return nil
		}
		return &agent.StructuredResult{Kind: agent.StructuredWrite, FilePath: p.FilePath, Content: p.Content}
	case "write_todos":
		var p todoParams
		if json.Unmarshal(tl.params, &p) != nil {
			return nil
		}
		todos := make([]agent.TodoItem, len(p.Todos))
		for i, td := range p.Todos {
			todos[i] = agent.TodoItem{Content: td.Description, Status: td.Status}
		}
		old := n.todos
		n.todos = todos
		return &agent.StructuredResult{Kind: agent.StructuredTodo, OldTodos: old, NewTodos: todos}
	}
	return nil
}

func (n *Normalizer) result(frame []byte, l *line) []agent.Event {
	var raw []byte
	var closing []agent.Event
	res := &agent.Result{IsError: l.Status != "success", Reason: l.Status}
	if t := n.turn; t != nil {
		t.raw = agent.AppendFrame(t.raw, frame)
		raw = t.raw[:len(t.raw):len(t.raw)]
		closing = n.closeSteps(frame, l.Status)
		res.Text = t.lastText()
	} else {
		raw = n.withInit(frame)
	}
	n.turn = nil
	if s := l.Stats; s != nil {
		res.DurationMs = s.DurationMs.V
		res.Usage = &agent.TokenUsage{InputTokens: s.InputTokens.V, OutputTokens: s.OutputTokens.V, CacheReadTokens: s.Cached.V}
		for name, m := range s.Models {
			if res.ModelUsage == nil {
				res.ModelUsage = map[string]agent.ModelUsage{}
			}
			res.ModelUsage[name] = agent.ModelUsage{InputTokens: m.InputTokens.V, OutputTokens: m.OutputTokens.V, CacheReadTokens: m.Cached.V}
		}
	}
	var errText string
	if res.IsError {
		errText = "Gemini: turn failed"
		if l.Error != nil && l.Error.Message != "" {
			errText = l.Error.Message
		}
		if res.Text == "" {
			res.Text = errText
		}
	}
	msg := &agent.Message{
		ID: n.sessionID + ":result:" + l.Timestamp, Role: agent.RoleResult, Timestamp: l.Timestamp,
		Parts: []agent.Part{}, Result: agent.ResultText(res), IsError: res.IsError, Usage: res.Usage,
		DurationMs: res.DurationMs, ModelUsage: res.ModelUsage, Model: n.model,
	}
	if l.Stats != nil {
		msg.Metadata = map[string]any{"toolCalls": l.Stats.ToolCalls.V, "totalTokens": l.Stats.TotalTokens.V}
	}
	msg.Metadata = n.anoms.Into(msg.Metadata)
	evs := append(closing, agent.Event{Type: agent.EventMessage, Message: msg, Raw: raw})
	if res.IsError {
		if isQuota(errText) {
			evs = append(evs, agent.Event{Type: agent.EventRateLimit, Error: errText})
		}
		evs = append(evs, agent.Event{Type: agent.EventError, Error: errText, Fatal: true})
	}
	return append(evs, agent.Complete(res))
}

func isQuota(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "quota") || strings.Contains(s, "429") || strings.Contains(s, "rate limit") || strings.Contains(s, "resource_exhausted")
}

// ToolKind classifies Gemini CLI's native tool names.
func ToolKind(name string) agent.ToolKind {
	switch name {
	case "read_file", "read_many_files":
		return agent.ToolRead
	case "write_file", "replace", "edit":
		return agent.ToolEdit
	case "run_shell_command":
		return agent.ToolExecute
	case "glob", "grep", "grep_search", "search_file_content", "list_directory", "ls":
		return agent.ToolSearch
	case "web_fetch", "google_web_search":
		return agent.ToolFetch
	case "write_todos":
		return agent.ToolTodo
	case "ask_user":
		return agent.ToolAskUser
	case "invoke_agent", "delegate_to_agent":
		return agent.ToolSubAgent
	case "activate_skill":
		return agent.ToolSkill
	}
	return agent.ToolOther
}

// JSONNormalizer reads `--output-format json`: the whole output is one
// frame, a pretty-printed object {session_id, response, stats, error?}.
//
//	session_id        session-id
//	response          assistant message "<sid>:response" with one text part
//	stats.models      result message "<sid>:result" {modelUsage per model: input = prompt,
//	                  output = candidates, cacheRead = cached; usage = their sums}
//	                  + complete
//	error             result isError + error {fatal}
//	stats.tools/files result message metadata
type JSONNormalizer struct{}

// Feed implements agent.Normalizer.
func (n *JSONNormalizer) Feed(frame []byte) []agent.Event {
	var o jsonOutput
	if _, err := agent.Decode(frame, &o); err != nil {
		return []agent.Event{{Type: agent.EventError, Error: "gemini: malformed JSON output: " + err.Error(), Raw: bytes.Clone(frame)}}
	}
	raw := bytes.Clone(frame)
	var evs []agent.Event
	if o.SessionID != "" {
		evs = append(evs, agent.Event{Type: agent.EventSessionID, SessionID: o.SessionID})
	}
	if o.Response != "" {
		evs = append(evs, agent.Event{Type: agent.EventMessage, Raw: raw, Message: &agent.Message{
			ID: o.SessionID + ":response", Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: o.Response}},
		}})
	}
	res := &agent.Result{Text: o.Response, IsError: o.Error != nil}
	meta := map[string]any{}
	if o.Stats != nil {
		usage := agent.TokenUsage{}
		for name, m := range o.Stats.Models {
			if res.ModelUsage == nil {
				res.ModelUsage = map[string]agent.ModelUsage{}
			}
			res.ModelUsage[name] = agent.ModelUsage{InputTokens: m.Tokens.Prompt.V, OutputTokens: m.Tokens.Candidates.V, CacheReadTokens: m.Tokens.Cached.V}
			usage.InputTokens += m.Tokens.Prompt.V
			usage.OutputTokens += m.Tokens.Candidates.V
			usage.CacheReadTokens += m.Tokens.Cached.V
			usage.ReasoningTokens += m.Tokens.Thoughts.V
		}
		res.Usage = &usage
		if len(o.Stats.Tools) > 0 {
			meta["tools"] = o.Stats.Tools
		}
		if len(o.Stats.Files) > 0 {
			meta["files"] = o.Stats.Files
		}
	}
	errText := ""
	if o.Error != nil {
		errText = o.Error.Message
		if errText == "" {
			errText = "Gemini CLI reported an error"
			if o.Error.Type != "" {
				errText += " (" + o.Error.Type + ")"
			}
		}
		if res.Text == "" {
			res.Text = errText
		}
	}
	evs = append(evs, agent.Event{Type: agent.EventMessage, Raw: raw, Message: &agent.Message{
		ID: o.SessionID + ":result", Role: agent.RoleResult, Parts: []agent.Part{}, Result: agent.ResultText(res),
		IsError: res.IsError, Usage: res.Usage, ModelUsage: res.ModelUsage, Metadata: meta,
	}})
	if o.Error != nil {
		evs = append(evs, agent.Event{Type: agent.EventError, Error: errText, Fatal: true})
	}
	return append(evs, agent.Complete(res))
}

// Flush implements agent.Normalizer.
func (n *JSONNormalizer) Flush() []agent.Event { return nil }

// closeSteps ends the turn's steps at its result line: a tool call that got
// no tool_result is cancelled with the reason (the run ended, status), a
// tool-state-update each, and each step it changed, or that has deltas not
// yet emitted whole, gets the result line in its raw data and is emitted
// with the final states.
func (n *Normalizer) closeSteps(frame []byte, status string) []agent.Event {
	t := n.turn
	why := "the run ended (" + status + ") before the tool finished"
	var evs []agent.Event
	changed := map[*step]bool{}
	for _, id := range t.order {
		tl := t.tools[id]
		s := tl.step
		if tl.result >= 0 || s.msg.Parts[tl.use].State.Final() {
			continue
		}
		s.msg.Parts[tl.use].State = agent.ToolCancelled
		meta := maps.Clone(s.msg.Metadata)
		if meta == nil {
			meta = map[string]any{}
		}
		errs, _ := meta["toolErrors"].(map[string]any)
		errs = maps.Clone(errs)
		if errs == nil {
			errs = map[string]any{}
		}
		errs[id] = why
		meta["toolErrors"] = errs
		s.msg.Metadata = meta
		changed[s] = true
		evs = append(evs, agent.Event{Type: agent.EventToolStateUpdate, MessageID: s.msg.ID, ToolID: id, State: agent.ToolCancelled, Error: why})
	}
	for _, s := range t.steps {
		if changed[s] || s.dirty {
			s.add(frame)
			evs = append(evs, emit(s)) // the end of the message: emitted whole
		}
	}
	return evs
}

// lastText is the turn's last text part.
func (t *turn) lastText() string {
	for i := len(t.steps) - 1; i >= 0; i-- {
		parts := t.steps[i].msg.Parts
		for k := len(parts) - 1; k >= 0; k-- {
			if parts[k].Type == agent.PartText {
				return parts[k].Text
			}
		}
	}
	return ""
}

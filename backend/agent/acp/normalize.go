package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// FormatName is the raw format of ACP frames: JSON-RPC 2.0 messages, one per
// line, in both directions (what the client sent and what the agent sent).
const FormatName = "acp"

// Normalizer turns ACP JSON-RPC messages into normalized events. Frames may
// come from both directions; the direction is worked out from the message
// itself (client methods vs agent methods, and for responses the ids of the
// requests seen so far, falling back to the result's shape when the request
// was not recorded, as in stdout-only recordings).
//
// Mapping (frame → events):
//
//	client session/prompt {messageId?}     starts a turn; its key is messageId (the backend
//	                                       always sends one) else "<sessionId>-prompt<rpc id>";
//	                                       content without a prompt frame (stdout-only
//	                                       captures) opens turn "<sessionId>-turn<N>"
//	client session/load                    history replayed until its response is not
//	                                       re-emitted (the store already holds it)
//	client session/set_mode + its success  mode-change (when the agent did not report it)
//	client session/cancel, ...             nothing (the frame is kept raw)
//	result {sessionId, modes, models}      session-id; mode-change (currentModeId, mapped to
//	                                       ask|accept-edits|plan|bypass, else the agent's own id);
//	                                       system message "acp-session-<id>" (system-status
//	                                       "session") listing the agent's availableModes/models
//	result {protocolVersion, ...}          nothing (initialize)
//	result {stopReason, usage?, _meta?}    result message "<turn>:result" (last text, token
//	                                       usage from usage, or Gemini's _meta.quota with per-model usage)
//	                                       + complete {reason: stopReason, interrupted when
//	                                       "cancelled", isError when "refusal"}; the turn ends
//	error -32800 to prompt                 as stopReason "cancelled" (the SDK's "Request cancelled")
//	error response to prompt               error {fatal} (+ rate-limit when code 429) and the
//	                                       turn ends; to any other request: error {fatal: false}
//	                                       (on session/load the client goes on with a new session;
//	                                       on initialize or session/new it reports the failed start
//	                                       with the agent's stderr)
//	session/update:
//	  agent_message_chunk                  text part of the turn's open step (consecutive
//	                                       chunks merge; see "Steps" below)
//	  agent_thought_chunk                  reasoning part of the same step
//	  user_message_chunk                   user message "<turn>:user"
//	  tool_call                            tool-use part {toolId: toolCallId, toolName: Gemini's
//	                                       native name (toolCallId prefix before "__") else the
//	                                       title, kind: ACP kind mapped, input: rawInput else
//	                                       {title, locations, content}} + tool-state-update
//	  tool_call_update                     the tool-use part updated in place; on completed/failed
//	                                       a tool-result part (text content, else rawOutput's
//	                                       formatted/aggregated output; diff content → write
//	                                       structured result {filePath, content: newText,
//	                                       originalFile: oldText, operation create|update})
//	                                       + tool-state-update {state, result, error}
//	  plan                                 tool-use "plan" (kind todo) + tool-result with a todo
//	                                       structured result {oldTodos, newTodos}
//	  usage_update {used, size, cost}      the open step's metadata "context" {used, size};
//	                                       cost → its cost
//	  current_mode_update                  mode-change
//	  config_option_update (mode option)   mode-change when the current mode changes
//	  session_info_update {title}          session-updated {title}
//	  available_commands_update            nothing (slash commands are not offered yet)
//	  anything else                        system message with a system-status part, raw kept
//	agent session/request_permission       the tool part goes pending + tool-state-update +
//	                                       permission-request {requestId: toolCallId (else
//	                                       "rpc-<id>"), permissionOptions: the agent's options}
//	agent fs/read_text_file, write         nothing (the client serves them; the tool call shows)
//	client replies to agent requests       nothing
//	unknown method                         system message with a system-status part, raw kept
//	malformed line                         error {fatal: false, raw: the line}
//
// Steps: a turn's assistant output is split into steps, one message each,
// as Claude Code's API messages are. A step ends with the results of its
// tool calls (a tool_call or update that completes or fails the open
// step's call), and the agent's next output (a chunk, a new tool call, a
// first plan) opens the next one. The first step is "<turn>:assistant"; a
// later one "<turn>:assistant:<toolCallId>", the call that ended last
// before it. A frame about a tool call (its updates, its permission request
// and the client's answer) goes to that call's step, a late result included;
// any other frame to the open step. A step's Raw is the prompt frame, for a
// later step the frame that ended that call (the anchor that names it),
// then its own frames, so feeding it to a fresh Normalizer rebuilds the
// step with the same id; the session/cancel frame also goes to every step
// with a call still open, which the turn's end closes. A long turn then
// costs linear bytes: a turn kept as one message and emitted whole at every
// tool state cost O(n²). Messages stored before steps hold a whole turn:
// agent.Rebuild folds its steps back into them (Format().Steps). The user
// message and the result message hold the turn's frames so far.
type Normalizer struct {
	outReq  map[string]pending // requests the client sent, by id
	inReq   map[string]pending // requests the agent sent, by id
	setMode map[string]string  // id → mode of session/set_mode requests in flight
	seq     int

	sessionID string
	turns     int
	turn      *turn
	replaying bool
	mode      string // the agent's current mode id

	perms map[string]permAsk // agent request id → the permission request it made
	notes []string           // fields that could not be read (see decode), not yet shown

	routed *step // the step the frame being fed was added to, nil for none yet
}

// permAsk is a permission request the agent made, until the client answers.
type permAsk struct {
	toolID  string
	options []permissionOption
}

// pending is a request waiting for its response; seq orders requests.
type pending struct {
	method string
	seq    int
}

// turn is one prompt turn being built.
type turn struct {
	key    string
	raw    []byte // append-only, every frame of the turn; events share prefixes of it
	prompt []byte // the turn's first frame, first of every step's raw data
	user   *agent.Message
	steps  []*step
	tools  map[string]*toolState
	plan   []agent.TodoItem

	cancelSent bool // the client sent session/cancel during the turn
	denied     bool // the user denied a permission during the turn
	notes      *[]string
}

// step is one assistant message of a turn: the agent's output up to the
// results of its tool calls; its next output opens the next step. A long
// turn is then many bounded messages, each emitted whole only at its own
// changes (a turn kept as one message, emitted whole at every tool state,
// cost O(n²)).
type step struct {
	raw []byte // append-only: the prompt frame, the anchor (later steps), the step's frames
	msg agent.Message

	emitted int      // parts of msg in its last whole emission
	dirty   bool     // deltas were emitted since the last whole emission
	unread  []string // fields that could not be read in the step (the first few)

	tail     strings.Builder // the text of part tailPart, as streamed
	tailPart int             // the text or reasoning part being streamed, -1 for none

	anchor  []byte // the frame that ended this step's last tool call: the next step's anchor
	afterID string // that tool call's id
}

type toolState struct {
	step     *step // the step whose message holds the tool call
	use      int   // index of the tool-use part
	result   int   // index of the tool-result part, -1 until there is one
	title    string
	rawInput bool   // Input is the agent's rawInput, not synthesized
	mcpName  string // mcp__server__tool when rawInput names an MCP call (codex-acp)
	content  json.RawMessage
	output   json.RawMessage
}

// NewNormalizer returns a fresh ACP normalizer.
func NewNormalizer() *Normalizer {
	return &Normalizer{outReq: map[string]pending{}, inReq: map[string]pending{}, setMode: map[string]string{}, perms: map[string]permAsk{}}
}

var _ agent.Normalizer = (*Normalizer)(nil)

// Flush implements agent.Normalizer: at the end of the stream (the agent
// exited or was stopped) a turn still open ends: its tool calls not yet
// finished become interrupted and its message is emitted whole.
func (n *Normalizer) Flush() []agent.Event {
	t := n.turn
	if t == nil {
		return nil
	}
	n.turn = nil
	var evs []agent.Event
	for _, s := range t.steps {
		closing := s.finishTools("", "the agent stopped before this tool call ended")
		if len(s.msg.Parts) > 0 && (s.dirty || len(closing) > 0) {
			evs = append(evs, t.emit(s))
		}
		evs = append(evs, closing...)
	}
	return evs
}

// Feed implements agent.Normalizer.
func (n *Normalizer) Feed(frame []byte) []agent.Event {
	// Fast path: most frames are session/update notifications; decode them
	// in one pass.
	if bytes.Contains(frame, []byte(`"session/update"`)) {
		var uf updateFrame
		if json.Unmarshal(frame, &uf) == nil && uf.Method == methodUpdate && len(uf.ID) == 0 && uf.Params.Update != nil {
			return n.routing(frame, func() []agent.Event {
				return n.sessionUpdate(frame, uf.Params.SessionID, uf.Params.Update)
			})
		}
	}
	var m rpcMessage
	if !decode(frame, &m, &n.notes) {
		return []agent.Event{malformed(frame, "not a JSON object")}
	}
	if m.Method == "" && len(m.ID) == 0 {
		if len(m.Result) == 0 && m.Error == nil {
			return []agent.Event{malformed(frame, "neither a method nor an id")}
		}
		m.ID = json.RawMessage(`null`) // a response whose id could not be read
	}
	return n.routing(frame, func() []agent.Event { return n.dispatch(frame, &m) })
}

// routing adds frame to the open turn's frames and runs handle, which adds
// it to the step it concerns (into); a frame it added to none goes to the
// turn's last step, so each step's raw data holds every frame since it
// opened that is not another step's.
func (n *Normalizer) routing(frame []byte, handle func() []agent.Event) []agent.Event {
	t := n.turn
	if t != nil {
		t.addRaw(frame)
	}
	n.seq++
	n.routed = nil
	evs := handle()
	if t != nil && n.turn == t && n.routed == nil {
		t.last().add(frame)
	}
	n.routed = nil
	return evs
}

// into adds the frame being fed to step s's raw data, once.
func (n *Normalizer) into(s *step, frame []byte) {
	if n.routed != s {
		s.add(frame)
		n.routed = s
	}
}

func (n *Normalizer) dispatch(frame []byte, m *rpcMessage) []agent.Event {
	id := idKey(m.ID)
	switch {
	case m.Method != "" && clientMethods[m.Method]:
		if m.isRequest() {
			n.outReq[id] = pending{m.Method, n.seq}
		}
		return n.clientRequest(frame, m)
	case m.isRequest():
		n.inReq[id] = pending{m.Method, n.seq}
		return n.agentRequest(frame, m, id)
	case m.isNotification():
		switch m.Method {
		case methodUpdate:
			var p updateParams
			if !decode(m.Params, &p, &n.notes) {
				return []agent.Event{malformed(frame, "session/update without params")}
			}
			var u sessionUpd
			if !decode(p.Update, &u, &n.notes) {
				return []agent.Event{malformed(frame, "session/update without an update")}
			}
			return n.sessionUpdate(frame, p.SessionID, &u)
		case "$/cancel_request":
			return nil
		}
		return n.unknownFrame(frame, "notification "+m.Method)
	default:
		return n.response(frame, m, id)
	}
}

func malformed(frame []byte, why string) agent.Event {
	return agent.Event{Type: agent.EventError, Error: "acp: malformed message: " + why, Raw: bytes.Clone(frame)}
}

// idKey is a JSON-RPC id as a map key: strings unquoted, numbers as written.
func idKey(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	var f float64
	if bytes.ContainsAny(raw, ".eE") && json.Unmarshal(raw, &f) == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10) // 3.0 is the id 3
	}
	return string(raw)
}

func (t *turn) addRaw(frame []byte) { t.raw = agent.AppendFrame(t.raw, frame) }

func (s *step) add(frame []byte) { s.raw = agent.AppendFrame(s.raw, frame) }

// rawSoFar is the turn's frames so far; later appends never touch it.
func (t *turn) rawSoFar() []byte { return t.raw[:len(t.raw):len(t.raw)] }

// startTurn opens a turn whose first frame is frame.
func (n *Normalizer) startTurn(frame []byte, key string) *turn {
	n.turns++
	if key == "" {
		key = fmt.Sprintf("%s-turn%d", n.sessionID, n.turns)
	}
	t := &turn{key: key, tools: map[string]*toolState{}, notes: &n.notes, prompt: bytes.Clone(frame)}
	n.notes = n.notes[:0] // what was unreadable before the turn is not its business
	t.addRaw(frame)
	s := &step{msg: agent.Message{ID: key + ":assistant", Role: agent.RoleAssistant}, tailPart: -1}
	t.steps = []*step{s}
	n.into(s, frame)
	n.turn = t
	return t
}

// output returns the step the agent's output frame (text, a new tool call,
// a new plan) goes to: the open step, or a new one when the open step's
// tool calls have ended. A later step is "<turn>:assistant:<tool call id>",
// the call that ended last before it; its raw data is the prompt frame,
// the frame that ended that call (the anchor) and its own frames, so a
// fresh normalizer fed it names it alike.
func (n *Normalizer) output(frame []byte) *step {
	t := n.ensureTurn(frame)
	s := t.last()
	if s.anchor != nil {
		s = &step{msg: agent.Message{ID: t.key + ":assistant:" + s.afterID, Role: agent.RoleAssistant}, tailPart: -1,
			raw: agent.AppendFrame(agent.AppendFrame(nil, t.prompt), s.anchor)}
		t.steps = append(t.steps, s)
	}
	n.into(s, frame)
	return s
}

// toolStep returns the step of the open turn's tool call id and the call's
// state, adding frame to that step; for a call not seen yet, the step the
// agent's output goes to (output) and nil.
func (n *Normalizer) toolStep(frame []byte, id string) (*step, *toolState) {
	if ts := n.turn.tools[id]; ts != nil {
		n.into(ts.step, frame)
		return ts.step, ts
	}
	return n.output(frame), nil
}

// last is the turn's open step.
func (t *turn) last() *step { return t.steps[len(t.steps)-1] }

// ensureTurn returns the open turn, opening one at frame when a turn's
// content arrives without its prompt (stdout-only recordings).
func (n *Normalizer) ensureTurn(frame []byte) *turn {
	if n.turn == nil {
		return n.startTurn(frame, "")
	}
	return n.turn
}

func (n *Normalizer) clientRequest(frame []byte, m *rpcMessage) []agent.Event {
	switch m.Method {
	case methodPrompt:
		var p promptParams
		decode(m.Params, &p, &n.notes)
		if p.SessionID != "" {
			n.sessionID = p.SessionID
		}
		n.replaying = false
		n.turn = nil
		key := p.MessageID
		if key == "" { // an id the frame itself carries, so Raw rebuilds it
			key = n.sessionID + "-prompt" + idKey(m.ID)
		}
		n.startTurn(frame, key)
	case methodSetMode:
		var p setModeParams
		if decode(m.Params, &p, &n.notes) && m.isRequest() {
			n.setMode[idKey(m.ID)] = p.ModeID
		}
	case methodCancel:
		if t := n.turn; t != nil {
			t.cancelSent = true
			// Every step that may be ended with the turn learns it too.
			for _, s := range t.steps {
				if s == t.last() || s.hasOpenTools() {
					s.add(frame)
				}
			}
			n.routed = t.last()
		}
	case methodSessionLoad:
		var p sessionParams
		decode(m.Params, &p, &n.notes)
		if p.SessionID != "" {
			n.sessionID = p.SessionID
		}
		n.replaying = true
	}
	return nil
}

func (n *Normalizer) agentRequest(frame []byte, m *rpcMessage, id string) []agent.Event {
	switch m.Method {
	case methodPermission:
		var p permissionParams
		if !decode(m.Params, &p, &n.notes) {
			return []agent.Event{malformed(frame, "session/request_permission without params")}
		}
		return n.permission(frame, &p, id)
	case methodReadFile, methodWriteFile:
		return nil
	}
	return n.unknownFrame(frame, "request "+m.Method)
}

func (n *Normalizer) response(frame []byte, m *rpcMessage, id string) []agent.Event {
	out, sent := n.outReq[id]
	in, asked := n.inReq[id]
	outMethod := out.method
	// Both sides number their own requests, so an id can be pending both
	// ways; a reply goes to the later request (the agent's fs or permission
	// request is answered before the prompt it belongs to ends).
	var ours bool
	switch {
	case asked && !sent:
		ours = !looksLikeAgentResult(m) // stdout-only captures have no client requests
	case asked && sent:
		ours = looksLikeClientReply(m) || (m.Error != nil && in.seq > out.seq)
	}
	if ours {
		delete(n.inReq, id)
		if in.method == methodPermission {
			return n.permissionReply(frame, m, id)
		}
		return nil
	}
	if sent {
		delete(n.outReq, id)
	}
	if mode, ok := n.setMode[id]; ok && outMethod == methodSetMode {
		delete(n.setMode, id)
		if m.Error == nil {
			return n.modeChange(mode)
		}
	}
	if m.Error != nil {
		return n.errorResponse(frame, m.Error, outMethod)
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(m.Result, &probe) != nil {
		return nil // null or a non-object result: an acknowledgement
	}
	switch {
	case probe["stopReason"] != nil:
		return n.promptEnd(frame, m.Result)
	case probe["sessionId"] != nil || outMethod == methodSessionLoad:
		return n.sessionStarted(frame, m.Result, outMethod)
	}
	return nil
}

// looksLikeAgentResult tells an agent's result (initialize, session/new or
// load, session/prompt) by its shape.
func looksLikeAgentResult(m *rpcMessage) bool {
	var probe map[string]json.RawMessage
	if m.Error != nil || json.Unmarshal(m.Result, &probe) != nil {
		return false
	}
	return probe["stopReason"] != nil || probe["sessionId"] != nil || probe["protocolVersion"] != nil
}

// looksLikeClientReply tells the client's answer to an agent request from the
// agent's answer to a client request with the same id.
func looksLikeClientReply(m *rpcMessage) bool {
	if m.Error != nil {
		return false
	}
	r := bytes.TrimSpace(m.Result)
	if len(r) == 0 || string(r) == "null" {
		return true
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(r, &probe) != nil {
		return false
	}
	return probe["outcome"] != nil || probe["content"] != nil
}

func (n *Normalizer) errorResponse(frame []byte, e *rpcError, method string) []agent.Event {
	msg := errorText(e)
	label := method + " failed: "
	// A failed session/load is not fatal: the client starts a new session.
	// Nor is a failed initialize or session/new: the client ends the
	// session with one fatal error that carries the agent's stderr.
	fatal := method == methodPrompt || method == ""
	if method == "" {
		label = "agent error: " // the request was not recorded (stdout-only capture)
	}
	var evs []agent.Event
	if method == methodSessionLoad {
		n.replaying = false
	}
	if method == methodPrompt && e.Code == -32800 {
		// "Request cancelled": the agent gave up the prompt on session/cancel.
		return n.promptEnd(frame, json.RawMessage(`{"stopReason":"cancelled"}`))
	}
	if e.Code == 429 {
		evs = append(evs, agent.Event{Type: agent.EventRateLimit, Error: msg})
	}
	evs = append(evs, agent.Event{Type: agent.EventError, Error: label + msg, Fatal: fatal, Raw: bytes.Clone(frame)})
	if fatal && method != methodSessionLoad {
		n.turn = nil
	}
	return evs
}

// errorText makes a JSON-RPC error readable: Gemini puts the API's JSON
// error in the message, other agents put details in data.
func errorText(e *rpcError) string {
	msg := e.Message
	var inner struct {
		Error struct {
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	if strings.HasPrefix(strings.TrimSpace(msg), "{") && json.Unmarshal([]byte(msg), &inner) == nil && inner.Error.Message != "" {
		msg = inner.Error.Message
		if inner.Error.Status != "" {
			msg += " (" + inner.Error.Status + ")"
		}
	}
	if len(e.Data) > 0 && string(e.Data) != "null" {
		var d struct {
			Details string `json:"details"`
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Data, &d) == nil && (d.Details != "" || d.Message != "") {
			msg += ": " + d.Details + d.Message
		} else if json.Unmarshal(e.Data, &d.Details) == nil && d.Details != "" {
			msg += ": " + d.Details
		}
	}
	return fmt.Sprintf("%s (code %d)", msg, e.Code)
}

func (n *Normalizer) sessionStarted(frame []byte, result json.RawMessage, method string) []agent.Event {
	var r sessionResult
	decode(result, &r, &n.notes)
	if method == methodSessionLoad {
		n.replaying = false
	}
	if r.SessionID == "" {
		r.SessionID = n.sessionID
	}
	n.sessionID = r.SessionID
	var evs []agent.Event
	if r.SessionID != "" {
		evs = append(evs, agent.Event{Type: agent.EventSessionID, SessionID: r.SessionID})
	}
	if r.Modes == nil && len(r.Models) == 0 {
		return evs
	}
	meta := map[string]any{}
	text := "Session " + r.SessionID
	if r.Modes != nil {
		meta["availableModes"] = r.Modes.AvailableModes
		meta["currentModeId"] = r.Modes.CurrentModeID
		names := make([]string, len(r.Modes.AvailableModes))
		for i, md := range r.Modes.AvailableModes {
			names[i] = md.Name
			if md.ID == r.Modes.CurrentModeID {
				names[i] += " (current)"
			}
		}
		text += "; modes: " + strings.Join(names, ", ")
	}
	if len(r.Models) > 0 {
		meta["models"] = r.Models
	}
	evs = append(evs, agent.Event{Type: agent.EventMessage, Raw: bytes.Clone(frame), Message: &agent.Message{
		ID:       "acp-session-" + r.SessionID,
		Role:     agent.RoleSystem,
		Parts:    []agent.Part{{Type: agent.PartSystemStatus, Subtype: "session", Text: text}},
		Metadata: meta,
	}})
	if r.Modes != nil && r.Modes.CurrentModeID != "" {
		evs = append(evs, n.modeChange(r.Modes.CurrentModeID)...)
	}
	return evs
}

func (n *Normalizer) modeChange(id string) []agent.Event {
	if id == "" || id == n.mode {
		return nil
	}
	n.mode = id
	return []agent.Event{{Type: agent.EventModeChange, Mode: ModeFromAgent(id)}}
}

func (n *Normalizer) promptEnd(frame []byte, result json.RawMessage) []agent.Event {
	var r promptResult
	decode(result, &r, &n.notes)
	t := n.turn
	if t == nil {
		t = n.startTurn(frame, "")
	}
	n.turn = nil
	res := &agent.Result{
		Reason: r.StopReason,
		// Some agents (the SDKs' examples) answer a cancelled turn with
		// end_turn: the client's session/cancel still makes it interrupted.
		Interrupted: r.StopReason == "cancelled" || t.cancelSent,
		IsError:     r.StopReason == "refusal",
	}
	if r.StopReason == "cancelled" && t.denied && !t.cancelSent {
		// The agent ended the turn itself on a deny (codex-acp's only
		// reject option is "abort"): the user denied, nobody interrupted.
		res.Interrupted, res.Reason = false, "denied"
	}
	var evs []agent.Event
	for _, s := range t.steps {
		closing := s.closeAtEnd(r.StopReason, res.Interrupted, t.cancelSent)
		if len(s.msg.Parts) > 0 && (s.dirty || len(closing) > 0) {
			n.into(s, frame) // a step emitted here has the end in its raw data
			evs = append(evs, t.emit(s))
		}
		evs = append(evs, closing...)
	}
	res.Text = t.lastText()
	if u := r.Usage; u != nil {
		res.Usage = &agent.TokenUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheReadTokens: u.CachedReadTokens, CacheCreationTokens: u.CachedWriteTokens, ReasoningTokens: u.ThoughtTokens}
	}
	if r.Meta != nil && r.Meta.Quota != nil {
		if tc := r.Meta.Quota.TokenCount; tc != nil {
			res.Usage = &agent.TokenUsage{InputTokens: tc.InputTokens, OutputTokens: tc.OutputTokens}
		}
		for _, mu := range r.Meta.Quota.ModelUsage {
			if mu.TokenCount == nil {
				continue
			}
			if res.ModelUsage == nil {
				res.ModelUsage = map[string]agent.ModelUsage{}
			}
			res.ModelUsage[mu.Model] = agent.ModelUsage{InputTokens: mu.TokenCount.InputTokens, OutputTokens: mu.TokenCount.OutputTokens}
		}
	}
	msg := &agent.Message{
		ID:         t.key + ":result",
		Role:       agent.RoleResult,
		Result:     agent.ResultText(res),
		IsError:    res.IsError,
		Usage:      res.Usage,
		ModelUsage: res.ModelUsage,
		Parts:      []agent.Part{},
		Metadata:   map[string]any{"stopReason": r.StopReason},
	}
	return append(evs,
		agent.Event{Type: agent.EventMessage, Message: msg, Raw: t.rawSoFar()},
		agent.Complete(res),
	)
}

// lastText is the turn's last text part.
func (t *turn) lastText() string {
	for i := len(t.steps) - 1; i >= 0; i-- {
		s := t.steps[i]
		s.sync()
		for k := len(s.msg.Parts) - 1; k >= 0; k-- {
			if s.msg.Parts[k].Type == agent.PartText {
				return s.msg.Parts[k].Text
			}
		}
	}
	return ""
}

// hasOpenTools tells whether a tool call of the step is pending or running.
func (s *step) hasOpenTools() bool {
	for _, p := range s.msg.Parts {
		if p.Type == agent.PartToolUse && (p.State == agent.ToolPending || p.State == agent.ToolRunning) {
			return true
		}
	}
	return false
}

// closeAtEnd ends the step's tool calls left open when the turn ended with
// stopReason: completed after a normal end, else interrupted (or cancelled,
// for a permission never answered) with the reason.
func (s *step) closeAtEnd(stopReason string, interrupted, cancelSent bool) []agent.Event {
	switch {
	case stopReason == "end_turn" && !cancelSent:
		return s.finishTools(agent.ToolCompleted, "")
	case stopReason == "cancelled" && !interrupted:
		return s.finishTools("", "the turn ended on a deny")
	case stopReason == "cancelled" || stopReason == "end_turn":
		return s.finishTools("", "the turn was cancelled")
	}
	return s.finishTools("", "the turn ended ("+stopReason+") before this tool call did")
}

// finishTools gives every tool call of the step still pending or running a
// final state: done for one the agent left running when its turn ended
// normally, else cancelled (a permission never answered) or interrupted,
// with why. It returns the tool-state-updates; the caller emits the message.
func (s *step) finishTools(done agent.ToolState, why string) []agent.Event {
	var evs []agent.Event
	for i := range s.msg.Parts {
		p := &s.msg.Parts[i]
		if p.Type != agent.PartToolUse || (p.State != agent.ToolPending && p.State != agent.ToolRunning) {
			continue
		}
		st, reason := done, why
		switch {
		case p.State == agent.ToolPending:
			st = agent.ToolCancelled
			if reason == "" {
				reason = "the permission request was never answered"
			}
		case st == "":
			st = agent.ToolInterrupted
		}
		p.State = st
		ev := agent.Event{Type: agent.EventToolStateUpdate, MessageID: s.msg.ID, ToolID: p.ToolID, State: st, Error: reason}
		evs = append(evs, ev)
	}
	return evs
}

// emit snapshots step s's message; the fields the turn could not read
// since the last emission go into its metadata.
func (t *turn) emit(s *step) agent.Event {
	if len(*t.notes) > 0 {
		for _, note := range *t.notes {
			if len(s.unread) < 10 {
				s.unread = append(s.unread, note)
			}
		}
		*t.notes = (*t.notes)[:0]
		if s.msg.Metadata == nil {
			s.msg.Metadata = map[string]any{}
		}
		// Replaced, not appended: unread holds the step's first few.
		s.msg.Metadata[agent.AnomaliesKey] = slices.Clone(s.unread)
	}
	s.sync()
	s.emitted, s.dirty = len(s.msg.Parts), false
	m := s.msg
	m.Parts = slices.Clone(s.msg.Parts)
	if s.msg.Metadata != nil {
		m.Metadata = make(map[string]any, len(s.msg.Metadata))
		for k, v := range s.msg.Metadata {
			m.Metadata[k] = v
		}
	}
	return agent.Event{Type: agent.EventMessage, Message: &m, Raw: s.raw[:len(s.raw):len(s.raw)]}
}

func (n *Normalizer) sessionUpdate(frame []byte, sessionID string, u *sessionUpd) []agent.Event {
	if sessionID != "" && n.sessionID == "" {
		n.sessionID = sessionID
	}
	switch u.SessionUpdate {
	case "agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "tool_call", "tool_call_update", "plan":
		if n.replaying {
			return nil
		}
	}
	switch u.SessionUpdate {
	case "agent_message_chunk":
		return n.chunk(frame, agent.PartText, u.Content)
	case "agent_thought_chunk":
		return n.chunk(frame, agent.PartReasoning, u.Content)
	case "user_message_chunk":
		t := n.ensureTurn(frame)
		if t.user == nil {
			t.user = &agent.Message{ID: t.key + ":user", Role: agent.RoleUser}
		}
		t.user.Parts = appendChunk(t.user.Parts, agent.PartText, u.Content)
		um := *t.user
		um.Parts = slices.Clone(t.user.Parts)
		return []agent.Event{{Type: agent.EventMessage, Message: &um, Raw: t.rawSoFar()}}
	case "tool_call", "tool_call_update":
		var content json.RawMessage
		if u.SessionUpdate == "tool_call" || len(u.Content) > 0 {
			content = u.Content
		}
		return n.tool(frame, u.toolCall, u.Title, content)
	case "plan":
		return n.planUpdate(frame, u.Entries)
	case "usage_update":
		if n.turn == nil {
			return nil
		}
		t := n.turn
		s := t.last()
		n.into(s, frame)
		ctx := map[string]any{}
		if u.Used != nil {
			ctx["used"] = *u.Used
		}
		if u.Size != nil {
			ctx["size"] = *u.Size
		}
		if s.msg.Metadata == nil {
			s.msg.Metadata = map[string]any{}
		}
		s.msg.Metadata["context"] = ctx
		var cost struct {
			Amount   float64 `json:"amount"`
			Currency string  `json:"currency"`
		}
		if len(u.Cost) > 0 && decode(u.Cost, &cost, &n.notes) && (cost.Currency == "" || cost.Currency == "USD") {
			s.msg.Cost = &agent.CostInfo{CostUSD: cost.Amount}
		}
		return []agent.Event{t.emit(s)}
	case "current_mode_update":
		return n.modeChange(u.CurrentModeID)
	case "config_option_update":
		for _, o := range u.ConfigOptions {
			if s, ok := o.CurrentValue.(string); ok && (o.ID == "mode" || o.Category == "mode") {
				return n.modeChange(s)
			}
		}
		return nil
	case "session_info_update":
		if u.Title == nil {
			return nil
		}
		return []agent.Event{{Type: agent.EventSessionUpdated, Title: *u.Title}}
	case "available_commands_update":
		return nil
	}
	return n.unknownFrame(frame, "session update "+u.SessionUpdate)
}

// chunk adds streamed text: a delta when it extends a part already emitted,
// else (a new part) the whole message.
func (n *Normalizer) chunk(frame []byte, typ agent.PartType, content json.RawMessage) []agent.Event {
	s := n.output(frame)
	t := n.turn
	var b contentBlock
	decode(content, &b, t.notes)
	k := len(s.msg.Parts) - 1
	if (b.Type == "text" || b.Type == "") && k >= 0 && s.msg.Parts[k].Type == typ && s.tailPart == k {
		// Streamed text: appended to a builder (linear), materialized at
		// the next whole emission.
		s.tail.WriteString(b.Text)
		if k >= s.emitted || len(*t.notes) > 0 {
			return []agent.Event{t.emit(s)}
		}
		if b.Text == "" {
			return nil
		}
		added := b.Text
		field := agent.DeltaText
		if typ == agent.PartReasoning {
			field = agent.DeltaReason
		}
		s.dirty = true
		return []agent.Event{{Type: agent.EventDelta, MessageID: s.msg.ID, Raw: bytes.Clone(frame),
			Delta: &agent.Delta{Part: k, Field: field, Text: added}}}
	}
	s.sync()
	s.msg.Parts = appendChunk(s.msg.Parts, typ, content)
	if k = len(s.msg.Parts) - 1; s.msg.Parts[k].Type == typ {
		s.tailPart = k
		s.tail.Reset()
		s.tail.WriteString(s.msg.Parts[k].Text)
	}
	return []agent.Event{t.emit(s)}
}

// sync writes the streamed text of the open part into the message.
func (s *step) sync() {
	if s.tailPart >= 0 && s.tailPart < len(s.msg.Parts) {
		s.msg.Parts[s.tailPart].Text = s.tail.String()
	}
}

// appendChunk adds a content block to parts, merging text into the last
// part when it has the same type.
func appendChunk(parts []agent.Part, typ agent.PartType, content json.RawMessage) []agent.Part {
	var b contentBlock
	decode(content, &b, nil)
	switch b.Type {
	case "text", "":
		if k := len(parts) - 1; k >= 0 && parts[k].Type == typ {
			parts[k].Text += b.Text
			return parts
		}
		return append(parts, agent.Part{Type: typ, Text: b.Text})
	case "resource_link":
		return append(parts, agent.Part{Type: agent.PartFile, Path: b.URI, Mime: b.MimeType})
	case "resource":
		p := agent.Part{Type: agent.PartFile, Mime: b.MimeType}
		if b.Resource != nil {
			p.Path = b.Resource.URI
			if b.Resource.Text != "" {
				p.Content = agent.StringContent(b.Resource.Text)
			}
		}
		return append(parts, p)
	default: // image, audio
		return append(parts, agent.Part{Type: agent.PartFile, Mime: b.MimeType, Path: b.URI})
	}
}

// tool applies a tool_call, tool_call_update or a permission request's
// toolCall to the turn's assistant message.
func (n *Normalizer) tool(frame []byte, tc toolCall, title *string, content json.RawMessage) []agent.Event {
	t := n.ensureTurn(frame)
	s, ts := n.toolStep(frame, tc.ToolCallID)
	var changedState bool
	if ts == nil {
		ts = &toolState{step: s, use: len(s.msg.Parts), result: -1}
		t.tools[tc.ToolCallID] = ts
		s.msg.Parts = append(s.msg.Parts, agent.Part{
			Type:   agent.PartToolUse,
			ToolID: tc.ToolCallID,
			Kind:   ToolKind(tc.Kind, tc.ToolCallID),
			State:  agent.ToolRunning,
		})
		changedState = true
	}
	p := s.msg.Parts[ts.use]
	if title != nil {
		ts.title = *title
	}
	if tc.Kind != "" {
		p.Kind = ToolKind(tc.Kind, tc.ToolCallID)
	}
	if content != nil {
		ts.content = content
	}
	if len(tc.RawOutput) > 0 {
		ts.output = tc.RawOutput
	}
	if ts.mcpName == "" {
		ts.mcpName = mcpToolName(tc.RawInput)
	}
	p.ToolName = toolName(tc.ToolCallID, ts.title, tc.Kind, p.ToolName)
	if ts.mcpName != "" {
		// codex-acp titles its MCP calls "Tool: server/tool", then its
		// permission request "Approve MCP tool call": name it as Claude
		// Code does, so the task view shows the server and the tool.
		p.ToolName = ts.mcpName
	}
	if len(tc.RawInput) > 0 {
		p.Input = tc.RawInput
		ts.rawInput = true
	} else if !ts.rawInput && (len(p.Input) == 0 || content != nil || title != nil) {
		p.Input = synthInput(ts.title, tc.Locations, ts.content)
	}
	if tc.Status != "" {
		st := toolStateOf(tc.Status)
		if (p.State == agent.ToolDenied || p.State == agent.ToolCancelled) && st != agent.ToolCompleted {
			st = p.State // the agent reports a refused call as failed: it stays refused
		}
		if st != p.State {
			p.State = st
			changedState = true
		}
	}
	s.msg.Parts[ts.use] = p
	var result string
	if p.State == agent.ToolCompleted || p.State == agent.ToolError {
		rp := toolResult(tc.ToolCallID, ts, p.State == agent.ToolError)
		result = rp.TextContent()
		if ts.result < 0 {
			ts.result = len(s.msg.Parts)
			s.msg.Parts = append(s.msg.Parts, rp)
		} else {
			s.msg.Parts[ts.result] = rp
		}
		if s == t.last() { // the agent's next output opens a step
			s.anchor, s.afterID = bytes.Clone(frame), tc.ToolCallID
		}
	}
	evs := []agent.Event{t.emit(s)}
	if changedState {
		ev := agent.Event{Type: agent.EventToolStateUpdate, MessageID: s.msg.ID, ToolID: tc.ToolCallID, State: p.State}
		if p.State == agent.ToolError {
			ev.Error = result
			if ev.Error == "" {
				ev.Error = "tool call failed"
			}
		} else {
			ev.ToolResult = result
		}
		evs = append(evs, ev)
	}
	return evs
}

// toolName is Gemini's native tool name (its toolCallIds are
// "<tool>__<tool>_<n>"), else the title, else the ACP kind.
// mcpToolName is mcp__server__tool when an MCP call's rawInput names its
// server and tool ({"server", "tool", "arguments"}, as codex-acp sends);
// "" otherwise.
func mcpToolName(raw json.RawMessage) string {
	var in struct {
		Server    string          `json:"server"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &in) != nil || in.Server == "" || in.Tool == "" || len(in.Arguments) == 0 {
		return ""
	}
	return "mcp__" + in.Server + "__" + in.Tool
}

func toolName(id, title, kind, prev string) string {
	if i := strings.Index(id, "__"); i > 0 {
		return id[:i]
	}
	switch {
	case title != "":
		return title
	case prev != "":
		return prev
	case kind != "":
		return kind
	}
	return "tool"
}

func synthInput(title string, locations, content json.RawMessage) json.RawMessage {
	in := map[string]json.RawMessage{}
	if title != "" {
		in["title"] = agent.StringContent(title)
	}
	if len(locations) > 0 && string(locations) != "[]" {
		in["locations"] = locations
	}
	if len(content) > 0 && string(content) != "[]" {
		in["content"] = content
	}
	b, _ := json.Marshal(in)
	return b
}

// toolResult builds the tool-result part from the call's latest content.
func toolResult(id string, ts *toolState, failed bool) agent.Part {
	p := agent.Part{Type: agent.PartToolResult, ToolID: id, IsError: failed, Title: ts.title}
	var items []toolContent
	decode(ts.content, &items, nil)
	var texts []string
	for _, c := range items {
		switch c.Type {
		case "content":
			var b contentBlock
			if decode(c.Content, &b, nil) && b.Text != "" {
				texts = append(texts, b.Text)
			}
		case "diff":
			sr := &agent.StructuredResult{Kind: agent.StructuredWrite, FilePath: c.Path, Operation: "create"}
			if c.NewText != nil {
				sr.Content = *c.NewText
			}
			if c.OldText != nil && *c.OldText != "" {
				old := *c.OldText
				sr.OriginalFile = &old
				sr.Operation = "update"
			}
			p.StructuredResult = sr
		case "terminal":
			texts = append(texts, "[terminal "+c.TerminalID+"]")
		}
	}
	text := strings.Join(texts, "\n")
	if text == "" {
		text = rawOutputText(ts.output)
	}
	if text == "" && p.StructuredResult != nil {
		text = p.StructuredResult.Operation + " " + p.StructuredResult.FilePath
	}
	p.Content = agent.StringContent(text)
	return p
}

// rawOutputText finds the output in an agent's rawOutput (codex-acp puts the
// command's formatted_output / aggregated_output / stdout there).
func rawOutputText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) == nil {
		for _, k := range []string{"formatted_output", "aggregated_output", "output", "stdout", "content"} {
			if json.Unmarshal(o[k], &s) == nil && s != "" {
				return s
			}
		}
	}
	return string(raw)
}

func toolStateOf(status string) agent.ToolState {
	switch status {
	case "pending":
		return agent.ToolPending
	case "completed":
		return agent.ToolCompleted
	case "failed":
		return agent.ToolError
	}
	return agent.ToolRunning
}

// ToolKind maps an ACP tool kind (and Gemini's native tool name, when the
// tool call id carries it) to a normalized kind.
func ToolKind(kind, toolCallID string) agent.ToolKind {
	if i := strings.Index(toolCallID, "__"); i > 0 {
		switch toolCallID[:i] {
		case "write_todos":
			return agent.ToolTodo
		case "ask_user":
			return agent.ToolAskUser
		case "activate_skill":
			return agent.ToolSkill
		}
	}
	switch kind {
	case "read":
		return agent.ToolRead
	case "edit", "delete", "move":
		return agent.ToolEdit
	case "search":
		return agent.ToolSearch
	case "execute":
		return agent.ToolExecute
	case "think":
		return agent.ToolThink
	case "fetch":
		return agent.ToolFetch
	}
	return agent.ToolOther
}

func (n *Normalizer) planUpdate(frame []byte, entries []planEntry) []agent.Event {
	t := n.ensureTurn(frame)
	todos := make([]agent.TodoItem, len(entries))
	for i, e := range entries {
		todos[i] = agent.TodoItem{Content: e.Content, Status: e.Status, Priority: e.Priority}
	}
	id := t.key + ":plan"
	input, _ := json.Marshal(map[string]any{"entries": entries})
	res := agent.Part{
		Type: agent.PartToolResult, ToolID: id, Title: "Plan",
		Content:          agent.StringContent(fmt.Sprintf("%d plan entries", len(todos))),
		StructuredResult: &agent.StructuredResult{Kind: agent.StructuredTodo, OldTodos: t.plan, NewTodos: todos},
	}
	t.plan = todos
	s, ts := n.toolStep(frame, id)
	if ts == nil {
		ts = &toolState{step: s, use: len(s.msg.Parts), result: len(s.msg.Parts) + 1}
		t.tools[id] = ts
		s.msg.Parts = append(s.msg.Parts, agent.Part{}, agent.Part{})
	}
	s.msg.Parts[ts.use] = agent.Part{Type: agent.PartToolUse, ToolID: id, ToolName: "plan", Kind: agent.ToolTodo, State: agent.ToolCompleted, Input: input}
	s.msg.Parts[ts.result] = res
	return []agent.Event{t.emit(s)}
}

func (n *Normalizer) permission(frame []byte, p *permissionParams, id string) []agent.Event {
	if p.SessionID != "" && n.sessionID == "" {
		n.sessionID = p.SessionID
	}
	tc := p.ToolCall.toolCall
	if tc.ToolCallID == "" {
		tc.ToolCallID = "rpc-" + id
	}
	tc.Status = "pending"
	evs := n.tool(frame, tc, p.ToolCall.Title, p.ToolCall.Content)
	t := n.turn
	// Keyed by the turn and the agent's request id: unique per request,
	// where tool call ids are not (example agents reuse them every turn).
	reqID := t.key + ":permission-" + id
	n.perms[id] = permAsk{toolID: tc.ToolCallID, options: p.Options}
	ts := t.tools[tc.ToolCallID]
	part := ts.step.msg.Parts[ts.use]
	req := &agent.Request{
		RequestID: reqID,
		ToolName:  part.ToolName,
		ToolID:    tc.ToolCallID,
		Input:     part.Input,
	}
	if p.ToolCall.Title != nil {
		req.Description = *p.ToolCall.Title
	}
	for _, o := range p.Options {
		req.PermissionOptions = append(req.PermissionOptions, agent.PermissionOption{ID: o.OptionID, Name: o.Name, Kind: o.Kind})
	}
	return append(evs, agent.Event{Type: agent.EventPermissionRequest, Request: req})
}

// permissionReply applies the client's answer to a permission request to
// its tool call: running when allowed, denied when refused, cancelled when
// withdrawn.
func (n *Normalizer) permissionReply(frame []byte, m *rpcMessage, id string) []agent.Event {
	ask, ok := n.perms[id]
	delete(n.perms, id)
	t := n.turn
	if !ok || t == nil || m.Error != nil {
		return nil
	}
	ts := t.tools[ask.toolID]
	if ts == nil {
		return nil
	}
	s := ts.step
	n.into(s, frame) // next to the request it answers
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	decode(m.Result, &r, &n.notes)
	st, why := agent.ToolCancelled, "the permission request was cancelled"
	if r.Outcome.Outcome == "selected" {
		st, why = agent.ToolRunning, ""
		for _, o := range ask.options {
			if o.OptionID == r.Outcome.OptionID && strings.HasPrefix(o.Kind, "reject") {
				st, why = agent.ToolDenied, "denied ("+o.Name+")"
				t.denied = true
			}
		}
	}
	p := &s.msg.Parts[ts.use]
	if p.State != agent.ToolPending || p.State == st {
		return nil
	}
	p.State = st
	return []agent.Event{t.emit(s), {Type: agent.EventToolStateUpdate, MessageID: s.msg.ID, ToolID: ask.toolID, State: st, Error: why}}
}

// unknownFrame keeps a frame the normalizer does not understand as a system
// message, so nothing is lost.
func (n *Normalizer) unknownFrame(frame []byte, what string) []agent.Event {
	h := fnv.New64a()
	h.Write(frame)
	return []agent.Event{{Type: agent.EventMessage, Raw: bytes.Clone(frame), Message: &agent.Message{
		ID:       "acp-unknown-" + strconv.FormatUint(h.Sum64(), 16),
		Role:     agent.RoleSystem,
		Parts:    []agent.Part{{Type: agent.PartSystemStatus, Subtype: "unknown", Text: "Unhandled ACP " + what}},
		Metadata: map[string]any{"raw": string(frame)},
	}}}
}

// modeAliases lists, per interaction mode, the agents' own mode ids that mean
// it (Gemini CLI, claude-code-acp, codex-acp, goose, opencode), best first.
var modeAliases = map[agent.InteractionMode][]string{
	// codex-acp's "read-only" is the closest it has to Ask once the session
	// runs (it still runs sandboxed commands unasked; see Config.ModeArgs).
	agent.ModeAsk:         {"default", "ask", "approve", "manual", "readonly"},
	agent.ModeAcceptEdits: {"autoedit", "acceptedits", "smartapprove", "auto"},
	agent.ModePlan:        {"plan", "readonly", "chat"},
	agent.ModeBypass:      {"yolo", "bypasspermissions", "fullaccess", "dontask"},
}

func canonMode(id string) string {
	return strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(id))
}

// ModeFromAgent maps an agent's own mode id to an interaction mode; an id it
// does not recognise is returned as is.
func ModeFromAgent(id string) agent.InteractionMode {
	c := canonMode(id)
	for _, m := range agent.AllModes {
		for _, a := range modeAliases[m] {
			if a == c && !(m == agent.ModeAsk && c == "readonly") { // read-only reads as plan
				return m
			}
		}
	}
	return agent.InteractionMode(id)
}

// AgentModeFor picks, among an agent's available modes, the one that means
// mode; mode may also be one of the agent's own ids.
func AgentModeFor(available []string, mode agent.InteractionMode) (string, bool) {
	for _, id := range available {
		if id == string(mode) {
			return id, true
		}
	}
	for _, a := range modeAliases[mode] {
		for _, id := range available {
			if canonMode(id) == a {
				return id, true
			}
		}
	}
	return "", false
}

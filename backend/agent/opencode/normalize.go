package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Normalizer turns OpenCode frames into normalized events. A frame is one
// `GET /event` SSE data payload ({"id","type","properties"}) or one line of
// `opencode run --format json` ({"type","timestamp","sessionID","part"|"error"}).
// A `GET /global/event` payload ({directory, project, payload}) is unwrapped:
// its payload is normalized (and is what Raw keeps).
// It is pure and stateful: it keeps every message it has seen (its latest
// message.updated frame and the latest frame of each of its parts) so it can
// re-emit the whole message each time something in it changes.
//
// # Events
//
//	OpenCode event                  Normalized
//	------------------------------  -------------------------------------------------------------
//	session.created                 session-id (info.id); with info.parentID it is a sub-agent's
//	                                session: no event, its messages nest under the task (below)
//	session.* of a sub-agent        no event (status, title, idle, error: the task tool reports it)
//	session.updated                 session-updated (title; summary "N files, +A -D"), only when
//	                                the title or summary changed
//	message.updated                 message (whole message, every part so far); user/assistant
//	                                (a user message is shown once it has a part)
//	message.part.updated            message (re-emitted whole; only deltas when the update
//	                                only extends shown text parts) and, for a tool part whose status
//	                                changed, tool-state-update {messageId, toolId=callID, state,
//	                                result=output | error}; a stale tool state (running after
//	                                completed) is ignored
//	message.part.delta              delta {messageId, part (index in the message), field
//	                                text|reasoning, text}; Raw = the frame. The part's first
//	                                text (an empty part is not shown) emits the message whole
//	message.part.removed            message re-emitted without the part
//	message.removed                 message-removed
//	permission.asked                permission-request {requestId=id, toolName=permission,
//	                                input=metadata, patterns, suggestions=always, toolId=tool.callID,
//	                                description "permission: patterns"}
//	question.asked                  question {requestId=id, question/options of the first
//	                                question, questions (all), toolId=tool.callID}
//	                                (a permission or question id seen before gives nothing)
//	session.status retry            rate-limit {attempt, error=message}; retryAfterMs is left unset:
//	                                `next` is an absolute time and the normalizer has no clock
//	session.status busy             opens a turn (no event); idle: no event (see session.idle)
//	session.error                   error {fatal, error=data.message (else name)}; a
//	                                MessageAbortedError gives no error event: the turn ends
//	                                interrupted
//	session.idle                    ends the open turn: a synthesized `result` message + complete
//	session.compacted               system message, system-status {subtype "compacted"}
//	permission.replied,             request-resolved {request.requestId=requestID}: the app's own
//	question.replied,               answer's echo, or another client's answer (the orchestrator
//	question.rejected               drops the request if it still holds it)
//	todo.updated                    no event: the same list the todowrite tool part carries
//	session.deleted                 no event (Jean-Claude manages its own session lifecycle)
//	session.next.*                  no event: the experimental v2 mirror of the message/part events
//	noise (see noiseTypes)          no event: server.connected, server.heartbeat, plugin.added,
//	                                catalog.updated, integration.updated, reference.updated, ...
//	anything else                   a quiet notice (agent.QuietNotice): system message,
//	                                system-status {subtype=type, status "unknown", text
//	                                "System notice: …"}, metadata.quiet, metadata.raw
//	malformed JSON                  error {fatal=false}, Raw = the frame
//
// # Messages (message.updated info)
//
//	user       role user; model.modelID → model; agent → metadata.agent;
//	           model.providerID → metadata.providerID
//	assistant  role assistant; modelID → model; tokens → usage (input, output, reasoning,
//	           cache.read → cacheReadTokens, cache.write → cacheCreationTokens); cost → cost;
//	           parentID → metadata.parentID; agent, mode, finish, providerID → metadata;
//	           error → metadata.error and isError (except MessageAbortedError)
//	sub-agent  a message of a sub-agent session gets parentToolUseId = the callID of the
//	           task tool that runs it (its state.metadata.sessionId names the session)
//	both       time.created → timestamp (RFC 3339, UTC). A part seen before its message
//	           makes an assistant message.
//
// The design maps parentID to parentToolUseId, but OpenCode's parentID is the
// id of the user message an assistant message answers (every recording shows
// it), never a tool call: the UI would take it for a sub-agent link. The
// sub-agent link is the task tool's child session, mapped as above.
//
// # Parts (message.part.updated part)
//
//	text, reasoning   text / reasoning {text} (deltas applied; empty ones are not shown)
//	file              file {path = url without file://, mime}; source → metadata.fileSources
//	tool pending      tool-use {toolId=callID, toolName=tool, input, kind, state pending}
//	tool running      tool-use, state running (input now known)
//	tool completed    tool-use (completed) + tool-result {content=output, title, attachments,
//	                  isError when a bash metadata.exit != 0, structuredResult for todowrite
//	                  (newTodos), write (filePath, content, create/update) and skill}
//	tool error        tool-use (error; denied when the error says the user rejected
//	                  permission) + tool-result {content=error, isError}
//	                  every state's metadata → metadata.toolMetadata[callID]
//	step-start        metadata.steps += {type, snapshot}; metadata.snapshot
//	step-finish       metadata.steps += {type, reason, cost, tokens}; metadata.snapshot; counted
//	                  in the turn's totals
//	snapshot          metadata.snapshot
//	patch             metadata.patches += {hash, files}
//	agent             metadata.agentParts += {name, source}
//	subtask           metadata.subtasks += {prompt, description, agent}
//	retry             metadata.retries += {attempt, part}
//	compaction        compact {trigger auto|manual}
//	other             system-status {subtype "part:" + type, status "unknown", text},
//	                  raw in metadata.unknownParts
//
// Every frame is decoded field by field (agent.Int/Float numbers,
// agent.DecodeNoting): an odd value degrades its field only and is listed in
// the message's metadata.anomalies.
//
// # Tool kinds
//
//	bash → execute; read → read; edit, write, patch, multiedit, apply_patch → edit;
//	grep, glob, list, codesearch → search; webfetch, websearch → fetch;
//	todowrite, todoread → todo; question → ask-user; task → sub-agent; skill → skill;
//	anything else → other.
//
// # Turns and the synthesized result
//
// OpenCode has no result message. A turn opens with a new user message (or a
// busy status, or, for `opencode run` lines, the first part). It ends with
// session.idle (for `opencode run` lines: with Flush). The normalizer then
// emits a `result` message (id "result-" + the turn's user message id, else
// + its last assistant message id) and a complete event: text = the last
// assistant message's text (not a sub-agent's), cost and tokens = the sums
// over the turn's step-finish parts (sub-agents' included), duration = last
// time seen − the user message's time, reason = the last assistant finish (stop, length,
// tool-calls when a rejected permission stopped the loop), isError after a
// session.error or an assistant error, interrupted after a MessageAbortedError.
//
// # Raw
//
// A message event's Raw is the latest message.updated frame of that message
// followed by, for each of its parts, the latest message.part.updated frame
// and the deltas received after it (not the superseded ones), newline-joined;
// a sub-agent's message starts with the frame that tied its session to the
// task.
// A result message's Raw is the Raw of every message of its turn, the frame
// that opened the turn when it was not a message, the session.error frame and
// the session.idle frame: fed to a fresh Normalizer, each rebuilds its message.
type Normalizer struct {
	msgs    map[string]*msgState
	title   string
	summary string
	turn    *turnState
	run     bool            // saw `opencode run --format json` lines
	asked   map[string]bool // permission and question ids already announced
	// children are sub-agent sessions (task tool): session id → the
	// task's callID ("" until known), and the frame that revealed it.
	children   map[string]string
	childFrame map[string][]byte
}

var _ agent.Normalizer = (*Normalizer)(nil)

// NewNormalizer returns a fresh normalizer.
func NewNormalizer() *Normalizer {
	return &Normalizer{msgs: map[string]*msgState{}, asked: map[string]bool{}, children: map[string]string{}, childFrame: map[string][]byte{}}
}

// msgState is everything known about one message.
type msgState struct {
	id        string
	session   string // the session the message belongs to
	infoFrame []byte
	info      *wireMessage
	parts     []*partState
	partIdx   map[string]int
	last      *agent.Message  // the last message emitted
	anoms     agent.Anomalies // of its latest message.updated frame
	// closeFrame is the frame that ended the turn and closed its open
	// tools (rebuilding the message needs it).
	closeFrame []byte
}

// partState is one part of a message.
type partState struct {
	id      string
	frame   []byte   // latest message.part.updated frame
	deltas  [][]byte // deltas received after frame
	p       wirePart
	text    string          // p.Text plus the deltas (a view of sb)
	sb      strings.Builder // grows text in amortized linear time
	shown   int             // its index in the last message built, -1 when not shown
	emitted string          // tool status last announced by a tool-state-update
	// final and finalWhy close a tool the turn ended without finishing.
	final    agent.ToolState
	finalWhy string
	anoms    agent.Anomalies // of its latest frame
}

// turnState accumulates one turn, from its opening to session.idle.
type turnState struct {
	userID    string
	openFrame []byte // the busy / run frame that opened it, when not a message
	msgIDs    []string
	inTurn    map[string]bool
	startMs   int64
	endMs     int64
	steps     map[string]*wirePart // step-finish parts by part id
	stepOrder []string
	lastAsst  string
	errMsg    string
	errName   string
	errFrame  []byte
	aborted   bool
}

// Feed implements agent.Normalizer.
func (n *Normalizer) Feed(frame []byte) []agent.Event {
	if evs, ok := n.feedHot(frame); ok {
		return evs
	}
	var env wireEnvelope
	if err := decode(frame, &env); err != nil {
		return n.malformed(frame, err)
	}
	if env.Type == "" {
		// GET /global/event wraps each event: {directory, project, payload}.
		var g struct {
			Payload json.RawMessage `json:"payload"`
		}
		if decode(frame, &g) == nil && len(g.Payload) > 0 && g.Payload[0] == '{' {
			return n.Feed(g.Payload)
		}
		return n.malformed(frame, fmt.Errorf("no type"))
	}
	if len(env.Properties) == 0 || bytes.Equal(env.Properties, []byte("null")) {
		if isRunType(env.Type) {
			return n.feedRun(frame)
		}
		env.Properties = []byte("{}")
	}
	if strings.HasPrefix(env.Type, "session.") && env.Type != "session.created" && n.childEvent(env.Properties) {
		return nil // a sub-agent's status, title, idle or error: the task tool reports it
	}
	switch env.Type {
	case "message.updated":
		return n.messageUpdated(frame, env.Properties)
	case "message.part.updated":
		var p wirePartUpdated
		if err := decode(env.Properties, &p); err != nil {
			return n.malformed(frame, err)
		}
		return n.partUpdated(frame, p.Part, p.Time.V)
	case "message.part.delta":
		return n.partDelta(frame, env.Properties)
	case "message.part.removed":
		return n.partRemoved(frame, env.Properties)
	case "message.removed":
		var p wireMessageRemoved
		if err := decode(env.Properties, &p); err != nil || p.MessageID == "" {
			return n.malformed(frame, orMissing(err, "messageID"))
		}
		delete(n.msgs, p.MessageID)
		return []agent.Event{{Type: agent.EventMessageRemoved, MessageID: p.MessageID}}
	case "session.created":
		var p wireSessionInfo
		if err := decode(env.Properties, &p); err != nil || p.Info.ID == "" {
			return n.malformed(frame, orMissing(err, "info.id"))
		}
		if p.Info.ParentID != "" {
			n.addChild(p.Info.ID, "", frame)
			return nil // a sub-agent's session: its messages nest under the task
		}
		return []agent.Event{{Type: agent.EventSessionID, SessionID: p.Info.ID}}
	case "session.updated":
		return n.sessionUpdated(frame, env.Properties)
	case "session.status":
		return n.sessionStatus(frame, env.Properties)
	case "session.idle":
		return n.endTurn(frame)
	case "session.error":
		var p wireSessionError
		if err := decode(env.Properties, &p); err != nil {
			return n.malformed(frame, err)
		}
		return n.sessionError(frame, p.Error)
	case "session.compacted":
		return n.systemMessage(frame, env, agent.Part{Type: agent.PartSystemStatus, Subtype: "compacted", Status: "completed", Text: "Conversation compacted"}, false)
	case "permission.asked":
		return n.permissionAsked(frame, env.Properties)
	case "question.asked":
		return n.questionAsked(frame, env.Properties)
	case "permission.replied", "question.replied", "question.rejected":
		return resolved(env.Properties)
	case "todo.updated", "session.deleted":
		return nil
	}
	if noiseTypes[env.Type] || strings.HasPrefix(env.Type, "session.next.") {
		return nil
	}
	return n.systemMessage(frame, env, agent.Part{Type: agent.PartSystemStatus, Subtype: env.Type, Text: "OpenCode event " + env.Type}, true)
}

// Flush implements agent.Normalizer. An `opencode run` stream has no
// session.idle: its end ends the turn.
func (n *Normalizer) Flush() []agent.Event {
	if n.run && n.turn != nil {
		return n.endTurn(nil)
	}
	return nil
}

// hotTypes are the frequent events: feedHot decodes them in one pass.
var hotTypes = map[string]bool{"message.updated": true, "message.part.updated": true, "message.part.delta": true}

// wireHot is the union of the hot events' properties.
type wireHot struct {
	Type       string `json:"type"`
	Properties struct {
		SessionID string          `json:"sessionID"`
		Info      json.RawMessage `json:"info"`
		Part      json.RawMessage `json:"part"`
		Time      int64           `json:"time"`
		MessageID string          `json:"messageID"`
		PartID    string          `json:"partID"`
		Field     string          `json:"field"`
		Delta     string          `json:"delta"`
	} `json:"properties"`
}

// feedHot handles message.updated, message.part.updated and
// message.part.delta with one decoding pass of the frame (the general path
// decodes the envelope, then the properties). ok is false when the frame is
// not one of them or does not decode cleanly; the general path then handles
// it, so both give the same events.
func (n *Normalizer) feedHot(frame []byte) (evs []agent.Event, ok bool) {
	// The type comes first in OpenCode's payloads ({"id":…,"type":…}).
	head := frame[:min(len(frame), 96)]
	i := bytes.Index(head, []byte(`"type":"`))
	if i < 0 {
		return nil, false
	}
	rest := head[i+8:]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || !hotTypes[string(rest[:j])] {
		return nil, false
	}
	var h wireHot
	if decode(frame, &h) != nil || h.Type != string(rest[:j]) {
		return nil, false
	}
	p := &h.Properties
	switch h.Type {
	case "message.updated":
		if len(p.Info) == 0 {
			return nil, false
		}
		return n.applyMessage(frame, p.Info), true
	case "message.part.updated":
		if len(p.Part) == 0 {
			return nil, false
		}
		return n.partUpdated(frame, p.Part, p.Time), true
	default: // message.part.delta
		if p.MessageID == "" || p.PartID == "" {
			return nil, false
		}
		return n.applyDelta(frame, wirePartDelta{SessionID: p.SessionID, MessageID: p.MessageID, PartID: p.PartID, Field: p.Field, Delta: p.Delta}), true
	}
}

// noiseTypes are server events that say nothing about a session: they are
// ignored (and the live transport does not even deliver them).
var noiseTypes = map[string]bool{
	"server.connected":               true,
	"server.heartbeat":               true,
	"plugin.added":                   true,
	"catalog.updated":                true,
	"integration.updated":            true,
	"integration.connection.updated": true,
	"reference.updated":              true,
	"models-dev.refreshed":           true,
	"file.watcher.updated":           true,
	"file.edited":                    true, // the edit tool's result says it
	"session.diff":                   true, // the git view computes diffs itself
	"lsp.updated":                    true,
	"lsp.client.diagnostics":         true,
	"installation.updated":           true,
	"installation.update-available":  true,
	"project.updated":                true,
	"project.directories.updated":    true,
	"vcs.branch.updated":             true,
	"mcp.tools.changed":              true,
	"pty.created":                    true,
	"pty.updated":                    true,
	"pty.exited":                     true,
	"pty.deleted":                    true,
	"tui.prompt.append":              true,
	"tui.command.execute":            true,
	"tui.toast.show":                 true,
	"tui.session.select":             true,
	"sync":                           true, // /global/event's durable copy of the event next to it
}

// IsNoise reports whether an event type carries nothing for a session.
func IsNoise(typ string) bool { return noiseTypes[typ] }

func isRunType(t string) bool {
	switch t {
	case "step_start", "step_finish", "text", "reasoning", "tool_use", "error":
		return true
	}
	return false
}

func orMissing(err error, field string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("missing %s", field)
}

// addChild records a sub-agent session; frame is what revealed it (kept in
// the Raw of its messages so they rebuild nested).
func (n *Normalizer) addChild(sid, callID string, frame []byte) {
	if old, ok := n.children[sid]; ok && (old != "" || callID == "") {
		return
	}
	n.children[sid] = callID
	n.childFrame[sid] = bytes.Clone(frame)
}

// childEvent reports whether session-level properties name a sub-agent session.
func (n *Normalizer) childEvent(props []byte) bool {
	if len(n.children) == 0 {
		return false
	}
	var p struct {
		SessionID string `json:"sessionID"`
	}
	_ = decode(props, &p)
	_, ok := n.children[p.SessionID]
	return ok
}

func (n *Normalizer) malformed(frame []byte, err error) []agent.Event {
	return []agent.Event{{
		Type:  agent.EventError,
		Error: fmt.Sprintf("opencode: malformed event: %v", err),
		Raw:   bytes.Clone(frame),
	}}
}

// feedRun handles one `opencode run --format json` line.
func (n *Normalizer) feedRun(frame []byte) []agent.Event {
	var l wireRunLine
	if err := decode(frame, &l); err != nil {
		return n.malformed(frame, err)
	}
	n.run = true
	if n.turn == nil {
		n.openTurn(frame, l.Timestamp.V, "")
	}
	n.noteTime(l.Timestamp.V)
	if l.Type == "error" {
		if l.Error == nil {
			return n.malformed(frame, fmt.Errorf("missing error"))
		}
		raw, _ := json.Marshal(l.Error)
		return n.sessionError(frame, raw)
	}
	if len(l.Part) == 0 {
		return n.malformed(frame, fmt.Errorf("missing part"))
	}
	return n.partUpdated(frame, l.Part, l.Timestamp.V)
}

func (n *Normalizer) msg(id string) *msgState {
	ms, ok := n.msgs[id]
	if !ok {
		ms = &msgState{id: id, partIdx: map[string]int{}}
		n.msgs[id] = ms
	}
	return ms
}

func (ms *msgState) part(id string) *partState {
	if i, ok := ms.partIdx[id]; ok {
		return ms.parts[i]
	}
	ps := &partState{id: id, shown: -1}
	ms.partIdx[id] = len(ms.parts)
	ms.parts = append(ms.parts, ps)
	return ps
}

func (n *Normalizer) openTurn(frame []byte, startMs int64, userID string) {
	n.turn = &turnState{userID: userID, startMs: startMs, endMs: startMs, inTurn: map[string]bool{}, steps: map[string]*wirePart{}}
	if userID == "" {
		n.turn.openFrame = bytes.Clone(frame)
	}
}

func (n *Normalizer) noteTime(ms int64) {
	if n.turn == nil || ms <= 0 {
		return
	}
	if n.turn.startMs == 0 || ms < n.turn.startMs {
		n.turn.startMs = ms
	}
	if ms > n.turn.endMs {
		n.turn.endMs = ms
	}
}

// noteMsg records that a message of the turn was touched; msgIDs stays in
// last-touch order so the result's Raw replays the messages in an order that
// ends on the same last assistant message.
func (n *Normalizer) noteMsg(id string) {
	t := n.turn
	if t == nil {
		return
	}
	if t.inTurn[id] {
		if t.msgIDs[len(t.msgIDs)-1] == id {
			return
		}
		for i, m := range t.msgIDs {
			if m == id {
				t.msgIDs = append(t.msgIDs[:i], t.msgIDs[i+1:]...)
				break
			}
		}
	}
	t.inTurn[id] = true
	t.msgIDs = append(t.msgIDs, id)
}

func (n *Normalizer) messageUpdated(frame, props []byte) []agent.Event {
	var p wireMessageUpdated
	if err := decode(props, &p); err != nil {
		return n.malformed(frame, err)
	}
	return n.applyMessage(frame, p.Info)
}

func (n *Normalizer) applyMessage(frame, rawInfo []byte) []agent.Event {
	var info wireMessage
	anoms, err := agent.DecodeNoting(rawInfo, &info)
	if err != nil || info.ID == "" {
		return n.malformed(frame, orMissing(err, "info.id"))
	}
	ms := n.msg(info.ID)
	isNew := ms.info == nil
	ms.info = &info
	ms.anoms = anoms
	ms.infoFrame = bytes.Clone(frame)
	if info.SessionID != "" {
		ms.session = info.SessionID
	}
	_, child := n.children[ms.session]
	if info.Role == "user" && isNew && !child {
		n.openTurn(frame, info.Time.Created.V, info.ID)
	}
	if n.turn != nil && !n.answersEarlierTurn(&info) &&
		(n.turn.inTurn[info.ID] || info.Role == "assistant" || info.ID == n.turn.userID) {
		n.noteMsg(info.ID)
		n.noteTime(info.Time.Created.V)
		n.noteTime(info.Time.Completed.V)
		if info.Role == "assistant" && !child {
			n.turn.lastAsst = info.ID
			if e := parseError(info.Error); e != nil {
				n.turnError(e, nil)
			}
		}
	}
	return n.emitMessage(ms)
}

// answersEarlierTurn reports whether info is an assistant message that
// answers another user message than the open turn's: a stopped turn's
// message that OpenCode updates (with its MessageAbortedError) after the
// next prompt was sent. It belongs to that earlier turn, so its error must
// not end the new one.
func (n *Normalizer) answersEarlierTurn(info *wireMessage) bool {
	return info.Role == "assistant" && info.ParentID != "" && n.turn.userID != "" &&
		info.ParentID != n.turn.userID && !n.turn.inTurn[info.ID]
}

func parseError(raw json.RawMessage) *wireError {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var e wireError
	if err := decode(raw, &e); err != nil {
		return &wireError{Name: "UnknownError"}
	}
	return &e
}

func (n *Normalizer) turnError(e *wireError, frame []byte) {
	if n.turn == nil {
		return
	}
	switch {
	case e.Name == "MessageAbortedError":
		n.turn.aborted = true
	case frame == nil && n.turn.errFrame != nil:
		// The session.error says it already (and wins, whatever the order).
	default:
		n.turn.errName = e.Name
		n.turn.errMsg = errorText(e)
	}
	if frame != nil {
		n.turn.errFrame = bytes.Clone(frame)
	}
}

func errorText(e *wireError) string {
	if e.Data.Message != "" {
		return e.Data.Message
	}
	if e.Name != "" {
		return e.Name
	}
	return "unknown error"
}

func toolRank(status string) int {
	switch status {
	case "pending":
		return 0
	case "running":
		return 1
	case "completed", "error":
		return 2
	}
	return -1
}

func (n *Normalizer) partUpdated(frame, raw []byte, at int64) []agent.Event {
	var part wirePart
	anoms, err := agent.DecodeNoting(raw, &part)
	if err != nil || part.ID == "" || part.MessageID == "" {
		return n.malformed(frame, orMissing(err, "part.id or part.messageID"))
	}
	if st := part.State; st != nil {
		// The same part comes from the event stream and from GET
		// /session/{id}/message with its keys in another order: keep a
		// canonical form so both give the same message.
		st.Input, st.Metadata = canon(st.Input), canon(st.Metadata)
		for i, a := range st.Attachments {
			st.Attachments[i] = canon(a)
		}
	}
	part.Source = canon(part.Source)
	ms := n.msg(part.MessageID)
	if ms.session == "" {
		ms.session = part.SessionID
	}
	_, child := n.children[ms.session]
	if part.Type == "tool" && part.Tool == "task" && part.State != nil {
		var md struct {
			SessionID string `json:"sessionId"`
		}
		if decode(part.State.Metadata, &md) == nil && md.SessionID != "" {
			n.addChild(md.SessionID, toolID(&part), frame)
		}
	}
	ps := ms.part(part.ID)
	if part.Type == "tool" && ps.p.State != nil && part.State != nil && toolRank(part.State.Status) < toolRank(ps.p.State.Status) {
		return nil // stale: a replay of an earlier state
	}
	ps.frame = bytes.Clone(frame)
	ps.deltas = nil
	ps.p = part
	ps.final, ps.finalWhy = "", ""
	ps.anoms = anoms
	ps.sb = strings.Builder{}
	ps.sb.WriteString(part.Text)
	ps.text = ps.sb.String()
	if n.turn != nil && (ms.info == nil || ms.info.Role == "assistant" || n.turn.inTurn[ms.id]) &&
		(ms.info == nil || child || !n.answersEarlierTurn(ms.info)) {
		n.noteMsg(ms.id)
		n.noteTime(at)
		if (ms.info == nil || ms.info.Role == "assistant") && !child {
			n.turn.lastAsst = ms.id
		}
		if part.Time != nil {
			n.noteTime(part.Time.End.V)
		}
		if part.State != nil {
			n.noteTime(part.State.Time.End.V)
		}
		if part.Type == "step-finish" {
			if _, ok := n.turn.steps[part.ID]; !ok {
				n.turn.stepOrder = append(n.turn.stepOrder, part.ID)
			}
			cp := part
			n.turn.steps[part.ID] = &cp
		}
	}
	var evs []agent.Event
	if part.Type == "tool" && part.State != nil && part.State.Status != ps.emitted {
		ps.emitted = part.State.Status
		ev := agent.Event{Type: agent.EventToolStateUpdate, MessageID: ms.id, ToolID: toolID(&part), State: agent.ToolState(part.State.Status)}
		switch part.State.Status {
		case "completed":
			ev.ToolResult = part.State.Output
		case "error":
			ev.Error = part.State.Error
			if isRejection(part.State.Error) {
				ev.State = agent.ToolDenied
			}
		}
		evs = append(evs, ev)
	}
	return append(evs, n.emitChange(ms, frame)...)
}

func toolID(p *wirePart) string {
	if p.CallID != "" {
		return p.CallID
	}
	return p.ID
}

func (n *Normalizer) partDelta(frame, props []byte) []agent.Event {
	var d wirePartDelta
	if err := decode(props, &d); err != nil || d.MessageID == "" || d.PartID == "" {
		return n.malformed(frame, orMissing(err, "messageID or partID"))
	}
	return n.applyDelta(frame, d)
}

func (n *Normalizer) applyDelta(frame []byte, d wirePartDelta) []agent.Event {
	ms := n.msg(d.MessageID)
	if ms.session == "" {
		ms.session = d.SessionID
	}
	ps := ms.part(d.PartID)
	if ps.p.Type == "" {
		ps.p = wirePart{ID: d.PartID, MessageID: d.MessageID, SessionID: d.SessionID, Type: "text"}
	}
	if d.Field != "text" {
		return nil // only text grows live; other fields arrive whole in part.updated
	}
	ps.sb.WriteString(d.Delta)
	ps.text = ps.sb.String()
	ps.deltas = append(ps.deltas, bytes.Clone(frame))
	if d.Delta == "" {
		return nil
	}
	if last := ms.last; last != nil && ps.shown >= 0 && ps.shown < len(last.Parts) {
		lp := &last.Parts[ps.shown]
		f := agent.DeltaText
		if lp.Type == agent.PartReasoning {
			f = agent.DeltaReason
		}
		if (lp.Type == agent.PartText || lp.Type == agent.PartReasoning) && len(lp.Text)+len(d.Delta) == len(ps.text) {
			lp.Text = ps.text
			return []agent.Event{{Type: agent.EventDelta, MessageID: ms.id,
				Delta: &agent.Delta{Part: ps.shown, Field: f, Text: d.Delta}, Raw: ps.deltas[len(ps.deltas)-1]}}
		}
	}
	return n.emitMessage(ms) // the part's first text: a new part
}

func (n *Normalizer) partRemoved(frame, props []byte) []agent.Event {
	var r wirePartRemoved
	if err := decode(props, &r); err != nil || r.MessageID == "" || r.PartID == "" {
		return n.malformed(frame, orMissing(err, "messageID or partID"))
	}
	ms, ok := n.msgs[r.MessageID]
	if !ok {
		return nil
	}
	i, ok := ms.partIdx[r.PartID]
	if !ok {
		return nil
	}
	ms.parts = append(ms.parts[:i], ms.parts[i+1:]...)
	ms.partIdx = map[string]int{}
	for j, ps := range ms.parts {
		ms.partIdx[ps.id] = j
	}
	return n.emitMessage(ms)
}

func (n *Normalizer) sessionUpdated(frame, props []byte) []agent.Event {
	var p wireSessionInfo
	if err := decode(props, &p); err != nil {
		return n.malformed(frame, err)
	}
	summary := ""
	if s := p.Info.Summary; s != nil && s.Files.V > 0 {
		summary = fmt.Sprintf("%d files, +%d -%d", s.Files.V, s.Additions.V, s.Deletions.V)
		if s.Files.V == 1 {
			summary = fmt.Sprintf("1 file, +%d -%d", s.Additions.V, s.Deletions.V)
		}
	}
	if p.Info.Title == n.title && summary == n.summary {
		return nil
	}
	n.title, n.summary = p.Info.Title, summary
	return []agent.Event{{Type: agent.EventSessionUpdated, Title: p.Info.Title, Summary: summary}}
}

func (n *Normalizer) sessionStatus(frame, props []byte) []agent.Event {
	var s wireStatus
	if err := decode(props, &s); err != nil {
		return n.malformed(frame, err)
	}
	switch s.Status.Type {
	case "busy":
		if n.turn == nil {
			n.openTurn(frame, 0, "")
		}
	case "retry":
		return []agent.Event{{Type: agent.EventRateLimit, Attempt: int(s.Status.Attempt.V), Error: s.Status.Message}}
	}
	return nil
}

func (n *Normalizer) sessionError(frame, raw []byte) []agent.Event {
	e := parseError(raw)
	if e == nil {
		e = &wireError{Name: "UnknownError"}
	}
	// An error outside a turn (a late abort) ends nothing: turnError
	// ignores it, the error event still says it.
	n.turnError(e, frame)
	if e.Name == "MessageAbortedError" {
		return nil
	}
	return []agent.Event{{Type: agent.EventError, Error: errorText(e), Fatal: true}}
}

func (n *Normalizer) permissionAsked(frame, props []byte) []agent.Event {
	var p wirePermission
	if err := decode(props, &p); err != nil || p.ID == "" {
		return n.malformed(frame, orMissing(err, "id"))
	}
	if n.asked[p.ID] {
		return nil // replayed after a reconnect
	}
	n.asked[p.ID] = true
	req := &agent.Request{
		RequestID:   p.ID,
		ToolName:    p.Permission,
		Input:       p.Metadata,
		Patterns:    p.Patterns,
		Suggestions: p.Always,
		Description: p.Permission,
	}
	if len(p.Patterns) > 0 {
		req.Description += ": " + strings.Join(p.Patterns, ", ")
	}
	if p.Tool != nil {
		req.ToolID = p.Tool.CallID
	}
	return []agent.Event{{Type: agent.EventPermissionRequest, Request: req}}
}

func (n *Normalizer) questionAsked(frame, props []byte) []agent.Event {
	var q wireQuestion
	if err := decode(props, &q); err != nil || q.ID == "" {
		return n.malformed(frame, orMissing(err, "id"))
	}
	if n.asked[q.ID] {
		return nil // replayed after a reconnect
	}
	n.asked[q.ID] = true
	req := &agent.Request{RequestID: q.ID}
	if q.Tool != nil {
		req.ToolID = q.Tool.CallID
		req.ToolName = "question"
	}
	for _, qi := range q.Questions {
		nq := agent.Question{Question: qi.Question, Header: qi.Header, MultiSelect: qi.Multiple}
		for _, o := range qi.Options {
			nq.Options = append(nq.Options, agent.QuestionOption{ID: o.Label, Label: o.Label, Description: o.Description})
		}
		req.Questions = append(req.Questions, nq)
	}
	if len(req.Questions) > 0 {
		req.Question = req.Questions[0].Question
		req.Options = req.Questions[0].Options
	}
	return []agent.Event{{Type: agent.EventQuestion, Request: req}}
}

// systemMessage makes a system message out of an event the normalizer does
// not map to anything better.
func (n *Normalizer) systemMessage(frame []byte, env wireEnvelope, part agent.Part, keepRaw bool) []agent.Event {
	id := env.ID
	if id == "" {
		h := fnv.New64a()
		h.Write(frame)
		id = fmt.Sprintf("opencode-%x", h.Sum64())
	}
	m := &agent.Message{ID: id, Role: agent.RoleSystem, Parts: []agent.Part{part}}
	if keepRaw {
		m = agent.QuietNotice(id, part.Subtype, frame)
	}
	return []agent.Event{{Type: agent.EventMessage, Message: m, Raw: bytes.Clone(frame)}}
}

// endTurn closes the open turn with a result message and a complete event.
func (n *Normalizer) endTurn(frame []byte) []agent.Event {
	closing := n.closeTools(frame)
	t := n.turn
	if t == nil {
		return closing
	}
	n.turn = nil
	cost, usage := t.totals()
	model, finish, text := n.lastAnswer(t)
	isErr := t.errMsg != ""
	reason := finish
	switch {
	case t.aborted:
		reason = "aborted"
	case isErr:
		reason = "error"
		if text == "" {
			text = t.errMsg
		}
	}
	var dur int64
	if t.endMs > t.startMs && t.startMs > 0 {
		dur = t.endMs - t.startMs
	}
	res := &agent.Result{Text: text, IsError: isErr, Cost: &agent.CostInfo{CostUSD: cost}, DurationMs: dur, Usage: &usage,
		Reason: reason, Interrupted: t.aborted}
	m := &agent.Message{ID: t.resultID(), Role: agent.RoleResult, Parts: []agent.Part{}, Timestamp: stamp(t.endMs), Model: model,
		IsError: isErr, Result: agent.ResultText(res), DurationMs: dur, TotalCost: &agent.CostInfo{CostUSD: cost}, Usage: &usage,
		Metadata: map[string]any{"reason": reason}}
	if t.aborted {
		m.Metadata["interrupted"] = true
	}
	if t.errName != "" {
		m.Metadata["errorName"] = t.errName
	}
	if model != "" {
		mu := agent.ModelUsage{InputTokens: usage.InputTokens, OutputTokens: usage.OutputTokens, CacheReadTokens: usage.CacheReadTokens, CacheCreationTokens: usage.CacheCreationTokens, CostUSD: cost}
		m.ModelUsage = map[string]agent.ModelUsage{model: mu}
		res.ModelUsage = m.ModelUsage
	}
	return append(closing,
		agent.Event{Type: agent.EventMessage, Message: m, Raw: n.resultRaw(t, frame)},
		agent.Complete(res))
}

// totals sums the turn's steps' cost and tokens, sorted by part id
// (OpenCode ids ascend with time): the same sums whatever order the frames
// came in.
func (t *turnState) totals() (float64, agent.TokenUsage) {
	var cost float64
	var usage agent.TokenUsage
	sort.Strings(t.stepOrder)
	for _, id := range t.stepOrder {
		s := t.steps[id]
		cost += s.Cost.V
		if s.Tokens != nil {
			addTokens(&usage, s.Tokens)
		}
	}
	return math.Round(cost*1e12) / 1e12, usage // sums of float costs: no 0.30000000000000004
}

// lastAnswer is the turn's last assistant message's model, why it
// finished (its info's, else its last step's) and its text.
func (n *Normalizer) lastAnswer(t *turnState) (model, finish, text string) {
	ms, ok := n.msgs[t.lastAsst]
	if !ok {
		return "", "", ""
	}
	if ms.info != nil {
		model, finish = ms.info.ModelID, ms.info.Finish
	}
	var texts []string
	for _, ps := range ms.parts {
		if ps.p.Type == "text" && ps.text != "" && !ps.p.Synthetic {
			texts = append(texts, ps.text)
		}
	}
	if finish == "" {
		for _, id := range t.stepOrder {
			if s := t.steps[id]; s.MessageID == t.lastAsst && s.Reason != "" {
				finish = s.Reason
			}
		}
	}
	return model, finish, strings.Join(texts, "\n\n")
}

// resultID names the turn's result after its user message, else its last
// assistant message, else a hash of the frame that opened it.
func (t *turnState) resultID() string {
	switch {
	case t.userID != "":
		return "result-" + t.userID
	case t.lastAsst != "":
		return "result-" + t.lastAsst
	}
	h := fnv.New64a()
	h.Write(t.openFrame)
	return fmt.Sprintf("result-%x", h.Sum64())
}

// resultRaw is what rebuilds the turn's result in a fresh normalizer: the
// frame that opened the turn, its messages (the user's first), its error
// frame and the frame that ended it.
func (n *Normalizer) resultRaw(t *turnState, frame []byte) []byte {
	var raw [][]byte
	if t.openFrame != nil {
		raw = append(raw, t.openFrame)
	}
	if ms, ok := n.msgs[t.userID]; ok && t.userID != "" {
		raw = append(raw, n.turnRaw(ms)) // it opens the turn
	}
	for _, mid := range t.msgIDs {
		if ms, ok := n.msgs[mid]; ok && mid != t.userID {
			raw = append(raw, n.turnRaw(ms))
		}
	}
	if t.errFrame != nil && !bytes.Equal(t.errFrame, t.openFrame) {
		raw = append(raw, t.errFrame)
	}
	if frame != nil {
		raw = append(raw, frame)
	}
	return bytes.Join(raw, []byte("\n"))
}

func addTokens(u *agent.TokenUsage, t *wireTokens) {
	u.InputTokens += t.Input.V
	u.OutputTokens += t.Output.V
	u.ReasoningTokens += t.Reasoning.V
	u.CacheReadTokens += t.Cache.Read.V
	u.CacheCreationTokens += t.Cache.Write.V
}

func stamp(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// canon re-encodes a JSON value with sorted object keys (numbers and
// strings kept as written), so equal values have equal bytes.
func canon(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return raw
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if e.Encode(v) != nil {
		return raw
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// raw is the message's rebuild frames.
func (ms *msgState) raw() []byte {
	size := len(ms.infoFrame) + 1
	for _, ps := range ms.parts {
		size += len(ps.frame) + 1
		for _, d := range ps.deltas {
			size += len(d) + 1
		}
	}
	var b bytes.Buffer
	b.Grow(size)
	add := func(f []byte) {
		if len(f) == 0 {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.Write(f)
	}
	add(ms.infoFrame)
	for _, ps := range ms.parts {
		add(ps.frame)
		for _, d := range ps.deltas {
			add(d)
		}
	}
	return b.Bytes()
}

// emitMessage builds the message and emits it when it changed.
func (n *Normalizer) emitMessage(ms *msgState) []agent.Event {
	m := ms.build()
	if m.Role == agent.RoleUser && len(m.Parts) == 0 {
		// Its text part follows at once; an empty user message would
		// only flash in the transcript (and miss the orchestrator's echo match).
		return nil
	}
	m.ParentToolUseID = n.children[ms.session]
	if ms.last != nil && reflect.DeepEqual(m, ms.last) {
		return nil // a replay (catch-up) or a change nothing shows
	}
	ms.last = agent.CloneMessage(m) // deltas grow this copy, not the event's message
	return []agent.Event{{Type: agent.EventMessage, Message: m, Raw: n.raw(ms)}}
}

// emitChange emits what changed in the message after frame: deltas when
// only the text of shown parts grew, else the whole message.
func (n *Normalizer) emitChange(ms *msgState, frame []byte) []agent.Event {
	if ms.last == nil {
		return n.emitMessage(ms)
	}
	m := ms.build()
	m.ParentToolUseID = n.children[ms.session]
	ds, ok := agent.TextDeltas(ms.last, m)
	if !ok || len(ds) == 0 {
		return n.emitMessage(ms)
	}
	ms.last = agent.CloneMessage(m)
	return agent.DeltaEvents(ms.id, ds, bytes.Clone(frame))
}

// raw is a message's rebuild frames; a sub-agent's message starts with the
// frame that tied its session to the task.
func (n *Normalizer) raw(ms *msgState) []byte {
	r := n.turnRaw(ms)
	if len(ms.closeFrame) > 0 {
		return bytes.Join([][]byte{r, ms.closeFrame}, []byte("\n"))
	}
	return r
}

// turnRaw is raw without the frame that closed the message's tools (the
// result's Raw ends with that frame itself).
func (n *Normalizer) turnRaw(ms *msgState) []byte {
	r := ms.raw()
	if cf, ok := n.childFrame[ms.session]; ok && len(cf) > 0 {
		return bytes.Join([][]byte{cf, r}, []byte("\n"))
	}
	return r
}

// build makes the normalized message.
func (ms *msgState) build() *agent.Message {
	m := &agent.Message{ID: ms.id, Role: agent.RoleAssistant, Parts: []agent.Part{}}
	meta := map[string]any{}
	if ms.info != nil {
		applyInfo(m, meta, ms.info)
	}
	b := partsBuilder{m: m, meta: meta, toolMeta: map[string]json.RawMessage{}, fileSources: map[string]json.RawMessage{}}
	for _, ps := range ms.parts {
		b.add(ps)
	}
	if m.Timestamp == "" {
		m.Timestamp = stamp(b.first)
	}
	b.finish()
	anoms := ms.anoms
	for _, ps := range ms.parts {
		anoms = append(anoms[:len(anoms):len(anoms)], ps.anoms...)
	}
	meta = anoms.Into(meta)
	if len(meta) > 0 {
		m.Metadata = meta
	}
	return m
}

// applyInfo sets what a message's info says: its time, role, model, usage
// and cost, and its error; the rest goes to meta.
func applyInfo(m *agent.Message, meta map[string]any, info *wireMessage) {
	m.Timestamp = stamp(info.Time.Created.V)
	switch info.Role {
	case "user":
		m.Role = agent.RoleUser
		if info.Model != nil {
			m.Model = info.Model.ModelID
			meta["providerID"] = info.Model.ProviderID
		}
		if info.Agent != "" {
			meta["agent"] = info.Agent
		}
	case "assistant":
		m.Model = info.ModelID
		if info.ParentID != "" {
			meta["parentID"] = info.ParentID // the user message it answers
		}
		if info.Tokens != nil {
			var u agent.TokenUsage
			addTokens(&u, info.Tokens)
			m.Usage = &u
			m.Cost = &agent.CostInfo{CostUSD: info.Cost.V}
		}
		for k, v := range map[string]string{"agent": info.Agent, "mode": info.Mode, "finish": info.Finish, "providerID": info.ProviderID} {
			if v != "" {
				meta[k] = v
			}
		}
		if e := parseError(info.Error); e != nil {
			meta["error"] = canon(info.Error)
			m.IsError = e.Name != "MessageAbortedError"
		}
	default:
		m.Role = agent.RoleSystem
		meta["role"] = info.Role
	}
}

// partsBuilder adds a message's parts to it, in order, and gathers what
// they leave in its metadata.
type partsBuilder struct {
	m                                         *agent.Message
	meta                                      map[string]any
	steps, patches, agents, subtasks, retries []any
	unknown                                   []string
	toolMeta, fileSources                     map[string]json.RawMessage
	first                                     int64 // the earliest part start (the message's time when its info has none)
}

// add adds one part: shown ones as message parts (a text is shown once it
// has text; ps.shown says where), the others in the metadata.
func (b *partsBuilder) add(ps *partState) {
	p := &ps.p
	if p.Time != nil && p.Time.Start.V > 0 && (b.first == 0 || p.Time.Start.V < b.first) {
		b.first = p.Time.Start.V
	}
	switch p.Type {
	case "text", "reasoning":
		b.addText(ps)
	case "file":
		b.m.Parts = append(b.m.Parts, agent.Part{Type: agent.PartFile, Path: strings.TrimPrefix(p.URL, "file://"), Mime: p.Mime})
		if len(p.Source) > 0 {
			b.fileSources[p.ID] = p.Source
		}
	case "tool":
		b.addTool(ps)
	case "step-start", "step-finish", "snapshot":
		b.addStep(p)
	case "patch":
		b.patches = append(b.patches, map[string]any{"hash": p.Hash, "files": p.Files})
	case "agent":
		b.agents = append(b.agents, map[string]any{"name": p.Name, "source": p.Source})
	case "subtask":
		b.subtasks = append(b.subtasks, map[string]any{"prompt": p.Prompt, "description": p.Description, "agent": p.Agent})
	case "retry":
		b.retries = append(b.retries, map[string]any{"attempt": p.Attempt, "part": json.RawMessage(partJSON(ps.frame))})
	case "compaction":
		trigger := "manual"
		if p.Auto {
			trigger = "auto"
		}
		b.m.Parts = append(b.m.Parts, agent.Part{Type: agent.PartCompact, Trigger: trigger})
	default:
		b.m.Parts = append(b.m.Parts, agent.Part{Type: agent.PartSystemStatus, Subtype: "part:" + p.Type,
			Status: agent.StatusUnknown, Text: "System notice: " + agent.Humanize(p.Type)})
		b.unknown = append(b.unknown, string(ps.frame))
	}
}

func (b *partsBuilder) addText(ps *partState) {
	if ps.text == "" {
		ps.shown = -1
		return
	}
	ps.shown = len(b.m.Parts)
	t := agent.PartText
	if ps.p.Type == "reasoning" {
		t = agent.PartReasoning
	}
	b.m.Parts = append(b.m.Parts, agent.Part{Type: t, Text: ps.text})
}

// addTool adds a tool's use and result; a tool the turn ended without
// finishing shows its final state, and why in the metadata's toolErrors.
func (b *partsBuilder) addTool(ps *partState) {
	p := &ps.p
	tps := toolParts(p)
	if ps.final != "" {
		tps[0].State = ps.final
		toolErrs, _ := b.meta["toolErrors"].(map[string]any)
		if toolErrs == nil {
			toolErrs = map[string]any{}
			b.meta["toolErrors"] = toolErrs
		}
		toolErrs[tps[0].ToolID] = ps.finalWhy
	}
	b.m.Parts = append(b.m.Parts, tps...)
	if p.State != nil && len(p.State.Metadata) > 0 {
		b.toolMeta[toolID(p)] = p.State.Metadata
	}
}

// addStep records a step's start or finish, and the latest snapshot.
func (b *partsBuilder) addStep(p *wirePart) {
	switch p.Type {
	case "step-start":
		b.steps = append(b.steps, map[string]any{"type": p.Type, "snapshot": p.Snapshot})
	case "step-finish":
		b.steps = append(b.steps, map[string]any{"type": p.Type, "reason": p.Reason, "cost": p.Cost, "tokens": p.Tokens})
	}
	if p.Snapshot != "" || p.Type == "snapshot" {
		b.meta["snapshot"] = p.Snapshot
	}
}

// finish puts what the parts gathered into the metadata.
func (b *partsBuilder) finish() {
	for k, v := range map[string][]any{"steps": b.steps, "patches": b.patches, "agentParts": b.agents, "subtasks": b.subtasks, "retries": b.retries} {
		if len(v) > 0 {
			b.meta[k] = v
		}
	}
	if len(b.unknown) > 0 {
		b.meta["unknownParts"] = b.unknown
	}
	if len(b.toolMeta) > 0 {
		b.meta["toolMetadata"] = b.toolMeta
	}
	if len(b.fileSources) > 0 {
		b.meta["fileSources"] = b.fileSources
	}
}

// partJSON extracts properties.part (or part) from a frame, for metadata.
func partJSON(frame []byte) []byte {
	var env struct {
		Properties struct {
			Part json.RawMessage `json:"part"`
		} `json:"properties"`
		Part json.RawMessage `json:"part"`
	}
	if decode(frame, &env) != nil {
		return []byte("null")
	}
	if len(env.Properties.Part) > 0 {
		return env.Properties.Part
	}
	if len(env.Part) > 0 {
		return env.Part
	}
	return []byte("null")
}

// toolParts maps a ToolPart to a tool-use part and, once it ended, a
// tool-result part.
func toolParts(p *wirePart) []agent.Part {
	st := p.State
	if st == nil {
		st = &wireToolState{Status: "pending"}
	}
	input := st.Input
	if len(input) == 0 || bytes.Equal(input, []byte("null")) {
		input = json.RawMessage("{}")
	}
	use := agent.Part{Type: agent.PartToolUse, ToolID: toolID(p), ToolName: p.Tool, Input: input, Kind: ToolKind(p.Tool), State: agent.ToolState(st.Status)}
	switch st.Status {
	case "completed":
		res := agent.Part{Type: agent.PartToolResult, ToolID: use.ToolID, Content: agent.StringContent(st.Output), Title: st.Title, Attachments: st.Attachments}
		if p.Tool == "bash" {
			var md struct {
				Exit *int `json:"exit"`
			}
			if decode(st.Metadata, &md) == nil && md.Exit != nil && *md.Exit != 0 {
				res.IsError = true
			}
		}
		res.StructuredResult = structured(p.Tool, st)
		return []agent.Part{use, res}
	case "error":
		if isRejection(st.Error) {
			use.State = agent.ToolDenied
		}
		return []agent.Part{use, {Type: agent.PartToolResult, ToolID: use.ToolID, Content: agent.StringContent(st.Error), IsError: true, Title: st.Title}}
	}
	return []agent.Part{use}
}

// structured extracts the rich results the UI renders specially.
func structured(tool string, st *wireToolState) *agent.StructuredResult {
	switch tool {
	case "todowrite", "todoread":
		var md struct {
			Todos []wireTodo `json:"todos"`
		}
		if decode(st.Metadata, &md) != nil || md.Todos == nil {
			return nil
		}
		sr := &agent.StructuredResult{Kind: agent.StructuredTodo, NewTodos: []agent.TodoItem{}}
		for _, t := range md.Todos {
			sr.NewTodos = append(sr.NewTodos, agent.TodoItem{ID: t.ID, Content: t.Content, Status: t.Status, Priority: t.Priority})
		}
		return sr
	case "write":
		var in struct {
			FilePath string `json:"filePath"`
			Content  string `json:"content"`
		}
		var md struct {
			Exists bool `json:"exists"`
		}
		if decode(st.Input, &in) != nil || in.FilePath == "" {
			return nil
		}
		_ = decode(st.Metadata, &md)
		op := "create"
		if md.Exists {
			op = "update"
		}
		return &agent.StructuredResult{Kind: agent.StructuredWrite, FilePath: in.FilePath, Content: in.Content, Operation: op}
	case "skill":
		var in struct {
			Name string `json:"name"`
		}
		_ = decode(st.Input, &in)
		return &agent.StructuredResult{Kind: agent.StructuredSkill, Success: true, CommandName: in.Name}
	}
	return nil
}

// toolKinds classifies OpenCode's built-in tools.
var toolKinds = map[string]agent.ToolKind{
	"bash":        agent.ToolExecute,
	"read":        agent.ToolRead,
	"edit":        agent.ToolEdit,
	"write":       agent.ToolEdit,
	"patch":       agent.ToolEdit,
	"multiedit":   agent.ToolEdit,
	"apply_patch": agent.ToolEdit,
	"grep":        agent.ToolSearch,
	"glob":        agent.ToolSearch,
	"list":        agent.ToolSearch,
	"codesearch":  agent.ToolSearch,
	"webfetch":    agent.ToolFetch,
	"websearch":   agent.ToolFetch,
	"todowrite":   agent.ToolTodo,
	"todoread":    agent.ToolTodo,
	"question":    agent.ToolAskUser,
	"task":        agent.ToolSubAgent,
	"skill":       agent.ToolSkill,
}

// ToolKind classifies an OpenCode tool by what it does.
func ToolKind(name string) agent.ToolKind {
	if k, ok := toolKinds[name]; ok {
		return k
	}
	return agent.ToolOther
}

// sortedKeys is used by tests and docs.
func sortedKeys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ForgetTurn drops the open turn without a result: after history was
// replayed into the normalizer (a resumed session that is idle).
func (n *Normalizer) ForgetTurn() { n.turn = nil }

// TurnOpen reports whether a turn has started and not ended yet.
func (n *Normalizer) TurnOpen() bool { return n.turn != nil }

// decode is json.Unmarshal, leniently: a field of another type is left as
// decoded so far (agent.Decode); only a frame that is not JSON fails.
func decode(data []byte, v any) error {
	_, err := agent.Decode(data, v)
	return err
}

// isRejection reports whether a tool error is OpenCode's "The user rejected
// permission to use this specific tool call": the call was denied.
func isRejection(err string) bool {
	return strings.Contains(err, "rejected permission")
}

// resolved maps a reply to a permission request or question (the app's own,
// another client's, or one synthesized by a catch-up for a request gone
// meanwhile) to a request-resolved event.
func resolved(props []byte) []agent.Event {
	var r struct {
		RequestID string `json:"requestID"`
	}
	if json.Unmarshal(props, &r) != nil || r.RequestID == "" {
		return nil
	}
	return []agent.Event{{Type: agent.EventRequestResolved, Request: &agent.Request{RequestID: r.RequestID}}}
}

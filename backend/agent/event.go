package agent

import "encoding/json"

// EventType tags an Event.
type EventType string

// Event types, as in the design's AgentEvent union.
const (
	EventMessage           EventType = "message"
	EventMessageRemoved    EventType = "message-removed"
	EventPermissionRequest EventType = "permission-request"
	EventQuestion          EventType = "question"
	EventSessionID         EventType = "session-id"
	EventSessionUpdated    EventType = "session-updated"
	EventModeChange        EventType = "mode-change"
	EventToolStateUpdate   EventType = "tool-state-update"
	EventComplete          EventType = "complete"
	EventError             EventType = "error"
	EventRateLimit         EventType = "rate-limit"
	// EventRequestResolved: a permission request or question is no longer
	// pending in the agent: answered by another client of the agent (the
	// OpenCode TUI on the same server), or found gone after a reconnect.
	// The echo of the app's own answer comes too; a consumer ignores a
	// request it no longer holds. The orchestrator keeps it (the UI gets
	// the task's pending requests again), so it is not in AllEventTypes.
	EventRequestResolved EventType = "request-resolved"
	// EventDelta appends text to one part of a message already emitted whole
	// (streamed text, reasoning or tool output). The whole message is emitted
	// again only at structural changes (a new part, a tool state, its end), so
	// a reply costs linear bytes end to end.
	EventDelta EventType = "delta"
)

// Event is one normalized happening of a session. Like Part it is a flattened
// tagged union; which fields are set depends on Type:
//
//	message:            Message (and Raw: the frames that rebuild it)
//	message-removed:    MessageID
//	permission-request: Request
//	question:           Request
//	session-id:         SessionID
//	session-updated:    Title, Summary
//	mode-change:        Mode
//	tool-state-update:  MessageID, ToolID, State, ToolResult (JSON "result"), Error
//	complete:           Result
//	error:              Error, Fatal
//	rate-limit:         RetryAfterMs, Attempt, MaxRetries, Error
//	request-resolved:   Request (RequestID only)
//	delta:              MessageID, Delta (Raw: the frame that carried it; MessageRaw)
type Event struct {
	Type EventType `json:"type"`

	Message   *Message `json:"message,omitempty"`
	MessageID string   `json:"messageId,omitempty"`

	Request *Request `json:"request,omitempty"`

	SessionID string `json:"sessionId,omitempty"`
	Title     string `json:"title,omitempty"`
	Summary   string `json:"summary,omitempty"`

	Mode InteractionMode `json:"mode,omitempty"`

	ToolID     string    `json:"toolId,omitempty"`
	State      ToolState `json:"state,omitempty"`
	ToolResult string    `json:"-"` // tool-state-update's "result" (see MarshalJSON)

	Result *Result `json:"result,omitempty"`

	Error string `json:"error,omitempty"`
	// Fatal marks an error that ends the turn (a hard rate limit, an API
	// error); a non-fatal error (one malformed line) does not.
	Fatal bool `json:"fatal,omitempty"`

	Delta *Delta `json:"delta,omitempty"`

	RetryAfterMs *int64 `json:"retryAfterMs,omitempty"`
	Attempt      int    `json:"attempt,omitempty"`
	MaxRetries   int    `json:"maxRetries,omitempty"`

	// Raw is, for a message event, the raw frames (newline-separated) that
	// rebuild this message when fed to a fresh normalizer of the same
	// format: what the store keeps as the message's rawData. For an error
	// event about a malformed frame it is that frame. Never sent to the UI.
	// Its bytes are never changed once the event is returned (another
	// goroutine reads them): a normalizer may hand out slices of a buffer
	// it only appends to, and the orchestrator then takes a Raw that starts
	// where the message's previous one started as that one grown.
	Raw []byte `json:"-"`
	// MessageRaw is, for a delta, the message's raw data so far ending with
	// Raw, when the normalizer holds it in one buffer (nil otherwise): a
	// slice of the same memory as the message event's Raw before it, so
	// the orchestrator extends its copy of the raw data by taking this one
	// instead of copying the frame (docs/streaming.md, twenty-first pass).
	// The same rule as Raw: its bytes are never changed once returned.
	MessageRaw []byte `json:"-"`
}

// eventJSON is Event without its methods, for MarshalJSON.
type eventJSON Event

// MarshalJSON writes a tool-state-update's ToolResult under "result", as the
// design's union does; every other event marshals field by field.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Type == EventToolStateUpdate && e.ToolResult != "" {
		return json.Marshal(struct {
			eventJSON
			Result string `json:"result"`
		}{eventJSON(e), e.ToolResult})
	}
	return json.Marshal(eventJSON(e))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *Event) UnmarshalJSON(b []byte) error {
	var probe struct {
		Type   EventType       `json:"type"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	if probe.Type == EventToolStateUpdate && len(probe.Result) > 0 && probe.Result[0] == '"' {
		var aux struct {
			eventJSON
			Result string `json:"result"`
		}
		if err := json.Unmarshal(b, &aux); err != nil {
			return err
		}
		*e = Event(aux.eventJSON)
		e.ToolResult = aux.Result
		return nil
	}
	return json.Unmarshal(b, (*eventJSON)(e))
}

// DeltaField says which text of a part a Delta appends to.
type DeltaField string

// Delta fields.
const (
	DeltaText   DeltaField = "text"      // Part.Text of a text part
	DeltaReason DeltaField = "reasoning" // Part.Text of a reasoning part
	DeltaOutput DeltaField = "output"    // the text Content of a tool-result part
)

// Delta is text appended to Parts[Part] of the message MessageID. The message
// was emitted whole (with that part) before its first delta; applying every
// delta in order to the last whole message gives the current message.
type Delta struct {
	Part  int        `json:"part"`
	Field DeltaField `json:"field"`
	Text  string     `json:"text"`
}

// Request is a permission request or a question the agent waits on.
//
// permission-request: ToolName, ToolID, Input, Description, Suggestions, Patterns
// question:           Question, Options (the first question), Questions (all)
type Request struct {
	RequestID string `json:"requestId"`

	ToolName    string          `json:"toolName,omitempty"`
	ToolID      string          `json:"toolId,omitempty"`
	Input       json.RawMessage `json:"input,omitempty" ts_type:"any"`
	Description string          `json:"description,omitempty"`
	// Suggestions is the backend's own "always allow" proposal (Claude's
	// permission_suggestions), handed back when the user picks "always".
	Suggestions json.RawMessage `json:"suggestions,omitempty" ts_type:"any"`
	// Patterns are what an "always" answer would cover (OpenCode's patterns).
	Patterns []string `json:"patterns,omitempty"`
	// Options are the agent's own answer choices (ACP permission options).
	PermissionOptions []PermissionOption `json:"permissionOptions,omitempty"`

	Question  string           `json:"question,omitempty"`
	Options   []QuestionOption `json:"options,omitempty"`
	Questions []Question       `json:"questions,omitempty"`
}

// PermissionOption is one answer an agent offers to a permission request.
type PermissionOption struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Kind string `json:"kind"` // allow_once | allow_always | reject_once | reject_always
}

// Question is one question of a question request.
type Question struct {
	Question    string           `json:"question"`
	Header      string           `json:"header,omitempty"`
	Options     []QuestionOption `json:"options,omitempty"`
	MultiSelect bool             `json:"multiSelect,omitempty"`
}

// QuestionOption is one offered answer.
type QuestionOption struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Placeholder string `json:"placeholder,omitempty"`
}

// Behavior is a permission answer.
type Behavior string

// Permission answers.
const (
	Allow Behavior = "allow"
	Deny  Behavior = "deny"
)

// PermissionResponse answers a permission request.
type PermissionResponse struct {
	Behavior Behavior `json:"behavior"`
	// Always asks the agent itself to stop asking for this (Claude's
	// updatedPermissions from the suggestions, OpenCode's "always").
	Always bool `json:"always,omitempty"`
	// Message is the reason given to the agent on deny.
	Message string `json:"message,omitempty"`
	// Interrupt ends the turn on deny.
	Interrupt bool `json:"interrupt,omitempty"`
	// UpdatedInput replaces the tool input on allow (nil keeps it).
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty" ts_type:"any"`
}

// QuestionAnswer answers a question request: for each question, in order,
// the chosen labels or the free text typed.
type QuestionAnswer struct {
	Answers [][]string `json:"answers"`
}

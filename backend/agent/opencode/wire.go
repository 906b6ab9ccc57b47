package opencode

import (
	"encoding/json"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// This file holds OpenCode's native wire types: the payloads of the server's
// `GET /event` SSE stream and of its REST routes, as observed from OpenCode
// 1.18.33 and its published SDK (@opencode-ai/sdk, types.gen.d.ts). Only the
// fields Jean-Claude reads are declared; everything else survives in the raw
// frames.

// wireEnvelope is one SSE data payload: {"id","type","properties"}. The
// `opencode run --format json` lines use another envelope (see wireRunLine).
type wireEnvelope struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Properties json.RawMessage `json:"properties"`
}

// wireRunLine is one line of `opencode run --format json`.
type wireRunLine struct {
	Type      string          `json:"type"` // step_start | text | reasoning | tool_use | step_finish | error
	Timestamp agent.Int       `json:"timestamp"`
	SessionID string          `json:"sessionID"`
	Part      json.RawMessage `json:"part"`
	Error     *wireError      `json:"error"`
}

// wireSessionRef finds the session an event belongs to.
type wireSessionRef struct {
	SessionID string `json:"sessionID"`
	Info      *struct {
		ID        string `json:"id"`
		SessionID string `json:"sessionID"`
		ParentID  string `json:"parentID"`
	} `json:"info"`
	Part *struct {
		SessionID string `json:"sessionID"`
	} `json:"part"`
}

// wireSession is OpenCode's Session.
type wireSession struct {
	ID       string       `json:"id"`
	ParentID string       `json:"parentID,omitempty"`
	Title    string       `json:"title"`
	Summary  *wireSummary `json:"summary,omitempty"`
}

type wireSummary struct {
	Additions agent.Int `json:"additions"`
	Deletions agent.Int `json:"deletions"`
	Files     agent.Int `json:"files"`
}

// wireSessionInfo is {sessionID, info} of session.created / session.updated.
type wireSessionInfo struct {
	SessionID string      `json:"sessionID"`
	Info      wireSession `json:"info"`
}

// wireTokens is a token count of a message or a step.
type wireTokens struct {
	Total     agent.Int `json:"total,omitempty"`
	Input     agent.Int `json:"input"`
	Output    agent.Int `json:"output"`
	Reasoning agent.Int `json:"reasoning"`
	Cache     struct {
		Read  agent.Int `json:"read"`
		Write agent.Int `json:"write"`
	} `json:"cache"`
}

// wireError is OpenCode's NamedError: {name, data{message, ...}}.
type wireError struct {
	Name string `json:"name"`
	Data struct {
		Message    string    `json:"message"`
		StatusCode agent.Int `json:"statusCode,omitempty"`
	} `json:"data"`
}

// wireModelRef is a user message's {providerID, modelID}.
type wireModelRef struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
}

// wireMessage is a UserMessage or an AssistantMessage (message.updated info).
type wireMessage struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	Role      string `json:"role"` // user | assistant
	Time      struct {
		Created   agent.Int `json:"created"`
		Completed agent.Int `json:"completed,omitempty"`
	} `json:"time"`
	// user
	Agent string        `json:"agent,omitempty"`
	Model *wireModelRef `json:"model,omitempty"`
	// assistant
	ParentID   string          `json:"parentID,omitempty"`
	ModelID    string          `json:"modelID,omitempty"`
	ProviderID string          `json:"providerID,omitempty"`
	Mode       string          `json:"mode,omitempty"`
	Cost       agent.Float     `json:"cost,omitempty"`
	Tokens     *wireTokens     `json:"tokens,omitempty"`
	Finish     string          `json:"finish,omitempty"`
	Error      json.RawMessage `json:"error,omitempty"`
}

// wireMessageUpdated is message.updated's properties.
type wireMessageUpdated struct {
	SessionID string          `json:"sessionID"`
	Info      json.RawMessage `json:"info"`
}

// wireToolState is a ToolPart's state.
type wireToolState struct {
	Status      string            `json:"status"` // pending | running | completed | error
	Input       json.RawMessage   `json:"input,omitempty"`
	Output      string            `json:"output,omitempty"`
	Error       string            `json:"error,omitempty"`
	Title       string            `json:"title,omitempty"`
	Metadata    json.RawMessage   `json:"metadata,omitempty"`
	Attachments []json.RawMessage `json:"attachments,omitempty"`
	Time        struct {
		Start agent.Int `json:"start,omitempty"`
		End   agent.Int `json:"end,omitempty"`
	} `json:"time"`
}

// wirePart is any Part (the union flattened).
type wirePart struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	Type      string `json:"type"`
	// text, reasoning
	Text      string `json:"text,omitempty"`
	Synthetic bool   `json:"synthetic,omitempty"`
	Time      *struct {
		Start agent.Int `json:"start,omitempty"`
		End   agent.Int `json:"end,omitempty"`
	} `json:"time,omitempty"`
	// file
	Mime     string          `json:"mime,omitempty"`
	Filename string          `json:"filename,omitempty"`
	URL      string          `json:"url,omitempty"`
	Source   json.RawMessage `json:"source,omitempty"`
	// tool
	CallID string         `json:"callID,omitempty"`
	Tool   string         `json:"tool,omitempty"`
	State  *wireToolState `json:"state,omitempty"`
	// step-start, step-finish, snapshot
	Snapshot string      `json:"snapshot,omitempty"`
	Reason   string      `json:"reason,omitempty"`
	Cost     agent.Float `json:"cost,omitempty"`
	Tokens   *wireTokens `json:"tokens,omitempty"`
	// patch
	Hash  string   `json:"hash,omitempty"`
	Files []string `json:"files,omitempty"`
	// agent, subtask
	Name        string `json:"name,omitempty"`
	Agent       string `json:"agent,omitempty"`
	Prompt      string `json:"prompt,omitempty"`
	Description string `json:"description,omitempty"`
	// retry
	Attempt agent.Int `json:"attempt,omitempty"`
	// compaction
	Auto     bool `json:"auto,omitempty"`
	Overflow bool `json:"overflow,omitempty"`
}

// wirePartUpdated is message.part.updated's properties.
type wirePartUpdated struct {
	SessionID string          `json:"sessionID"`
	Part      json.RawMessage `json:"part"`
	Time      agent.Int       `json:"time,omitempty"`
}

// wirePartDelta is message.part.delta's properties.
type wirePartDelta struct {
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	PartID    string `json:"partID"`
	Field     string `json:"field"`
	Delta     string `json:"delta"`
}

// wirePartRemoved is message.part.removed's properties.
type wirePartRemoved struct {
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	PartID    string `json:"partID"`
}

// wireMessageRemoved is message.removed's properties.
type wireMessageRemoved struct {
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
}

// wireStatus is session.status's properties.
type wireStatus struct {
	SessionID string `json:"sessionID"`
	Status    struct {
		Type    string    `json:"type"` // idle | busy | retry
		Attempt agent.Int `json:"attempt,omitempty"`
		Message string    `json:"message,omitempty"`
		Next    agent.Int `json:"next,omitempty"`
	} `json:"status"`
}

// wireSessionError is session.error's properties.
type wireSessionError struct {
	SessionID string          `json:"sessionID"`
	Error     json.RawMessage `json:"error"`
}

// wireToolRef points from a request to the tool call that caused it.
type wireToolRef struct {
	MessageID string `json:"messageID"`
	CallID    string `json:"callID"`
}

// wirePermission is permission.asked's properties (and GET /permission's items).
type wirePermission struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionID"`
	Permission string          `json:"permission"`
	Patterns   []string        `json:"patterns"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Always     json.RawMessage `json:"always,omitempty"`
	Tool       *wireToolRef    `json:"tool,omitempty"`
}

// wireQuestion is question.asked's properties (and GET /question's items).
type wireQuestion struct {
	ID        string             `json:"id"`
	SessionID string             `json:"sessionID"`
	Questions []wireQuestionInfo `json:"questions"`
	Tool      *wireToolRef       `json:"tool,omitempty"`
}

type wireQuestionInfo struct {
	Question string `json:"question"`
	Header   string `json:"header"`
	Options  []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
	Multiple bool `json:"multiple,omitempty"`
}

// wireTodo is one todowrite / todo.updated item.
type wireTodo struct {
	ID       string `json:"id,omitempty"`
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority,omitempty"`
}

// wireMessageWithParts is one item of GET /session/{id}/message.
type wireMessageWithParts struct {
	Info  json.RawMessage   `json:"info"`
	Parts []json.RawMessage `json:"parts"`
}

// wirePromptBody is the body of POST /session/{id}/prompt_async.
type wirePromptBody struct {
	Model *wireModelRef    `json:"model,omitempty"`
	Agent string           `json:"agent,omitempty"`
	Parts []wireTextPartIn `json:"parts"`
}

type wireTextPartIn struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// wirePermissionRule is one rule of a session's permission ruleset.
type wirePermissionRule struct {
	Permission string `json:"permission"`
	Pattern    string `json:"pattern"`
	Action     string `json:"action"` // allow | deny | ask
}

// wireHealth is GET /global/health.
type wireHealth struct {
	Healthy bool   `json:"healthy"`
	Version string `json:"version"`
}

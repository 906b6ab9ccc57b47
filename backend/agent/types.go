// Package agent is the common contract between Jean-Claude and the agent
// CLIs it drives: the Backend and Session interfaces, the normalized event and
// message model every backend produces, the Normalizer contract, and the
// registries that look backends and raw formats up by name.
//
// The model follows the design's agent-backend-types.ts field for field; the
// JSON names and tags below are what the frontend receives and what
// `jean-claude normalize` prints.
package agent

import "encoding/json"

// BackendType names a backend: "claude-code", "opencode", "gemini", "codex",
// or "acp.<provider>.<name>" for Agent Client Protocol agents.
type BackendType string

// The backends of the design, and the later ones.
const (
	BackendClaudeCode BackendType = "claude-code"
	BackendOpenCode   BackendType = "opencode"
	BackendGemini     BackendType = "gemini"
	BackendCodex      BackendType = "codex"
)

// InteractionMode is how much the agent may do without asking.
type InteractionMode string

// Interaction modes, from most to least supervised.
const (
	ModeAsk         InteractionMode = "ask"          // every sensitive tool asks
	ModeAcceptEdits InteractionMode = "accept-edits" // file edits run unasked
	ModePlan        InteractionMode = "plan"         // read-only planning
	ModeBypass      InteractionMode = "bypass"       // nothing asks
)

// AllModes lists the interaction modes in display order.
var AllModes = []InteractionMode{ModeAsk, ModeAcceptEdits, ModePlan, ModeBypass}

// Valid reports whether m is a known mode.
func (m InteractionMode) Valid() bool {
	for _, k := range AllModes {
		if k == m {
			return true
		}
	}
	return false
}

// Role is a normalized message's author.
type Role string

// Message roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
	RoleResult    Role = "result"
)

// Message is one entry of a task's transcript. Its ID is stable: a backend that
// re-sends a message with the same ID replaces it in place.
type Message struct {
	ID        string `json:"id"`
	Role      Role   `json:"role"`
	Parts     []Part `json:"parts"`
	Timestamp string `json:"timestamp"` // RFC 3339; empty when the agent gave none (the store stamps it)

	Cost  *CostInfo   `json:"cost,omitempty"`
	Usage *TokenUsage `json:"usage,omitempty"`

	Model           string `json:"model,omitempty"`
	ParentToolUseID string `json:"parentToolUseId,omitempty"`
	IsSynthetic     bool   `json:"isSynthetic,omitempty"`
	IsError         bool   `json:"isError,omitempty"`

	// Result-only fields (Role == RoleResult).
	Result     string                `json:"result,omitempty"`
	DurationMs int64                 `json:"durationMs,omitempty"`
	TotalCost  *CostInfo             `json:"totalCost,omitempty"`
	ModelUsage map[string]ModelUsage `json:"modelUsage,omitempty"`

	// Metadata keeps backend-specific data for debugging and re-processing.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// PartType tags a Part.
type PartType string

// Part types: a closed set. The frontend switches on them exhaustively.
const (
	PartText         PartType = "text"
	PartReasoning    PartType = "reasoning"
	PartFile         PartType = "file"
	PartToolUse      PartType = "tool-use"
	PartToolResult   PartType = "tool-result"
	PartCompact      PartType = "compact"
	PartSystemStatus PartType = "system-status"
)

// Part is one piece of a message. It is a tagged union flattened into one
// struct (so Wails can generate it): which fields are set depends on Type.
//
//	text, reasoning: Text
//	file:            Path, Content (string), Mime
//	tool-use:        ToolID, ToolName, Input, Kind, State
//	tool-result:     ToolID, Content (string or []Part), IsError, Title, Attachments, StructuredResult
//	compact:         Trigger, PreTokens
//	system-status:   Subtype, Status, Text (a human-readable line)
type Part struct {
	Type PartType `json:"type"`

	Text string `json:"text,omitempty"`

	Path    string          `json:"path,omitempty"`
	Content json.RawMessage `json:"content,omitempty" ts_type:"any"`
	Mime    string          `json:"mime,omitempty"`

	ToolID   string          `json:"toolId,omitempty"`
	ToolName string          `json:"toolName,omitempty"`
	Input    json.RawMessage `json:"input,omitempty" ts_type:"any"`
	Kind     ToolKind        `json:"kind,omitempty"`
	State    ToolState       `json:"state,omitempty"`

	IsError          bool              `json:"isError,omitempty"`
	Title            string            `json:"title,omitempty"`
	Attachments      []json.RawMessage `json:"attachments,omitempty" ts_type:"any[]"`
	StructuredResult *StructuredResult `json:"structuredResult,omitempty"`

	Trigger   string `json:"trigger,omitempty"` // "auto" | "manual"
	PreTokens int64  `json:"preTokens,omitempty"`

	Subtype string `json:"subtype,omitempty"`
	Status  string `json:"status,omitempty"`
}

// TextContent returns a tool-result's Content as text: the string itself, or
// the text parts joined when the content is a list of parts.
func (p Part) TextContent() string {
	if len(p.Content) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(p.Content, &s); err == nil {
		return s
	}
	var parts []Part
	if err := json.Unmarshal(p.Content, &parts); err == nil {
		out := ""
		for i, q := range parts {
			if i > 0 && out != "" {
				out += "\n"
			}
			out += q.Text
		}
		return out
	}
	return string(p.Content)
}

// StringContent encodes s as a JSON string for Part.Content.
func StringContent(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// ToolKind classifies a tool by what it does, whatever its native name.
type ToolKind string

// Tool kinds.
const (
	ToolRead     ToolKind = "read"
	ToolEdit     ToolKind = "edit"
	ToolExecute  ToolKind = "execute"
	ToolSearch   ToolKind = "search"
	ToolFetch    ToolKind = "fetch"
	ToolTodo     ToolKind = "todo"
	ToolAskUser  ToolKind = "ask-user"
	ToolSubAgent ToolKind = "sub-agent"
	ToolSkill    ToolKind = "skill"
	ToolThink    ToolKind = "think"
	ToolOther    ToolKind = "other"
)

// ToolState is a tool call's progress.
type ToolState string

// Tool states.
const (
	ToolPending   ToolState = "pending"
	ToolRunning   ToolState = "running"
	ToolCompleted ToolState = "completed"
	ToolError     ToolState = "error"
	// Final states of a call that did not run to its end; the
	// tool-state-update's Error says why.
	ToolDenied      ToolState = "denied"      // the user (or a rule) refused it
	ToolCancelled   ToolState = "cancelled"   // the agent or the user stopped it
	ToolInterrupted ToolState = "interrupted" // its turn ended before it finished
)

// Final reports whether s is a state a tool call ends in.
func (s ToolState) Final() bool {
	switch s {
	case ToolCompleted, ToolError, ToolDenied, ToolCancelled, ToolInterrupted:
		return true
	}
	return false
}

// StructuredKind tags a StructuredResult.
type StructuredKind string

// Structured result kinds.
const (
	StructuredTodo  StructuredKind = "todo"
	StructuredWrite StructuredKind = "write"
	StructuredSkill StructuredKind = "skill"
)

// StructuredResult is rich tool output the UI renders specially.
//
//	todo:  OldTodos, NewTodos
//	write: FilePath, Content, OriginalFile, StructuredPatch, Operation ("create" | "update")
//	skill: Success, CommandName
type StructuredResult struct {
	Kind StructuredKind `json:"kind"`

	OldTodos []TodoItem `json:"oldTodos,omitempty"`
	NewTodos []TodoItem `json:"newTodos,omitempty"`

	FilePath        string      `json:"filePath,omitempty"`
	Content         string      `json:"content,omitempty"`
	OriginalFile    *string     `json:"originalFile,omitempty"`
	StructuredPatch []PatchHunk `json:"structuredPatch,omitempty"`
	Operation       string      `json:"operation,omitempty"`

	Success     bool   `json:"success,omitempty"`
	CommandName string `json:"commandName,omitempty"`
}

// TodoItem is one entry of an agent's todo list.
type TodoItem struct {
	ID         string `json:"id,omitempty"`
	Content    string `json:"content"`
	Status     string `json:"status"` // pending | in_progress | completed | cancelled
	ActiveForm string `json:"activeForm,omitempty"`
	Priority   string `json:"priority,omitempty"`
}

// PatchHunk is one hunk of a unified diff, as Claude's structuredPatch gives it.
type PatchHunk struct {
	OldStart int      `json:"oldStart"`
	OldLines int      `json:"oldLines"`
	NewStart int      `json:"newStart"`
	NewLines int      `json:"newLines"`
	Lines    []string `json:"lines"`
}

// CostInfo is a cost in US dollars.
type CostInfo struct {
	CostUSD      float64  `json:"costUsd"`
	TotalCostUSD *float64 `json:"totalCostUsd,omitempty"`
}

// TokenUsage counts tokens.
type TokenUsage struct {
	InputTokens         int64 `json:"inputTokens"`
	OutputTokens        int64 `json:"outputTokens"`
	CacheReadTokens     int64 `json:"cacheReadTokens,omitempty"`
	CacheCreationTokens int64 `json:"cacheCreationTokens,omitempty"`
	ReasoningTokens     int64 `json:"reasoningTokens,omitempty"`
}

// ModelUsage is one model's share of a session.
type ModelUsage struct {
	InputTokens         int64   `json:"inputTokens"`
	OutputTokens        int64   `json:"outputTokens"`
	CacheReadTokens     int64   `json:"cacheReadTokens,omitempty"`
	CacheCreationTokens int64   `json:"cacheCreationTokens,omitempty"`
	ContextWindow       int64   `json:"contextWindow,omitempty"`
	MaxOutputTokens     int64   `json:"maxOutputTokens,omitempty"`
	CostUSD             float64 `json:"costUsd,omitempty"`
}

// Result summarizes a finished turn (the complete event).
type Result struct {
	Text       string                `json:"text,omitempty"`
	IsError    bool                  `json:"isError"`
	Cost       *CostInfo             `json:"cost,omitempty"`
	DurationMs int64                 `json:"durationMs,omitempty"`
	Usage      *TokenUsage           `json:"usage,omitempty"`
	ModelUsage map[string]ModelUsage `json:"modelUsage,omitempty"`
	// Reason is the backend's own end reason (Claude's terminal_reason,
	// OpenCode's finish, ACP's stopReason): "completed", "aborted_tools", ...
	Reason string `json:"reason,omitempty"`
	// Interrupted is true when the turn ended because it was stopped.
	Interrupted bool `json:"interrupted,omitempty"`
}

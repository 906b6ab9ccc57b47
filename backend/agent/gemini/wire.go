package gemini

import (
	"encoding/json"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Gemini CLI's headless output, as `--output-format stream-json` prints it:
// one JSON object per line, tagged by type.

// line is any stream-json line; the fields used depend on Type.
type line struct {
	Type      string `json:"type"` // init | message | tool_use | tool_result | result | error
	Timestamp string `json:"timestamp,omitempty"`

	// init
	SessionID string `json:"session_id,omitempty"`
	Model     string `json:"model,omitempty"`

	// message
	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
	Delta   bool   `json:"delta,omitempty"`

	// tool_use
	ToolName   string          `json:"tool_name,omitempty"`
	ToolID     string          `json:"tool_id,omitempty"`
	Parameters json.RawMessage `json:"parameters,omitempty"`

	// tool_result, result
	Status string          `json:"status,omitempty"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  *wireError      `json:"error,omitempty"`

	// result
	Stats *streamStats `json:"stats,omitempty"`

	// error lines
	Severity string `json:"severity,omitempty"`
	Message  string `json:"message,omitempty"`
}

// wireError is a tool or API error.
type wireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// streamStats is the result line's stats.
type streamStats struct {
	TotalTokens  agent.Int             `json:"total_tokens"`
	InputTokens  agent.Int             `json:"input_tokens"`
	OutputTokens agent.Int             `json:"output_tokens"`
	Cached       agent.Int             `json:"cached"`
	DurationMs   agent.Int             `json:"duration_ms"`
	ToolCalls    agent.Int             `json:"tool_calls"`
	Models       map[string]modelStats `json:"models,omitempty"`
}

type modelStats struct {
	TotalTokens  agent.Int `json:"total_tokens"`
	InputTokens  agent.Int `json:"input_tokens"`
	OutputTokens agent.Int `json:"output_tokens"`
	Cached       agent.Int `json:"cached"`
}

// jsonOutput is `--output-format json`: one pretty-printed object at exit.
type jsonOutput struct {
	SessionID string     `json:"session_id"`
	Response  string     `json:"response"`
	Error     *wireError `json:"error,omitempty"`
	Stats     *struct {
		Models map[string]struct {
			Tokens struct {
				Input      agent.Int `json:"input"`
				Prompt     agent.Int `json:"prompt"`
				Candidates agent.Int `json:"candidates"`
				Total      agent.Int `json:"total"`
				Cached     agent.Int `json:"cached"`
				Thoughts   agent.Int `json:"thoughts"`
			} `json:"tokens"`
		} `json:"models"`
		Tools json.RawMessage `json:"tools,omitempty"`
		Files json.RawMessage `json:"files,omitempty"`
	} `json:"stats,omitempty"`
}

// todoParams is write_todos' parameters.
type todoParams struct {
	Todos []struct {
		Description string `json:"description"`
		Status      string `json:"status"`
	} `json:"todos"`
}

// writeParams is write_file's (and replace's) parameters.
type writeParams struct {
	FilePath  string `json:"file_path"`
	Content   string `json:"content"`
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
}

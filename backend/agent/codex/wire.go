package codex

import (
	"encoding/json"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// `codex exec --json`: one event per line.

// execEvent is any exec line.
type execEvent struct {
	Type     string          `json:"type"` // thread.started | turn.started | item.* | turn.completed | turn.failed | error
	ThreadID string          `json:"thread_id,omitempty"`
	Item     json.RawMessage `json:"item,omitempty"`
	Usage    *execUsage      `json:"usage,omitempty"`
	Error    *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
	Message string `json:"message,omitempty"`
}

type execUsage struct {
	InputTokens           agent.Int `json:"input_tokens"`
	CachedInputTokens     agent.Int `json:"cached_input_tokens"`
	CacheWriteInputTokens agent.Int `json:"cache_write_input_tokens"`
	OutputTokens          agent.Int `json:"output_tokens"`
	ReasoningOutputTokens agent.Int `json:"reasoning_output_tokens"`
}

// execItem is an exec thread item (snake_case fields).
type execItem struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Text             string          `json:"text,omitempty"`
	Command          string          `json:"command,omitempty"`
	AggregatedOutput string          `json:"aggregated_output,omitempty"`
	ExitCode         *agent.Int      `json:"exit_code,omitempty"`
	Status           string          `json:"status,omitempty"`
	Changes          json.RawMessage `json:"changes,omitempty"`
	Items            []struct {
		Text      string `json:"text"`
		Completed bool   `json:"completed"`
	} `json:"items,omitempty"`
	Server    string          `json:"server,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     json.RawMessage `json:"error,omitempty"`
	Query     string          `json:"query,omitempty"`
	Message   string          `json:"message,omitempty"`
}

// `codex app-server`: JSON-RPC over stdio (the server omits "jsonrpc").

// rpcMessage is any app-server message, in either direction.
type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int             `json:"code"` // JSON-RPC code; Decode notes another type
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// threadResult is thread/start's, thread/resume's and thread/read's result.
type threadResult struct {
	Thread *struct {
		ID    string `json:"id"`
		Model string `json:"model"`
	} `json:"thread"`
	Model string `json:"model,omitempty"`
}

// itemParams is item/started's and item/completed's params.
type itemParams struct {
	Item     json.RawMessage `json:"item"`
	ThreadID string          `json:"threadId"`
	TurnID   string          `json:"turnId"`
}

// deltaParams is the params of item/*/delta notifications.
type deltaParams struct {
	ItemID string `json:"itemId"`
	Delta  string `json:"delta"`
	TurnID string `json:"turnId"`
}

// appItem is an app-server ThreadItem (camelCase fields).
type appItem struct {
	Type string `json:"type"`
	ID   string `json:"id"`

	Text    string          `json:"text,omitempty"`    // agentMessage, plan
	Content json.RawMessage `json:"content,omitempty"` // userMessage: [UserInput]; reasoning: [string]
	Summary []string        `json:"summary,omitempty"` // reasoning

	Command          string          `json:"command,omitempty"` // commandExecution
	Cwd              string          `json:"cwd,omitempty"`
	CommandActions   json.RawMessage `json:"commandActions,omitempty"`
	AggregatedOutput *string         `json:"aggregatedOutput,omitempty"`
	ExitCode         *agent.Int      `json:"exitCode,omitempty"`
	Status           string          `json:"status,omitempty"`
	DurationMs       *agent.Int      `json:"durationMs,omitempty"`

	Changes []fileChange `json:"changes,omitempty"` // fileChange

	Server    string          `json:"server,omitempty"` // mcpToolCall
	Tool      string          `json:"tool,omitempty"`   // mcpToolCall, dynamicToolCall, collabAgentToolCall
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     json.RawMessage `json:"error,omitempty"`

	Query string          `json:"query,omitempty"` // webSearch
	Path  string          `json:"path,omitempty"`  // imageView
	Raw   json.RawMessage `json:"-"`
}

// fileChange is one file of a fileChange item.
type fileChange struct {
	Path string `json:"path"`
	Kind struct {
		Type     string  `json:"type"` // add | delete | update
		MovePath *string `json:"move_path,omitempty"`
	} `json:"kind"`
	Diff string `json:"diff"`
}

// tokenUsageParams is thread/tokenUsage/updated's params.
type tokenUsageParams struct {
	TurnID     string `json:"turnId"`
	TokenUsage struct {
		Total              appUsage  `json:"total"`
		Last               appUsage  `json:"last"`
		ModelContextWindow agent.Int `json:"modelContextWindow"`
	} `json:"tokenUsage"`
}

type appUsage struct {
	TotalTokens           agent.Int `json:"totalTokens"`
	InputTokens           agent.Int `json:"inputTokens"`
	CachedInputTokens     agent.Int `json:"cachedInputTokens"`
	CacheWriteInputTokens agent.Int `json:"cacheWriteInputTokens"`
	OutputTokens          agent.Int `json:"outputTokens"`
	ReasoningOutputTokens agent.Int `json:"reasoningOutputTokens"`
}

// turnParams is turn/started's and turn/completed's params.
type turnParams struct {
	ThreadID string `json:"threadId"`
	Turn     struct {
		ID         string     `json:"id"`
		Status     string     `json:"status"` // completed | interrupted | failed | inProgress
		Error      *turnError `json:"error"`
		DurationMs *agent.Int `json:"durationMs"`
	} `json:"turn"`
}

type turnError struct {
	Message           string          `json:"message"`
	CodexErrorInfo    json.RawMessage `json:"codexErrorInfo,omitempty"`
	AdditionalDetails *string         `json:"additionalDetails,omitempty"`
}

// errorParams is the "error" notification's params.
type errorParams struct {
	Error     turnError `json:"error"`
	WillRetry bool      `json:"willRetry"`
	TurnID    string    `json:"turnId"`
}

// planParams is turn/plan/updated's params.
type planParams struct {
	TurnID      string  `json:"turnId"`
	Explanation *string `json:"explanation"`
	Plan        []struct {
		Step   string `json:"step"`
		Status string `json:"status"` // pending | inProgress | completed
	} `json:"plan"`
}

// approvalParams is item/commandExecution/requestApproval's and
// item/fileChange/requestApproval's params.
type approvalParams struct {
	ThreadID           string          `json:"threadId"`
	TurnID             string          `json:"turnId"`
	ItemID             string          `json:"itemId"`
	Reason             *string         `json:"reason,omitempty"`
	Command            *string         `json:"command,omitempty"`
	Cwd                *string         `json:"cwd,omitempty"`
	AvailableDecisions json.RawMessage `json:"availableDecisions,omitempty"`
	GrantRoot          *string         `json:"grantRoot,omitempty"`
}

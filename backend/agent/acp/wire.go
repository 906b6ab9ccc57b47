package acp

import "encoding/json"

// The Agent Client Protocol as it appears on the wire: JSON-RPC 2.0, one
// message per line, in both directions. These types are deliberately loose
// (raw fields where agents differ) so the normalizer reads what real agents
// send rather than what the schema promises; the live connection itself is
// github.com/coder/acp-go-sdk.

// rpcMessage is any JSON-RPC message: a request (ID and Method), a
// notification (Method only) or a response (ID with Result or Error).
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func (m *rpcMessage) isRequest() bool {
	return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
}
func (m *rpcMessage) isNotification() bool { return m.Method != "" && !m.isRequest() }

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Methods the client sends to the agent.
const (
	methodInitialize   = "initialize"
	methodSessionNew   = "session/new"
	methodSessionLoad  = "session/load"
	methodPrompt       = "session/prompt"
	methodCancel       = "session/cancel"
	methodSetMode      = "session/set_mode"
	methodSetModel     = "session/set_model"
	methodSetConfigOpt = "session/set_config_option"
)

// Methods the agent sends to the client.
const (
	methodUpdate     = "session/update"
	methodPermission = "session/request_permission"
	methodReadFile   = "fs/read_text_file"
	methodWriteFile  = "fs/write_text_file"
)

// clientMethods are the requests and notifications that go client → agent;
// seeing one tells the normalizer the frame was sent, not received.
var clientMethods = map[string]bool{
	methodInitialize: true, "authenticate": true, methodSessionNew: true, methodSessionLoad: true,
	methodPrompt: true, methodCancel: true, methodSetMode: true, methodSetModel: true,
	methodSetConfigOpt: true, "session/list": true, "session/resume": true, "session/close": true,
	"session/fork": true,
}

// promptParams is session/prompt's params.
type promptParams struct {
	SessionID string          `json:"sessionId"`
	MessageID string          `json:"messageId,omitempty"`
	Prompt    json.RawMessage `json:"prompt"`
}

// sessionParams is the sessionId every session-scoped message carries.
type sessionParams struct {
	SessionID string `json:"sessionId"`
}

// sessionResult is session/new's (and session/load's) result.
type sessionResult struct {
	SessionID string          `json:"sessionId"`
	Modes     *modeState      `json:"modes,omitempty"`
	Models    json.RawMessage `json:"models,omitempty"`
}

// modeState lists the agent's own modes.
type modeState struct {
	AvailableModes []agentMode `json:"availableModes"`
	CurrentModeID  string      `json:"currentModeId"`
}

// agentMode is one of the agent's own modes.
type agentMode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// promptResult is session/prompt's result.
type promptResult struct {
	StopReason string       `json:"stopReason"`
	Usage      *promptUsage `json:"usage,omitempty"`
	Meta       *quotaMeta   `json:"_meta,omitempty"`
}

// promptUsage is the prompt result's token usage (newer ACP agents).
type promptUsage struct {
	InputTokens       int64 `json:"inputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
	CachedReadTokens  int64 `json:"cachedReadTokens"`
	CachedWriteTokens int64 `json:"cachedWriteTokens"`
	ThoughtTokens     int64 `json:"thoughtTokens"`
}

// setModeParams is session/set_mode's params.
type setModeParams struct {
	ModeID string `json:"modeId"`
}

// quotaMeta is Gemini CLI's token accounting in the prompt result's _meta.
type quotaMeta struct {
	Quota *struct {
		TokenCount *tokenCount `json:"token_count"`
		ModelUsage []struct {
			Model      string      `json:"model"`
			TokenCount *tokenCount `json:"token_count"`
		} `json:"model_usage"`
	} `json:"quota"`
}

type tokenCount struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// updateParams is session/update's params.
type updateParams struct {
	SessionID string          `json:"sessionId"`
	Update    json.RawMessage `json:"update"`
}

// updateFrame is a whole session/update notification, decoded in one pass.
type updateFrame struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params struct {
		SessionID string      `json:"sessionId"`
		Update    *sessionUpd `json:"update"`
	} `json:"params"`
}

// sessionUpd is the union of session/update payloads, tagged by SessionUpdate.
type sessionUpd struct {
	SessionUpdate string `json:"sessionUpdate"`

	// agent_message_chunk, agent_thought_chunk, user_message_chunk
	Content json.RawMessage `json:"content,omitempty"`

	// tool_call, tool_call_update (Content is []toolContent there)
	toolCall

	// plan
	Entries []planEntry `json:"entries,omitempty"`

	// usage_update
	Used *int64          `json:"used,omitempty"`
	Size *int64          `json:"size,omitempty"`
	Cost json.RawMessage `json:"cost,omitempty"`

	// current_mode_update
	CurrentModeID string `json:"currentModeId,omitempty"`

	// config_option_update
	ConfigOptions []configOption `json:"configOptions,omitempty"`

	// session_info_update
	Title *string `json:"title,omitempty"`
}

// toolCall is the part of a tool_call / tool_call_update / permission
// request's toolCall that the normalizer reads. Content is kept raw: it is a
// list of toolContent in tool calls.
type toolCall struct {
	ToolCallID string          `json:"toolCallId,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	Status     string          `json:"status,omitempty"`
	Locations  json.RawMessage `json:"locations,omitempty"`
	RawInput   json.RawMessage `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage `json:"rawOutput,omitempty"`
}

// toolCallFrame is a tool call as it stands alone (permission requests).
type toolCallFrame struct {
	toolCall
	Title   *string         `json:"title,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`
}

// toolContent is one entry of a tool call's content.
type toolContent struct {
	Type    string          `json:"type"` // content | diff | terminal
	Content json.RawMessage `json:"content,omitempty"`
	Path    string          `json:"path,omitempty"`
	OldText *string         `json:"oldText,omitempty"`
	NewText *string         `json:"newText,omitempty"`
	// terminal
	TerminalID string `json:"terminalId,omitempty"`
}

// contentBlock is an ACP content block.
type contentBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	URI      string `json:"uri,omitempty"`
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Resource *struct {
		URI  string `json:"uri"`
		Text string `json:"text,omitempty"`
	} `json:"resource,omitempty"`
}

// planEntry is one entry of an ACP plan.
type planEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority,omitempty"`
	Status   string `json:"status"`
}

// configOption is one of codex-acp's session config options.
type configOption struct {
	ID           string `json:"id"`
	Category     string `json:"category,omitempty"`
	CurrentValue any    `json:"currentValue,omitempty"`
}

// permissionParams is session/request_permission's params.
type permissionParams struct {
	SessionID string             `json:"sessionId"`
	ToolCall  toolCallFrame      `json:"toolCall"`
	Options   []permissionOption `json:"options"`
}

// permissionOption is one answer the agent offers.
type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

package claude

import (
	"bytes"
	"encoding/json"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// This file holds Claude Code's native stream-json types, as observed in the
// recordings (2.1.x). Only the fields the normalizer reads are declared;
// everything else is skipped by the decoder, so new fields never break
// decoding. Big or free-form values stay json.RawMessage.

// wireChat is an assistant or user line.
type wireChat struct {
	Type            string          `json:"type"`
	UUID            string          `json:"uuid"`
	Timestamp       string          `json:"timestamp"`
	Message         *wireMessage    `json:"message"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	IsSynthetic     bool            `json:"isSynthetic"`
	IsMeta          bool            `json:"isMeta"`
	IsReplay        bool            `json:"isReplay"`
	IsCompact       bool            `json:"isCompactSummary"`
	CostUSD         *agent.Float    `json:"cost_usd"`
	ToolUseResult   json.RawMessage `json:"tool_use_result"`
	ToolResultMeta  json.RawMessage `json:"tool_result_meta"`

	// Synthetic API error assistant lines.
	Error             json.RawMessage `json:"error"`
	IsAPIErrorMessage bool            `json:"is_api_error_message"`
	APIErrorStatus    json.RawMessage `json:"api_error_status"`

	anoms agent.Anomalies // fields that did not decode as declared
}

// wireResult is a result line: the end of a turn.
type wireResult struct {
	Subtype           string                    `json:"subtype"`
	UUID              string                    `json:"uuid"`
	IsError           bool                      `json:"is_error"`
	Result            *string                   `json:"result"`
	NumTurns          agent.Int                 `json:"num_turns"`
	DurationMs        agent.Int                 `json:"duration_ms"`
	DurationAPIMs     agent.Int                 `json:"duration_api_ms"`
	TotalCostUSD      *agent.Float              `json:"total_cost_usd"`
	Usage             *wireUsage                `json:"usage"`
	ModelUsage        map[string]wireModelUsage `json:"modelUsage"`
	PermissionDenials json.RawMessage           `json:"permission_denials"`
	TerminalReason    string                    `json:"terminal_reason"`
	StopReason        json.RawMessage           `json:"stop_reason"`
	Errors            json.RawMessage           `json:"errors"`
	APIErrorStatus    json.RawMessage           `json:"api_error_status"`

	anoms agent.Anomalies
}

// wireSystem is a system line (every subtype).
type wireSystem struct {
	Subtype         string          `json:"subtype"`
	UUID            string          `json:"uuid"`
	Status          json.RawMessage `json:"status"`
	PermissionMode  string          `json:"permissionMode"`
	CompactMetadata *wireCompact    `json:"compact_metadata"`
	Attempt         agent.Int       `json:"attempt"`
	MaxRetries      agent.Int       `json:"max_retries"`
	RetryDelayMs    *agent.Float    `json:"retry_delay_ms"` // 2.1.197 writes a float
	ErrorStatus     json.RawMessage `json:"error_status"`
	Error           json.RawMessage `json:"error"`
	ToolName        string          `json:"tool_name"`
	ToolUseID       string          `json:"tool_use_id"`
	Message         json.RawMessage `json:"message"`
	EstimatedTokens agent.Int       `json:"estimated_tokens"` // thinking_tokens
}

// wireControl is a control_request line (CLI -> host).
type wireControl struct {
	RequestID string              `json:"request_id"`
	Request   *wireControlRequest `json:"request"`
}

// wireMessage is an Anthropic API message (assistant) or a user message.
// Content is a string (a plain prompt) or a list of blocks.
type wireMessage struct {
	ID      string      `json:"id"`
	Role    string      `json:"role"`
	Model   string      `json:"model"`
	Content wireContent `json:"content"`
	Usage   *wireUsage  `json:"usage"`

	anoms agent.Anomalies
}

// wireContent is message content: a plain string (one text block) or a
// list of blocks, decoded in one pass. raws holds each block's JSON only
// when some block has a type the normalizer does not know (it keeps the
// block as text).
type wireContent struct {
	blocks []wireBlock
	raws   []json.RawMessage
	anoms  agent.Anomalies
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *wireContent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		c.blocks = []wireBlock{{Type: "text", Text: s}}
		return nil
	}
	if bl, ok := c.decodeFast(b); ok {
		c.blocks = bl
	} else {
		a, err := agent.Decode(b, &c.blocks)
		if err != nil {
			return err
		}
		c.anoms = a
	}
	for _, bl := range c.blocks {
		if !knownBlock(bl.Type) {
			return json.Unmarshal(b, &c.raws)
		}
	}
	return nil
}

// decodeFast decodes a content array member by member (decodeBlocks) when
// it is valid JSON and decoded into nothing yet; false: encoding/json's turn
// (its errors, a lenient decode, a second content member merging into the
// first).
func (c *wireContent) decodeFast(b []byte) ([]wireBlock, bool) {
	if c.blocks != nil || !json.Valid(b) {
		return nil, false
	}
	return decodeBlocks(b)
}

// raw returns block i's JSON when it was kept.
func (c *wireContent) raw(i int) json.RawMessage {
	if i < len(c.raws) {
		return c.raws[i]
	}
	return nil
}

func knownBlock(t string) bool {
	switch t {
	case "text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "tool_result", "image":
		return true
	}
	return false
}

// wireBlock is one content block: text, thinking, redacted_thinking,
// tool_use, tool_result, image, ...
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    json.RawMessage `json:"source"`
}

// wireUsage is the API usage block (per message, or summed on result).
type wireUsage struct {
	InputTokens              agent.Int `json:"input_tokens"`
	OutputTokens             agent.Int `json:"output_tokens"`
	CacheReadInputTokens     agent.Int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens agent.Int `json:"cache_creation_input_tokens"`
	OutputTokensDetails      *struct {
		ThinkingTokens agent.Int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

// wireModelUsage is one entry of result.modelUsage.
type wireModelUsage struct {
	InputTokens              agent.Int   `json:"inputTokens"`
	OutputTokens             agent.Int   `json:"outputTokens"`
	CacheReadInputTokens     agent.Int   `json:"cacheReadInputTokens"`
	CacheCreationInputTokens agent.Int   `json:"cacheCreationInputTokens"`
	CostUSD                  agent.Float `json:"costUSD"`
	ContextWindow            agent.Int   `json:"contextWindow"`
	MaxOutputTokens          agent.Int   `json:"maxOutputTokens"`
}

// wireCompact is system/compact_boundary's compact_metadata.
type wireCompact struct {
	Trigger   string    `json:"trigger"`
	PreTokens agent.Int `json:"pre_tokens"`
}

// wireControlRequest is the body of a control_request line.
type wireControlRequest struct {
	Subtype              string          `json:"subtype"`
	ToolName             string          `json:"tool_name"`
	Input                json.RawMessage `json:"input"`
	Description          string          `json:"description"`
	PermissionSuggestion json.RawMessage `json:"permission_suggestions"`
	ToolUseID            string          `json:"tool_use_id"`
	BlockedPath          string          `json:"blocked_path"`
	DecisionReason       string          `json:"decision_reason"`
	Mode                 string          `json:"mode"`
	Model                string          `json:"model"`
}

// wireAskInput is AskUserQuestion's tool input.
type wireAskInput struct {
	Questions []struct {
		Question    string `json:"question"`
		Header      string `json:"header"`
		MultiSelect bool   `json:"multiSelect"`
		Options     []struct {
			Label       string `json:"label"`
			Description string `json:"description"`
		} `json:"options"`
	} `json:"questions"`
}

// wireToolUseResult is the union of the structured tool_use_result shapes
// the normalizer recognizes (Write/Edit, TodoWrite, Skill, Task* tools).
type wireToolUseResult struct {
	// Write / Edit / MultiEdit
	Type            string          `json:"type"` // "create" | "update" (Write)
	FilePath        string          `json:"filePath"`
	Content         *string         `json:"content"`
	OldString       *string         `json:"oldString"`
	StructuredPatch json.RawMessage `json:"structuredPatch"`
	OriginalFile    *string         `json:"originalFile"`

	// TodoWrite
	OldTodos json.RawMessage `json:"oldTodos"`
	NewTodos json.RawMessage `json:"newTodos"`

	// Skill
	Success     *bool  `json:"success"`
	CommandName string `json:"commandName"`

	// TaskCreate / TaskUpdate / TaskList
	Task          *wireTask       `json:"task"`
	Tasks         []wireTask      `json:"tasks"`
	TaskID        json.RawMessage `json:"taskId"`
	UpdatedFields json.RawMessage `json:"updatedFields"`
	StatusChange  *struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"statusChange"`
}

// wireTask is one task of the newer task tools.
type wireTask struct {
	ID          json.RawMessage `json:"id"`
	Subject     string          `json:"subject"`
	Description string          `json:"description"`
	Status      string          `json:"status"`
	ActiveForm  string          `json:"activeForm"`
}

// wireTodo is one TodoWrite entry.
type wireTodo struct {
	ID         string `json:"id"`
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
	Priority   string `json:"priority"`
}

// head is what scanHead extracts from a line without decoding it: the raw
// (still quoted-string-content) values of the top-level "type", "subtype"
// and "session_id" keys.
type head struct {
	typ, subtype, sessionID []byte
}

// scanHead walks the top level of a JSON object and returns its type,
// subtype and session_id string values. It skips every other value without
// decoding it, which is what makes hidden lines (system/init, stream
// events, control responses: most of the bytes) cheap. ok is false when
// the line is not a JSON object as far as the walk can tell; full
// validation is left to the decoder on the lines that are decoded.
func scanHead(b []byte) (h head, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return h, false
	}
	i++
	for {
		i = skipWS(b, i)
		if i >= len(b) {
			return h, false
		}
		if b[i] == '}' {
			return h, skipWS(b, i+1) == len(b)
		}
		if b[i] == ',' {
			i++
			continue
		}
		if b[i] != '"' {
			return h, false
		}
		ks, ke, next := scanString(b, i)
		if next < 0 {
			return h, false
		}
		key := b[ks:ke]
		i = skipWS(b, next)
		if i >= len(b) || b[i] != ':' {
			return h, false
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return h, false
		}
		if b[i] == '"' {
			vs, ve, n := scanString(b, i)
			if n < 0 {
				return h, false
			}
			switch string(key) {
			case "type":
				if h.typ == nil {
					h.typ = b[vs:ve]
				}
			case "subtype":
				if h.subtype == nil {
					h.subtype = b[vs:ve]
				}
			case "session_id":
				if h.sessionID == nil {
					h.sessionID = b[vs:ve]
				}
			}
			i = n
			continue
		}
		n := skipValue(b, i)
		if n < 0 {
			return h, false
		}
		i = n
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString scans the string starting at b[i] == '"' and returns the
// bounds of its content and the index after the closing quote (-1 when
// unterminated).
func scanString(b []byte, i int) (start, end, next int) {
	start = i + 1
	j := start
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, 0, -1
		}
		j += k
		// Count the backslashes before the quote.
		n := 0
		for p := j - 1; p >= start && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return start, j, j + 1
		}
		j++
	}
}

// skipValue skips the non-string JSON value at b[i] and returns the index
// after it (-1 when malformed).
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			case '"':
				_, _, n := scanString(b, i)
				if n < 0 {
					return -1
				}
				i = n
				continue
			}
			i++
		}
		return -1
	default:
		// number, true, false, null
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if j == i {
					return -1
				}
				return j
			}
			j++
		}
		return -1
	}
}

// unquote returns the Go string of a scanned JSON string's content.
func unquote(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	q := make([]byte, 0, len(raw)+2)
	q = append(q, '"')
	q = append(q, raw...)
	q = append(q, '"')
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return string(raw)
	}
	return s
}

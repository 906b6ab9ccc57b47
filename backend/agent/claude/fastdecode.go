package claude

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// The decoders below fill wireChat and wireResult from a line without
// running encoding/json over the whole line: walkObject finds the top-level
// members with a quick scan, the members the normalizer needs are decoded
// one by one, and the rest (result's subagent_stats and
// model_usage_since_last_result, big tool_use_result objects that are not
// structured results, ...) is only skipped. For valid JSON they give what
// json.Unmarshal gives (FuzzNormalize checks it), except that keys must be
// spelled exactly as the CLI writes them (encoding/json also matches them
// case-insensitively).

// walkObject calls fn with each top-level member of the JSON object b: the
// key's content (still escaped) and the raw value. It reports false when b
// is not an object as far as the scan can tell.
func walkObject(b []byte, fn func(key, val []byte) error) (bool, error) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false, nil
	}
	i++
	for {
		i = skipWS(b, i)
		if i >= len(b) {
			return false, nil
		}
		switch b[i] {
		case '}':
			return skipWS(b, i+1) == len(b), nil
		case ',':
			i++
			continue
		case '"':
		default:
			return false, nil
		}
		ks, ke, next := scanString(b, i)
		if next < 0 {
			return false, nil
		}
		i = skipWS(b, next)
		if i >= len(b) || b[i] != ':' {
			return false, nil
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return false, nil
		}
		var n int
		if b[i] == '"' {
			_, _, n = scanString(b, i)
		} else {
			n = skipValue(b, i)
		}
		if n < 0 {
			return false, nil
		}
		if err := fn(b[ks:ke], b[i:n]); err != nil {
			return true, err
		}
		i = n
	}
}

// str decodes a JSON string value (null gives "").
func str(v []byte, dst *string) error {
	if len(v) >= 2 && v[0] == '"' {
		c := v[1 : len(v)-1]
		if bytes.IndexByte(c, '\\') < 0 && utf8.Valid(c) && !hasControl(c) {
			*dst = string(c)
			return nil
		}
	}
	if string(v) == "null" {
		return nil
	}
	return json.Unmarshal(v, dst)
}

func hasControl(c []byte) bool {
	for _, ch := range c {
		if ch < 0x20 {
			return true
		}
	}
	return false
}

// raw keeps a value as json.RawMessage (a copy, like encoding/json).
func raw(v []byte, dst *json.RawMessage) error {
	if !json.Valid(v) {
		return json.Unmarshal(v, dst) // the same error encoding/json gives
	}
	*dst = append((*dst)[:0], v...)
	return nil
}

// rawKnown keeps a value already known to be valid JSON (a member of a
// line or array json.Valid accepted) as json.RawMessage, a copy.
func rawKnown(v []byte, dst *json.RawMessage) error {
	*dst = append((*dst)[:0], v...)
	return nil
}

func boolean(v []byte, dst *bool) error {
	switch string(v) {
	case "true":
		*dst = true
		return nil
	case "false":
		*dst = false
		return nil
	case "null":
		return nil
	}
	return json.Unmarshal(v, dst)
}

// decodeChat fills w from an assistant or user line.
func decodeChat(line []byte, w *wireChat) error {
	ok, err := walkObject(line, lenient(&w.anoms, func(k, v []byte) error {
		switch string(k) {
		case "type":
			return str(v, &w.Type)
		case "uuid":
			return str(v, &w.UUID)
		case "timestamp":
			return str(v, &w.Timestamp)
		case "message":
			if string(v) == "null" {
				w.Message = nil
				return nil
			}
			if w.Message == nil {
				w.Message = new(wireMessage)
			}
			err := decodeMessage(v, w.Message)
			w.anoms = append(w.anoms, w.Message.anoms...)
			w.anoms = append(w.anoms, w.Message.Content.anoms...)
			return err
		case "parent_tool_use_id":
			if string(v) == "null" {
				w.ParentToolUseID = nil
				return nil
			}
			s := ""
			if err := str(v, &s); err != nil {
				return err
			}
			w.ParentToolUseID = &s
		case "isSynthetic":
			return boolean(v, &w.IsSynthetic)
		case "isMeta":
			return boolean(v, &w.IsMeta)
		case "isReplay":
			return boolean(v, &w.IsReplay)
		case "isCompactSummary":
			return boolean(v, &w.IsCompact)
		case "cost_usd":
			return json.Unmarshal(v, &w.CostUSD)
		case "tool_use_result":
			return raw(v, &w.ToolUseResult)
		case "tool_result_meta":
			return raw(v, &w.ToolResultMeta)
		case "error":
			return raw(v, &w.Error)
		case "is_api_error_message":
			return boolean(v, &w.IsAPIErrorMessage)
		case "api_error_status":
			return raw(v, &w.APIErrorStatus)
		}
		return nil
	}))
	if err != nil {
		return err
	}
	if !ok {
		return decodeSlow(line, w, &w.anoms)
	}
	return nil
}

// lenient wraps a member decoder: a member whose value has another type
// than declared is noted in anoms and skipped, the rest of the line is
// kept (the line was scanned as an object already).
func lenient(anoms *agent.Anomalies, fn func(k, v []byte) error) func(k, v []byte) error {
	return func(k, v []byte) error {
		if err := fn(k, v); err != nil {
			if !json.Valid(v) {
				return err
			}
			anoms.Note("%s: %v", k, err)
		}
		return nil
	}
}

// decodeSlow decodes a line walkObject could not scan with encoding/json
// (leniently: a field of another type is noted), for a precise error when
// it is not JSON.
func decodeSlow(line []byte, v any, anoms *agent.Anomalies) error {
	a, err := agent.Decode(line, v)
	*anoms = append(*anoms, a...)
	return err
}

// decodeMessage fills m from a message object.
func decodeMessage(b []byte, m *wireMessage) error {
	ok, err := walkObject(b, lenient(&m.anoms, func(k, v []byte) error {
		switch string(k) {
		case "id":
			return str(v, &m.ID)
		case "role":
			return str(v, &m.Role)
		case "model":
			return str(v, &m.Model)
		case "content":
			return m.Content.UnmarshalJSON(v)
		case "usage":
			if string(v) == "null" {
				m.Usage = nil
				return nil
			}
			return decodeUsage(v, &m.Usage)
		}
		return nil
	}))
	if err != nil {
		return err
	}
	if !ok {
		return decodeSlow(b, m, &m.anoms)
	}
	return nil
}

// decodeResult fills w from a result line.
func decodeResult(line []byte, w *wireResult) error {
	ok, err := walkObject(line, lenient(&w.anoms, func(k, v []byte) error {
		switch string(k) {
		case "subtype":
			return str(v, &w.Subtype)
		case "uuid":
			return str(v, &w.UUID)
		case "is_error":
			return boolean(v, &w.IsError)
		case "result":
			if string(v) == "null" {
				w.Result = nil
				return nil
			}
			s := ""
			if err := str(v, &s); err != nil {
				return err
			}
			w.Result = &s
		case "num_turns":
			return json.Unmarshal(v, &w.NumTurns)
		case "duration_ms":
			return json.Unmarshal(v, &w.DurationMs)
		case "duration_api_ms":
			return json.Unmarshal(v, &w.DurationAPIMs)
		case "total_cost_usd":
			return json.Unmarshal(v, &w.TotalCostUSD)
		case "usage":
			if string(v) == "null" {
				w.Usage = nil
				return nil
			}
			return decodeUsage(v, &w.Usage)
		case "modelUsage":
			return json.Unmarshal(v, &w.ModelUsage)
		case "permission_denials":
			return raw(v, &w.PermissionDenials)
		case "terminal_reason":
			return str(v, &w.TerminalReason)
		case "stop_reason":
			return raw(v, &w.StopReason)
		case "errors":
			return raw(v, &w.Errors)
		case "api_error_status":
			return raw(v, &w.APIErrorStatus)
		}
		return nil
	}))
	if err != nil {
		return err
	}
	if !ok {
		return decodeSlow(line, w, &w.anoms)
	}
	return nil
}

// decodeStream fills w from a stream_event line, the most frequent line of
// a streamed reply, member by member as decodeChat does; it gives what
// agent.Decode gives (the fuzz test checks it), with the anomalies found.
func decodeStream(line []byte, w *wireStream) (agent.Anomalies, error) {
	var anoms agent.Anomalies
	ok, err := walkObject(line, lenient(&anoms, func(k, v []byte) error {
		switch string(k) {
		case "uuid":
			return str(v, &w.UUID)
		case "api_message_id":
			return str(v, &w.APIMessageID)
		case "parent_tool_use_id":
			if string(v) == "null" {
				w.ParentToolUseID = nil
				return nil
			}
			s := ""
			if err := str(v, &s); err != nil {
				return err
			}
			w.ParentToolUseID = &s
		case "event":
			return decodeAPIEvent(v, &w.Event, &anoms)
		}
		return nil
	}))
	if err != nil {
		return nil, err
	}
	if !ok {
		*w = wireStream{}
		return agent.Decode(line, w)
	}
	return anoms, nil
}

// decodeAPIEvent fills e from a stream_event's event object.
func decodeAPIEvent(b []byte, e *wireAPIEvent, anoms *agent.Anomalies) error {
	if string(b) == "null" {
		return nil
	}
	ok, err := walkObject(b, lenient(anoms, func(k, v []byte) error {
		switch string(k) {
		case "type":
			return str(v, &e.Type)
		case "index":
			return e.Index.UnmarshalJSON(v)
		case "content_block":
			return raw(v, &e.ContentBlock)
		case "delta":
			return decodeDelta(v, &e.Delta, anoms)
		case "message":
			if string(v) == "null" {
				e.Message = nil
				return nil
			}
			if e.Message == nil {
				e.Message = new(wireMessage)
			}
			err := decodeMessage(v, e.Message)
			*anoms = append(*anoms, e.Message.anoms...)
			*anoms = append(*anoms, e.Message.Content.anoms...)
			e.Message.anoms = nil
			return err
		case "usage":
			if string(v) == "null" {
				e.Usage = nil
				return nil
			}
			return decodeUsage(v, &e.Usage)
		}
		return nil
	}))
	if err == nil && !ok {
		return json.Unmarshal(b, e) // not an object: encoding/json's error
	}
	return err
}

// decodeDelta fills d from an event's delta object.
func decodeDelta(b []byte, d *wireDelta, anoms *agent.Anomalies) error {
	if string(b) == "null" {
		return nil
	}
	ok, err := walkObject(b, lenient(anoms, func(k, v []byte) error {
		switch string(k) {
		case "type":
			return str(v, &d.Type)
		case "text":
			return str(v, &d.Text)
		case "thinking":
			return str(v, &d.Thinking)
		case "stop_reason":
			return raw(v, &d.StopReason)
		}
		return nil
	}))
	if err == nil && !ok {
		return json.Unmarshal(b, d)
	}
	return err
}

// decodeUsage fills *dst from a usage value as json.Unmarshal(v, dst)
// would: null clears it, an object is decoded into it (allocated when nil),
// member by member. Anything else, and any value that is not valid JSON,
// goes to encoding/json itself, for its result and error.
func decodeUsage(v []byte, dst **wireUsage) error {
	if string(v) == "null" {
		*dst = nil
		return nil
	}
	if !json.Valid(v) || v[skipWS(v, 0)] != '{' { // valid JSON is not blank
		return json.Unmarshal(v, dst)
	}
	if *dst == nil {
		*dst = new(wireUsage)
	}
	u := *dst
	fallback := false
	walkObject(v, func(k, val []byte) error {
		switch string(k) {
		case "input_tokens":
			return u.InputTokens.UnmarshalJSON(val)
		case "output_tokens":
			return u.OutputTokens.UnmarshalJSON(val)
		case "cache_read_input_tokens":
			return u.CacheReadInputTokens.UnmarshalJSON(val)
		case "cache_creation_input_tokens":
			return u.CacheCreationInputTokens.UnmarshalJSON(val)
		case "output_tokens_details":
			fallback = fallback || !decodeDetails(val, u)
		}
		return nil
	})
	if fallback {
		return json.Unmarshal(v, dst) // a member of another type: encoding/json's error
	}
	return nil
}

// decodeDetails decodes usage.output_tokens_details into u; false when it
// is neither null nor an object.
func decodeDetails(v []byte, u *wireUsage) bool {
	if string(v) == "null" {
		u.OutputTokensDetails = nil
		return true
	}
	if v[0] != '{' {
		return false
	}
	if u.OutputTokensDetails == nil {
		u.OutputTokensDetails = new(struct {
			ThinkingTokens agent.Int `json:"thinking_tokens"`
		})
	}
	d := u.OutputTokensDetails
	walkObject(v, func(k, val []byte) error {
		if string(k) == "thinking_tokens" {
			return d.ThinkingTokens.UnmarshalJSON(val)
		}
		return nil
	})
	return true
}

// decodeSystem fills w from a system line as agent.Decode(line, w) would.
// A line that is not valid JSON, or with a member of another type than
// declared, is decoded by agent.Decode itself (its error, or its lenient
// decode and anomalies).
func decodeSystem(line []byte, w *wireSystem) (agent.Anomalies, error) {
	if json.Valid(line) {
		ok, err := walkObject(line, w.member)
		if ok && err == nil {
			return nil, nil
		}
	}
	*w = wireSystem{}
	return agent.Decode(line, w)
}

// member decodes one member of a system line (an error: the member is not
// of its declared type).
func (w *wireSystem) member(k, v []byte) error {
	switch string(k) {
	case "subtype":
		return str(v, &w.Subtype)
	case "uuid":
		return str(v, &w.UUID)
	case "status":
		return rawKnown(v, &w.Status)
	case "permissionMode":
		return str(v, &w.PermissionMode)
	case "compact_metadata":
		if string(v) == "null" {
			w.CompactMetadata = nil
			return nil
		}
		return json.Unmarshal(v, &w.CompactMetadata)
	case "attempt":
		return w.Attempt.UnmarshalJSON(v)
	case "max_retries":
		return w.MaxRetries.UnmarshalJSON(v)
	case "retry_delay_ms":
		return optFloat(v, &w.RetryDelayMs)
	case "error_status":
		return rawKnown(v, &w.ErrorStatus)
	case "error":
		return rawKnown(v, &w.Error)
	case "tool_name":
		return str(v, &w.ToolName)
	case "tool_use_id":
		return str(v, &w.ToolUseID)
	case "message":
		return rawKnown(v, &w.Message)
	case "estimated_tokens":
		return w.EstimatedTokens.UnmarshalJSON(v)
	}
	return nil
}

// optFloat decodes a *agent.Float as encoding/json does: null clears it,
// anything else goes to Float.UnmarshalJSON (allocated when nil).
func optFloat(v []byte, dst **agent.Float) error {
	if string(v) == "null" {
		*dst = nil
		return nil
	}
	if *dst == nil {
		*dst = new(agent.Float)
	}
	return (*dst).UnmarshalJSON(v)
}

// decodeBlocks decodes a content array of valid JSON into a new slice as
// encoding/json would; false when an element is not an object or a member
// is not of its declared type (the caller then decodes with encoding/json).
func decodeBlocks(b []byte) ([]wireBlock, bool) {
	out := []wireBlock{}
	ok := walkArray(b, func(el []byte) bool {
		var bl wireBlock
		if !decodeBlock(el, &bl) {
			return false
		}
		out = append(out, bl)
		return true
	})
	return out, ok
}

// decodeBlock decodes one content block object of valid JSON (the caller
// checked it) into bl; false when it is not an object or a member is not of
// its declared type.
func decodeBlock(b []byte, bl *wireBlock) bool {
	ok, err := walkObject(b, func(k, v []byte) error {
		switch string(k) {
		case "type":
			return str(v, &bl.Type)
		case "text":
			return str(v, &bl.Text)
		case "thinking":
			return str(v, &bl.Thinking)
		case "id":
			return str(v, &bl.ID)
		case "name":
			return str(v, &bl.Name)
		case "input":
			return rawKnown(v, &bl.Input)
		case "tool_use_id":
			return str(v, &bl.ToolUseID)
		case "content":
			return rawKnown(v, &bl.Content)
		case "is_error":
			return boolean(v, &bl.IsError)
		case "source":
			return rawKnown(v, &bl.Source)
		}
		return nil
	})
	return ok && err == nil
}

// walkArray calls fn with each element of the JSON array b (valid JSON);
// false when b is not an array or fn says so.
func walkArray(b []byte, fn func(el []byte) bool) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return skipWS(b, i+1) == len(b)
	}
	for i < len(b) {
		var n int
		if b[i] == '"' {
			_, _, n = scanString(b, i)
		} else {
			n = skipValue(b, i)
		}
		if n < 0 || !fn(b[i:n]) {
			return false
		}
		i = skipWS(b, n)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ']':
			return skipWS(b, i+1) == len(b)
		case ',':
			i = skipWS(b, i+1)
		default:
			return false
		}
	}
	return false
}

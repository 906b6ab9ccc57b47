package store

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// appendMessageJSON appends m as json.Marshal writes it, byte for byte
// (TestMessageJSONAsMarshal, FuzzMessageJSON): a message row's
// normalizedData. It writes the message's and its parts' own fields
// itself, the nested structures (costs, usage, structured results, the
// metadata) through json.Marshal. json.Marshal's reflection was the single
// writer's largest cost of its own on the recorded firehose: every task's
// transaction waits for it (docs/streaming.md, twenty-first pass).
func appendMessageJSON(dst []byte, m *agent.Message) ([]byte, error) {
	dst = appendJSONString(append(dst, `{"id":`...), m.ID)
	dst = appendJSONString(append(dst, `,"role":`...), string(m.Role))
	dst = append(dst, `,"parts":`...)
	if m.Parts == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range m.Parts {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendPartJSON(dst, &m.Parts[i]); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	dst = appendJSONString(append(dst, `,"timestamp":`...), m.Timestamp)
	var err error
	dst, err = appendCost(dst, `,"cost":`, m.Cost, err)
	dst = appendUsage(dst, m.Usage)
	dst = appendOptString(dst, `,"model":`, m.Model)
	dst = appendOptString(dst, `,"parentToolUseId":`, m.ParentToolUseID)
	dst = appendOptTrue(dst, `,"isSynthetic":true`, m.IsSynthetic)
	dst = appendOptTrue(dst, `,"isError":true`, m.IsError)
	dst = appendOptString(dst, `,"result":`, m.Result)
	dst = appendOptInt(dst, `,"durationMs":`, m.DurationMs)
	dst, err = appendCost(dst, `,"totalCost":`, m.TotalCost, err)
	dst, err = appendMarshaled(dst, `,"modelUsage":`, m.ModelUsage, len(m.ModelUsage) > 0, err)
	if len(m.Metadata) > 0 && err == nil {
		dst, err = appendAny(append(dst, `,"metadata":`...), m.Metadata)
	}
	return append(dst, '}'), err
}

// appendPartJSON appends p as json.Marshal writes it.
func appendPartJSON(dst []byte, p *agent.Part) ([]byte, error) {
	dst = appendJSONString(append(dst, `{"type":`...), string(p.Type))
	dst = appendOptString(dst, `,"text":`, p.Text)
	dst = appendOptString(dst, `,"path":`, p.Path)
	var err error
	dst, err = appendRaw(dst, `,"content":`, p.Content, err)
	dst = appendOptString(dst, `,"mime":`, p.Mime)
	dst = appendOptString(dst, `,"toolId":`, p.ToolID)
	dst = appendOptString(dst, `,"toolName":`, p.ToolName)
	dst, err = appendRaw(dst, `,"input":`, p.Input, err)
	dst = appendOptString(dst, `,"kind":`, string(p.Kind))
	dst = appendOptString(dst, `,"state":`, string(p.State))
	dst = appendOptTrue(dst, `,"isError":true`, p.IsError)
	dst = appendOptString(dst, `,"title":`, p.Title)
	dst, err = appendMarshaled(dst, `,"attachments":`, p.Attachments, len(p.Attachments) > 0, err)
	dst, err = appendMarshaled(dst, `,"structuredResult":`, p.StructuredResult, p.StructuredResult != nil, err)
	dst = appendOptString(dst, `,"trigger":`, p.Trigger)
	dst = appendOptInt(dst, `,"preTokens":`, p.PreTokens)
	dst = appendOptString(dst, `,"subtype":`, p.Subtype)
	dst = appendOptString(dst, `,"status":`, p.Status)
	return append(dst, '}'), err
}

func appendOptString(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendJSONString(append(dst, key...), s)
}

func appendOptTrue(dst []byte, member string, b bool) []byte {
	if !b {
		return dst
	}
	return append(dst, member...)
}

func appendOptInt(dst []byte, key string, n int64) []byte {
	if n == 0 {
		return dst
	}
	return strconv.AppendInt(append(dst, key...), n, 10)
}

// appendUsage appends the "usage" member, if any.
func appendUsage(dst []byte, u *agent.TokenUsage) []byte {
	if u == nil {
		return dst
	}
	dst = strconv.AppendInt(append(dst, `,"usage":{"inputTokens":`...), u.InputTokens, 10)
	dst = strconv.AppendInt(append(dst, `,"outputTokens":`...), u.OutputTokens, 10)
	dst = appendOptInt(dst, `,"cacheReadTokens":`, u.CacheReadTokens)
	dst = appendOptInt(dst, `,"cacheCreationTokens":`, u.CacheCreationTokens)
	dst = appendOptInt(dst, `,"reasoningTokens":`, u.ReasoningTokens)
	return append(dst, '}')
}

// appendCost appends key and c, if any.
func appendCost(dst []byte, key string, c *agent.CostInfo, err error) ([]byte, error) {
	if c == nil || err != nil {
		return dst, err
	}
	if dst, err = appendFloat(append(dst, key+`{"costUsd":`...), c.CostUSD); err != nil {
		return dst, err
	}
	if c.TotalCostUSD != nil {
		if dst, err = appendFloat(append(dst, `,"totalCostUsd":`...), *c.TotalCostUSD); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendFloat appends f as json.Marshal writes a float64: the shortest
// decimal that reads back as f, in exponent form (e-7, not e-07) below
// 1e-6 and from 1e21 on; NaN and infinities are an error.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1]
		dst = dst[:n-1]
	}
	return dst, nil
}

// appendAny appends v as json.Marshal writes it: the kinds decoded JSON
// and the normalizers' metadata hold (maps with their keys sorted, slices,
// strings, numbers, booleans, null) directly, anything else by
// json.Marshal.
func appendAny(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendJSONString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case float64:
		return appendFloat(dst, x)
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendAny(append(appendJSONString(dst, k), ':'), x[k]); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendAny(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	b, err := json.Marshal(v)
	return append(dst, b...), err
}

// appendMarshaled appends key and json.Marshal(v) when present and no
// earlier member failed.
func appendMarshaled(dst []byte, key string, v any, present bool, err error) ([]byte, error) {
	if !present || err != nil {
		return dst, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(append(dst, key...), b...), nil
}

// appendRaw appends key and raw as json.Marshal writes a RawMessage:
// compacted, with <, >, &, U+2028 and U+2029 escaped.
func appendRaw(dst []byte, key string, raw json.RawMessage, err error) ([]byte, error) {
	if len(raw) == 0 || err != nil {
		return dst, err
	}
	var c bytes.Buffer
	if err := json.Compact(&c, raw); err != nil {
		return dst, err
	}
	out := bytes.NewBuffer(append(dst, key...))
	json.HTMLEscape(out, c.Bytes())
	return out.Bytes(), nil
}

// htmlSafe[b] tells whether ASCII byte b is written as itself in a JSON
// string by json.Marshal (which escapes HTML's <, > and &).
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as json.Marshal quotes a string: the
// short escapes for \b \f \n \r \t, \u00XX for other control bytes and
// HTML's <, > and &, \ufffd for invalid UTF-8, \u2028 and \u2029.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if htmlSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

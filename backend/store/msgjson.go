package store

import (
	"bytes"
	"encoding/json"
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
	dst, err = appendMarshaled(dst, `,"cost":`, m.Cost, m.Cost != nil, err)
	dst, err = appendMarshaled(dst, `,"usage":`, m.Usage, m.Usage != nil, err)
	dst = appendOptString(dst, `,"model":`, m.Model)
	dst = appendOptString(dst, `,"parentToolUseId":`, m.ParentToolUseID)
	dst = appendOptTrue(dst, `,"isSynthetic":true`, m.IsSynthetic)
	dst = appendOptTrue(dst, `,"isError":true`, m.IsError)
	dst = appendOptString(dst, `,"result":`, m.Result)
	dst = appendOptInt(dst, `,"durationMs":`, m.DurationMs)
	dst, err = appendMarshaled(dst, `,"totalCost":`, m.TotalCost, m.TotalCost != nil, err)
	dst, err = appendMarshaled(dst, `,"modelUsage":`, m.ModelUsage, len(m.ModelUsage) > 0, err)
	dst, err = appendMarshaled(dst, `,"metadata":`, m.Metadata, len(m.Metadata) > 0, err)
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

package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// largestRecording returns the lines of the biggest stdout recording.
func largestRecording(b testing.TB) (string, [][]byte, int) {
	var best string
	var size int64
	for _, p := range recordings(b) {
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		if st.Size() > size {
			best, size = p, st.Size()
		}
	}
	data, err := os.ReadFile(best)
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for l, err := range agent.Lines(bytes.NewReader(data)) {
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, l)
	}
	return filepath.Base(best), lines, len(data)
}

// BenchmarkNormalize normalizes the largest recording (bidi_interrupt:
// stream events, two system/init lines, three turns' messages).
func BenchmarkNormalize(b *testing.B) {
	name, lines, size := largestRecording(b)
	b.Logf("%s: %d lines, %d bytes", name, len(lines), size)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	msgs := 0
	for b.Loop() {
		n := NewNormalizer()
		for _, l := range lines {
			for _, ev := range n.Feed(l) {
				if ev.Type == agent.EventMessage {
					msgs++
				}
			}
		}
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkNormalizeMessages normalizes only the lines that become
// messages (no hidden lines): the worst case per byte.
func BenchmarkNormalizeMessages(b *testing.B) {
	var lines [][]byte
	size := 0
	for _, p := range recordings(b) {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for l := range agent.Lines(bytes.NewReader(data)) {
			h, _ := scanHead(l)
			switch string(h.typ) {
			case "assistant", "user", "result":
				lines = append(lines, l)
				size += len(l) + 1
			}
		}
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	msgs := 0
	for b.Loop() {
		n := NewNormalizer()
		for _, l := range lines {
			for _, ev := range n.Feed(l) {
				if ev.Type == agent.EventMessage {
					msgs++
				}
			}
		}
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}

// FuzzNormalize feeds arbitrary lines (seeded with every recorded line)
// to a normalizer that has already seen a few of them: it must never
// panic, and every message event must carry its Raw.
func FuzzNormalize(f *testing.F) {
	for _, p := range recordings(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for l := range agent.Lines(bytes.NewReader(data)) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFastDecode(t, line)
		n := NewNormalizer()
		// Two copies: the second exercises merging and dedup state.
		for _, l := range [][]byte{line, line, append(bytes.Clone(line), line...)} {
			for _, ev := range n.Feed(l) {
				switch ev.Type {
				case agent.EventMessage:
					if ev.Message == nil || ev.Message.ID == "" || len(ev.Raw) == 0 {
						t.Fatalf("bad message event %+v", ev)
					}
					if _, err := ev.MarshalJSON(); err != nil {
						t.Fatalf("marshal: %v", err)
					}
					// Its Raw rebuilds a message with the same ID.
					again := NewNormalizer()
					found := false
					for _, r := range bytes.Split(ev.Raw, []byte("\n")) {
						for _, e := range again.Feed(r) {
							found = found || (e.Type == agent.EventMessage && e.Message.ID == ev.Message.ID)
						}
					}
					if !found {
						t.Fatalf("Raw %q does not rebuild message %s", ev.Raw, ev.Message.ID)
					}
				case agent.EventError:
					if ev.Error == "" {
						t.Fatal("empty error")
					}
				}
			}
		}
		n.Flush()
	})
}

// walkedKeys are the keys of the levels the fast decoders walk themselves.
var walkedKeys = []string{"type", "uuid", "timestamp", "message", "parent_tool_use_id", "isSynthetic", "isMeta",
	"isReplay", "isCompactSummary", "cost_usd", "tool_use_result", "tool_result_meta", "error", "is_api_error_message",
	"api_error_status", "id", "role", "model", "content", "usage", "subtype", "is_error", "result", "num_turns",
	"duration_ms", "duration_api_ms", "total_cost_usd", "modelUsage", "permission_denials", "terminal_reason",
	"stop_reason", "errors", "api_message_id", "event", "index", "content_block", "delta", "text", "thinking",
	// usage
	"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens_details",
	"thinking_tokens",
	// content blocks
	"name", "input", "tool_use_id", "source",
	// system lines
	"status", "permissionMode", "compact_metadata", "attempt", "max_retries", "retry_delay_ms", "error_status",
	"tool_name", "estimated_tokens"}

// walkedLevels names, by the key that leads to it, each object the fast
// decoders walk below the line: a message, a stream event, its delta, a
// usage and its details, a content block. A content array's elements are
// blocks.
var walkedLevels = map[string]bool{"message": true, "event": true, "delta": true, "usage": true,
	"output_tokens_details": true, "content_block": true, "content": true}

// exactKeys reports whether the walked levels of line only use keys that
// encoding/json and the fast decoders match alike (no escapes, no
// case-insensitive near-miss).
func exactKeys(b []byte) bool {
	good := true
	var check func(b []byte, depth int)
	check = func(b []byte, depth int) {
		if depth > 6 {
			return
		}
		if len(b) > 0 && b[0] == '[' {
			walkArray(b, func(el []byte) bool { check(el, depth+1); return true })
			return
		}
		walkObject(b, func(k, v []byte) error {
			if bytes.IndexByte(k, '\\') >= 0 {
				good = false
			}
			for _, w := range walkedKeys {
				if strings.EqualFold(string(k), w) && string(k) != w {
					good = false
				}
			}
			if walkedLevels[string(k)] {
				check(v, depth+1)
			}
			return nil
		})
	}
	check(b, 0)
	return good
}

// checkFastDecode compares the fast decoders with the lenient
// encoding/json decode (agent.Decode): a valid line never fails, and when
// neither notes an anomaly they decode the same values.
func checkFastDecode(t *testing.T, line []byte) {
	if !json.Valid(line) || !exactKeys(line) || bytes.TrimSpace(line)[0] != '{' {
		return // the fast decoders take objects only, as the normalizer gives them
	}
	var fast, slow wireChat
	errF := decodeChat(line, &fast)
	anoms, errS := agent.Decode(line, &slow)
	if errF != nil || (errS != nil) != (len(line) > 0 && bytes.TrimSpace(line)[0] != '{') {
		t.Fatalf("decodeChat error %v, agent.Decode %v", errF, errS)
	}
	if len(fast.anoms) == 0 && len(anoms) == 0 && len(fast.Message.anomsOrNil()) == 0 && !reflect.DeepEqual(fast, slow) {
		t.Fatalf("decodeChat differs:\nfast %+v\nslow %+v", fast, slow)
	}
	var fr, sr wireResult
	errF = decodeResult(line, &fr)
	anoms, errS = agent.Decode(line, &sr)
	if errF != nil {
		t.Fatalf("decodeResult error %v, agent.Decode %v", errF, errS)
	}
	if len(fr.anoms) == 0 && len(anoms) == 0 && !reflect.DeepEqual(fr, sr) {
		t.Fatalf("decodeResult differs:\nfast %+v\nslow %+v", fr, sr)
	}
	var fs, ss wireStream
	anomsF, errF := decodeStream(line, &fs)
	anoms, errS = agent.Decode(line, &ss)
	if errF != nil {
		t.Fatalf("decodeStream error %v, agent.Decode %v", errF, errS)
	}
	if len(anomsF) == 0 && len(anoms) == 0 && !reflect.DeepEqual(fs, ss) {
		t.Fatalf("decodeStream differs:\nfast %+v\nslow %+v", fs, ss)
	}
	var fy, sy wireSystem
	anomsF, errF = decodeSystem(line, &fy)
	anoms, errS = agent.Decode(line, &sy)
	if (errF != nil) != (errS != nil) || len(anomsF) != len(anoms) || !reflect.DeepEqual(fy, sy) {
		t.Fatalf("decodeSystem differs:\nfast %+v %v %v\nslow %+v %v %v", fy, anomsF, errF, sy, anoms, errS)
	}
	checkBlocksDecode(t, line, 0)
}

// checkBlocksDecode compares, for every content array and content block in
// the walked levels of b, decodeBlocks and decodeBlock with encoding/json's
// decode of the same value (wireContent's own UnmarshalJSON takes the fast
// path, so checkFastDecode's whole-line comparisons do not tell them apart).
func checkBlocksDecode(t *testing.T, b []byte, depth int) {
	if depth > 4 {
		return
	}
	walkObject(b, func(k, v []byte) error {
		switch string(k) {
		case "message", "event":
			checkBlocksDecode(t, v, depth+1)
		case "content":
			var slow []wireBlock
			anoms, err := agent.Decode(v, &slow)
			fast, ok := decodeBlocks(v)
			if ok && (err != nil || len(anoms) > 0 || !reflect.DeepEqual(fast, slow)) {
				t.Fatalf("decodeBlocks differs on %s:\nfast %+v\nslow %+v %v %v", v, fast, slow, anoms, err)
			}
			if !ok && v[0] == '[' && err == nil && len(anoms) == 0 && !hasNullElement(v) {
				t.Fatalf("decodeBlocks refused %s that encoding/json decodes", v)
			}
		case "content_block":
			var fast, slow wireBlock
			anoms, err := agent.Decode(v, &slow)
			if decodeBlock(v, &fast) && (err != nil || len(anoms) > 0 || !reflect.DeepEqual(fast, slow)) {
				t.Fatalf("decodeBlock differs on %s:\nfast %+v\nslow %+v %v %v", v, fast, slow, anoms, err)
			}
		}
		return nil
	})
}

// hasNullElement: a null element decodes to an empty block with
// encoding/json; decodeBlocks leaves such arrays to it.
func hasNullElement(v []byte) bool {
	found := false
	walkArray(v, func(el []byte) bool { found = found || string(el) == "null"; return true })
	return found
}

func (m *wireMessage) anomsOrNil() agent.Anomalies {
	if m == nil {
		return nil
	}
	return append(m.anoms, m.Content.anoms...)
}

func TestFastDecodeMatchesEncodingJSON(t *testing.T) {
	for _, p := range recordings(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for l := range agent.Lines(bytes.NewReader(data)) {
			checkFastDecode(t, l)
		}
	}
}

func TestFastDecodeEdgeCases(t *testing.T) {
	for _, l := range []string{
		`{"type":"assistant","uuid":"a\"b\\c\u00e9","message":{"id":"m\n1","content":"plain \u2028 text","usage":null},"parent_tool_use_id":null}`,
		`{"type":"user","uuid":"x","uuid":"y","message":null,"isSynthetic":true,"isSynthetic":false,"tool_use_result":"Error: x"}`,
		`{"type":"user","uuid":5}`,
		`{"type":"user","isMeta":"yes"}`,
		`{"type":"result","num_turns":1.5}`,
		`{"type":"result","result":null,"total_cost_usd":1e-3,"modelUsage":{"m":{"inputTokens":1}},"usage":{"input_tokens":2}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"weird","x":[1,{"y":"}"}]}]}}`,
		`{"type":"assistant","message":"not an object"}`,
		`{"type":"assistant","message":{"content":{"type":"text"}}}`,
		"{\"type\":\"user\",\"uuid\":\"\xff\xfe\"}",
		` { "type" : "user" , "uuid" : "spaced" , "message" : { "content" : [ ] } } `,
		`{"type":"result","errors":[],"stop_reason":null,"api_error_status":429,"cost_usd":null}`,
		// usage: odd numbers, details of another type, a usage given twice
		`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":1.5,"output_tokens":"7","cache_read_input_tokens":null,"output_tokens_details":{"thinking_tokens":1e400}}}}`,
		`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":2,"output_tokens_details":5}}}`,
		`{"type":"assistant","message":{"id":"m","usage":{"output_tokens_details":{"thinking_tokens":3},"output_tokens_details":null}}}`,
		`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":1},"usage":{"output_tokens":2}}}`,
		`{"type":"assistant","message":{"id":"m","usage":[1]}}`,
		// content: a null element, a member of another type, a second content member
		`{"type":"assistant","message":{"content":[null,{"type":"text","text":"a"}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":5,"is_error":"yes"}]}}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"a"}],"content":[{"type":"text","text":"b"},{"type":"image","source":{"x":1}}]}}`,
		`{"type":"assistant","message":{"content":[]}}`,
		// stream events: a content block of another shape
		`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"Bash","input":{}}}}`,
		`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":7}}}`,
		`{"type":"stream_event","event":{"type":"message_delta","usage":{"output_tokens":9}}}`,
		// system lines
		`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":"10","retry_delay_ms":531.2,"error_status":529,"error":{"type":"overloaded"}}`,
		`{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"auto","pre_tokens":1200.5}}`,
		`{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":5}}`,
		`{"type":"system","subtype":"thinking_tokens","estimated_tokens":12,"retry_delay_ms":null,"status":null}`,
		`{"type":"system","subtype":7}`,
	} {
		checkFastDecode(t, []byte(l))
	}
}

package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// checkMessageJSON fails t unless appendMessageJSON writes m as json.Marshal
// does (or both fail).
func checkMessageJSON(t *testing.T, m agent.Message) {
	t.Helper()
	want, werr := json.Marshal(m)
	got, gerr := appendMessageJSON([]byte("prefix"), &m)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("json.Marshal error %v, appendMessageJSON error %v", werr, gerr)
	}
	if werr == nil && !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("appendMessageJSON:\n%s\njson.Marshal:\n%s", got[len("prefix"):], want)
	}
}

// TestMessageJSONAsMarshal: every message of every normalizer's golden
// files, and messages with every field set and every kind of character,
// are written as json.Marshal writes them.
func TestMessageJSONAsMarshal(t *testing.T) {
	files, err := filepath.Glob("../agent/*/testdata/golden/*.jsonl")
	more, _ := filepath.Glob("../agent/*/testdata/TestGolden/*")
	files = append(files, more...)
	if err != nil || len(files) < 50 {
		t.Fatalf("golden files: %d, %v", len(files), err)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var ev agent.Event
			if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Message == nil {
				continue
			}
			checkMessageJSON(t, *ev.Message)
			n++
		}
	}
	t.Logf("%d messages of %d golden files", n, len(files))
	if n < 500 {
		t.Fatalf("only %d messages in the golden files", n)
	}
	odd := "a\"b\\c\b\f\n\r\t\x00\x01\x1f\x7f<>&é€𝄞\u2028\u2029\xff\xc3(end"
	full := agent.Message{ID: odd, Role: agent.RoleAssistant, Timestamp: "2026-11-29T13:00:00Z",
		Cost: &agent.CostInfo{}, Usage: &agent.TokenUsage{}, Model: odd, ParentToolUseID: "p", IsSynthetic: true, IsError: true,
		Result: odd, DurationMs: -7, TotalCost: &agent.CostInfo{}, ModelUsage: map[string]agent.ModelUsage{"m<": {}},
		Metadata: map[string]any{"b": 1.5, "a": []any{odd, nil, true}},
		Parts: []agent.Part{{Type: agent.PartToolUse, Text: odd, Path: odd, Content: json.RawMessage(` { "x" : "<a&b>\u2028" , "y":[1, 2] } `),
			Mime: "m", ToolID: "t", ToolName: "n", Input: json.RawMessage(`"\u003c"`), Kind: "edit", State: "completed", IsError: true,
			Title: odd, Attachments: []json.RawMessage{json.RawMessage(`{"a": 1}`)}, StructuredResult: &agent.StructuredResult{},
			Trigger: "auto", PreTokens: 3, Subtype: odd, Status: odd}, {}}}
	checkMessageJSON(t, full)
	total := 0.25
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, 1.5e-300, 1e20, 1e21, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		full.Cost, full.TotalCost = &agent.CostInfo{CostUSD: f, TotalCostUSD: &total}, &agent.CostInfo{CostUSD: -f}
		full.Usage = &agent.TokenUsage{InputTokens: 1, OutputTokens: -2, CacheReadTokens: 3, CacheCreationTokens: 4, ReasoningTokens: 5}
		full.Metadata = map[string]any{"f": f, "i": 7, "i64": int64(-8), "nil": nil, "t": true, "s": odd, "<k>": []any{f, "x", map[string]any{"z": 1.0, "a": nil}},
			"m": map[string]any{}, "l": []any{}, "nm": map[string]any(nil), "nl": []any(nil), "struct": agent.TokenUsage{InputTokens: 3}, "raw": json.RawMessage(`{"a" : 1}`)}
		checkMessageJSON(t, full)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		full.Cost = &agent.CostInfo{CostUSD: f}
		checkMessageJSON(t, full) // both fail
		full.Cost, full.Metadata = nil, map[string]any{"f": []any{f}}
		checkMessageJSON(t, full)
	}
	checkMessageJSON(t, agent.Message{})
	checkMessageJSON(t, agent.Message{Parts: []agent.Part{}})
	bad := full
	bad.Parts = []agent.Part{{Type: agent.PartToolUse, Input: json.RawMessage(`{"x":`)}}
	checkMessageJSON(t, bad) // both fail
	for c := range 256 {
		checkMessageJSON(t, agent.Message{ID: string([]byte{byte(c)}), Parts: []agent.Part{{Text: string([]byte{'x', byte(c), 'y'})}}})
	}
}

// FuzzMessageJSON: for any strings and raw values, appendMessageJSON
// writes what json.Marshal writes.
func FuzzMessageJSON(f *testing.F) {
	f.Add("hello", "a\nb<c>", []byte(`{"a": [1, "x"]}`), int64(3), 0.5)
	f.Add("\xff\u2028", "\x00", []byte(`not json`), int64(-1), 1e-9)
	f.Fuzz(func(t *testing.T, s1, s2 string, raw []byte, n int64, fl float64) {
		checkMessageJSON(t, agent.Message{ID: s1, Role: agent.Role(s2), Timestamp: s2, Model: s1, DurationMs: n,
			Cost: &agent.CostInfo{CostUSD: fl}, Usage: &agent.TokenUsage{InputTokens: n, ReasoningTokens: n},
			Metadata: map[string]any{s1: s2, s2: []any{fl, n, map[string]any{s1: fl}}},
			Parts:    []agent.Part{{Type: agent.PartType(s1), Text: s2, Input: raw, Content: raw, PreTokens: n, Title: s1}}})
	})
}

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// referenceBodySQL is migration 0070's text of a message (before the Go
// functions): what jc_search_body must give.
const referenceBodySQL = `SELECT coalesce((SELECT group_concat(t, char(10)) FROM (
	SELECT CASE json_extract(p.value, '$.type')
		WHEN 'text' THEN json_extract(p.value, '$.text')
		WHEN 'reasoning' THEN json_extract(p.value, '$.text')
		WHEN 'system-status' THEN json_extract(p.value, '$.text')
		WHEN 'tool-use' THEN concat_ws(' ', json_extract(p.value, '$.toolName'),
			substr(json_extract(p.value, '$.input'), 1, 2000))
		WHEN 'tool-result' THEN concat_ws(' ', json_extract(p.value, '$.title'),
			substr(json_extract(p.value, '$.content'), 1, 2000))
		WHEN 'file' THEN json_extract(p.value, '$.path')
	END AS t
	FROM json_each(?1, '$.parts') p
	UNION ALL SELECT json_extract(?1, '$.result')
) WHERE t IS NOT NULL AND t != ''), ''),
	` + fnSearchBody + `(?1),
	?2 GLOB '*[⺀-鿿가-힯豈-﫿＀-￯]*',
	` + fnHasCJK + `(?2)`

// TestSearchBodyMatchesMigrationSQL: over generated messages of every part
// type (inputs and contents of every JSON type, multibyte and CJK text,
// values longer than 2,000 characters, empty fields), jc_search_body gives
// exactly the text migration 0070's SQL gave, and jc_has_cjk the GLOB's
// answer.
func TestSearchBodyMatchesMigrationSQL(t *testing.T) {
	db, err := openSQLite("file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	cjk := 0
	for i := range 3000 {
		data, err := json.Marshal(randomMessage(rng))
		if err != nil {
			t.Fatal(err)
		}
		var want, got string
		var wantCJK, gotCJK bool
		sample := randomText(rng)
		err = db.QueryRowContext(context.Background(), referenceBodySQL, string(data), sample).Scan(&want, &got, &wantCJK, &gotCJK)
		if err != nil {
			t.Fatalf("message %d: %v\n%s", i, err, data)
		}
		if got != want {
			t.Fatalf("message %d: jc_search_body gave\n%q\nthe migration's SQL\n%q\nfor %s", i, got, want, data)
		}
		if gotCJK != wantCJK {
			t.Fatalf("jc_has_cjk(%q) = %v, the GLOB %v", sample, gotCJK, wantCJK)
		}
		if wantCJK {
			cjk++
		}
	}
	if cjk == 0 || cjk == 3000 {
		t.Fatalf("the samples did not exercise both answers of the CJK check (%d of 3000 matched)", cjk)
	}
}

// TestSearchBodyDegradesOddFields: a field of an unexpected type drops only
// that field's text; a message that is not JSON has no text (and no error,
// which would fail the whole index statement).
func TestSearchBodyDegradesOddFields(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"parts":[{"type":"text","text":42},{"type":"text","text":"kept"}]}`, "kept"},
		{`{"parts":[{"type":"tool-use","toolName":["x"],"input":{"a":1}}],"result":"done"}`, "{\"a\":1}\ndone"},
		{`{"parts":"not a list","result":"done"}`, "done"},
		{`not json`, ""},
		{`{"parts":[{"type":"file","path":"a/b.go"}],"result":{"x":true}}`, "a/b.go\n{\"x\":true}"},
	}
	for _, c := range cases {
		if got := searchBody(c.in); got != c.want {
			t.Errorf("searchBody(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

var textPool = []string{
	"plain words", "parse_config_file foo.bar() src/app/main.go", "café naïve", "日本語のテキスト",
	"한국어 문장", "ｆｕｌｌ　ｗｉｄｔｈ", "emoji 🚀 and ⺀ radical", "quotes \" and \\ backslash",
	"<html> & tags", "tab\tand\nnewline", "", " ", "豈 compatibility",
}

func randomText(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(4) + 1 {
		b.WriteString(textPool[rng.IntN(len(textPool))])
		if rng.IntN(10) == 0 {
			b.WriteString(strings.Repeat("ñ語x", 700+rng.IntN(100)))
		}
	}
	return b.String()
}

// randomJSON is an input or a content of any JSON type.
func randomJSON(rng *rand.Rand) json.RawMessage {
	var v any
	switch rng.IntN(9) {
	case 0:
		return nil
	case 1:
		return json.RawMessage(`null`)
	case 2:
		v = rng.IntN(2) == 0
	case 3:
		v = rng.IntN(100000) - 500
	case 4:
		v = float64(rng.IntN(1000)) + 0.5
	case 5:
		v = []any{randomText(rng), map[string]any{"type": "text", "text": randomText(rng)}}
	case 6:
		v = map[string]any{"command": randomText(rng), "n": rng.IntN(9), "nested": map[string]any{"k": []int{1, 2}}}
	case 7:
		v = ""
	default:
		v = randomText(rng)
	}
	data, _ := json.Marshal(v)
	return data
}

func randomPart(rng *rand.Rand) agent.Part {
	types := []agent.PartType{agent.PartText, agent.PartReasoning, agent.PartSystemStatus, agent.PartToolUse,
		agent.PartToolResult, agent.PartFile, agent.PartCompact, "unknown-kind"}
	p := agent.Part{Type: types[rng.IntN(len(types))]}
	if rng.IntN(4) > 0 {
		p.Text = randomText(rng)
	}
	if rng.IntN(3) > 0 {
		p.ToolName = fmt.Sprintf("Tool%d", rng.IntN(5))
	}
	if rng.IntN(3) > 0 {
		p.Title = randomText(rng)
	}
	if rng.IntN(3) > 0 {
		p.Path = "src/" + randomText(rng)
	}
	p.Input, p.Content = randomJSON(rng), randomJSON(rng)
	return p
}

func randomMessage(rng *rand.Rand) agent.Message {
	m := agent.Message{ID: "m", Role: agent.RoleAssistant}
	for range rng.IntN(6) {
		m.Parts = append(m.Parts, randomPart(rng))
	}
	if rng.IntN(3) == 0 {
		m.Role, m.Result = agent.RoleResult, randomText(rng)
	}
	return m
}

// BenchmarkSearchBody prints jc_search_body's cost per message against
// decoding the same messages with encoding/json into the fields it reads,
// in the same run.
func BenchmarkSearchBody(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	var msgs [][]byte
	size := 0
	for range 500 {
		m := randomMessage(rng)
		m.Metadata = map[string]any{"session_id": "abc", "uuid": "1234-5678", "usage": map[string]any{"input_tokens": 10}}
		data, _ := json.Marshal(m)
		msgs = append(msgs, data)
		size += len(data)
	}
	type part struct {
		Type, Text, ToolName, Title, Path string
		Input, Content                    json.RawMessage
	}
	began := time.Now()
	for range 5 {
		for _, m := range msgs {
			var v struct {
				Parts  []part
				Result json.RawMessage
			}
			if err := json.Unmarshal(m, &v); err != nil {
				b.Fatal(err)
			}
		}
	}
	decode := time.Since(began) / 5
	n := 0
	for b.Loop() {
		for _, m := range msgs {
			searchBody(string(m))
		}
		n++
	}
	ours := b.Elapsed() / time.Duration(n)
	b.ReportMetric(float64(ours.Nanoseconds())/float64(len(msgs)), "ns/message")
	b.ReportMetric(float64(size)/ours.Seconds()/1e6, "MB/s")
	b.ReportMetric(float64(ours)/float64(decode), "x_encoding_json")
}

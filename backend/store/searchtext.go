package store

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"modernc.org/sqlite"
)

// The search index's text is computed in Go, by two SQL functions that
// IndexPending calls, instead of by SQLite's JSON functions: a message's
// parts walked with json_each, five to seven json_extract calls per part and
// a GLOB for CJK were about half of what indexing a flood of messages cost
// (docs/streaming.md, "Eighth pass"). The text is the same as migration
// 0070's (searchtext_test.go compares the two over generated messages).
const (
	fnSearchBody = "jc_search_body" // jc_search_body(normalizedData) → the message's searchable text
	fnHasCJK     = "jc_has_cjk"     // jc_has_cjk(text) → 1 when text holds a CJK character, else 0
)

// registerFunctions makes the functions above known to every connection the
// "sqlite" driver opens afterwards; openSQLite calls it before its first open.
var registerFunctions = sync.OnceValue(func() error {
	for _, f := range []struct {
		name string
		fn   func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error)
	}{{fnSearchBody, searchBodyFunc}, {fnHasCJK, hasCJKFunc}} {
		err := sqlite.RegisterFunction(f.name, &sqlite.FunctionImpl{NArgs: 1, Deterministic: true, Scalar: f.fn, VolatileArgs: true})
		if err != nil {
			return fmt.Errorf("store: register SQL function %s: %w", f.name, err)
		}
	}
	return nil
})

// openSQLite is sql.Open of the "sqlite" driver, with the store's SQL
// functions registered first.
func openSQLite(dsn string) (*sql.DB, error) {
	if err := registerFunctions(); err != nil {
		return nil, err
	}
	return sql.Open("sqlite", dsn)
}

// searchBodyFunc is jc_search_body. Its argument is read in place
// (VolatileArgs): searchBody returns a text of its own, built anew.
func searchBodyFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	switch v := args[0].(type) {
	case string:
		return searchBody(v), nil
	case []byte:
		return searchBody(string(v)), nil
	}
	return "", nil
}

// hasCJKFunc is jc_has_cjk.
func hasCJKFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	s, _ := args[0].(string)
	if hasCJK(s) {
		return int64(1), nil
	}
	return int64(0), nil
}

// searchBody is the searchable text of a stored message (its normalizedData):
// text, reasoning and status lines in full, a tool's name and input, a tool
// result's title and content (the first 2,000 characters of each input and
// content: outputs can be whole files), a file's path and a result's summary,
// one per line. A message that is not JSON has no text (it is still found by
// its tags); a field of an unexpected type is left out, not its part. Read
// with gjson, which walks the text once without decoding what the index does
// not need: 2.2x faster than encoding/json here (BenchmarkSearchBody).
func searchBody(data string) string {
	msg := gjson.Parse(data)
	if !msg.IsObject() || !gjson.Valid(data) {
		return ""
	}
	var b strings.Builder
	line := func(s string) {
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	var result gjson.Result
	msg.ForEach(func(k, v gjson.Result) bool {
		switch {
		case k.Str == "parts" && v.IsArray():
			v.ForEach(func(_, p gjson.Result) bool {
				line(partText(p))
				return true
			})
		case k.Str == "result":
			result = v
		}
		return true
	})
	text, _ := jsonText(result)
	line(text)
	return b.String()
}

// partText is one part's line of searchBody ("" for none).
func partText(p gjson.Result) string {
	if !p.IsObject() {
		return ""
	}
	var typ, text, toolName, title, path string
	var input, content gjson.Result
	p.ForEach(func(k, v gjson.Result) bool {
		str := ""
		if v.Type == gjson.String {
			str = v.Str
		}
		switch k.Str {
		case "type":
			typ = str
		case "text":
			text = str
		case "toolName":
			toolName = str
		case "title":
			title = str
		case "path":
			path = str
		case "input":
			input = v
		case "content":
			content = v
		}
		return true
	})
	switch typ {
	case "text", "reasoning", "system-status":
		return text
	case "tool-use":
		return joinValue(toolName, input)
	case "tool-result":
		return joinValue(title, content)
	case "file":
		return path
	}
	return ""
}

// jsonText is a JSON value as SQLite's json_extract gives it as text: a
// string unquoted, true and false as 1 and 0, a number as written, an object
// or array as its JSON text (compact, as stored); ok is false for null or no
// value (SQL's NULL).
func jsonText(v gjson.Result) (s string, ok bool) {
	switch v.Type {
	case gjson.String:
		return v.Str, true
	case gjson.True:
		return "1", true
	case gjson.False:
		return "0", true
	case gjson.Number, gjson.JSON:
		return v.Raw, true
	}
	return "", false
}

// joinValue is SQL's concat_ws(' ', a, substr(b, 1, 2000)) of a string
// field (absent when empty: the stored JSON omits empty ones) and a JSON
// value.
func joinValue(a string, b gjson.Result) string {
	v, ok := jsonText(b)
	switch {
	case !ok:
		return a
	case a == "":
		return firstRunes(v, 2000)
	}
	return a + " " + firstRunes(v, 2000)
}

// firstRunes is SQL's substr(s, 1, n): the first n characters of s.
func firstRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

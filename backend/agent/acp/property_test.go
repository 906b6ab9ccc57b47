package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// The property tests: every ACP recording, perturbed as CLIs drift between
// versions (integers written as floats, huge numbers, unknown fields,
// optional fields dropped), still yields every tool call, tool result, text
// and result the original yields.

// perturb rewrites one JSON line with f applied to every value (keys in
// order, so a run is reproducible).
func perturb(line []byte, f func(key string, v any) any) []byte {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return line
	}
	out, err := json.Marshal(walk("", v, f))
	if err != nil {
		panic(err)
	}
	// json.Marshal writes a json.Number as is, so "5.0" and "1e400" stay.
	return out
}

func walk(key string, v any, f func(string, any) any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := make(map[string]any, len(x))
		for _, k := range keys {
			if nv := walk(k, x[k], f); nv != dropped {
				m[k] = nv
			}
		}
		return f(key, m)
	case []any:
		for i := range x {
			x[i] = walk(key, x[i], f)
		}
		return f(key, x)
	}
	return f(key, v)
}

// dropped marks a field to leave out.
var dropped = &struct{}{}

// isInt reports whether v is an integer json.Number.
func isInt(v any) (json.Number, bool) {
	n, ok := v.(json.Number)
	return n, ok && !strings.ContainsAny(string(n), ".eE")
}

var perturbations = map[string]func(string, any) any{
	"ints-as-floats": func(_ string, v any) any {
		if n, ok := isInt(v); ok {
			return json.Number(string(n) + ".0")
		}
		return v
	},
	"huge-numbers": func(k string, v any) any {
		if _, ok := isInt(v); ok && k != "id" && k != "protocolVersion" {
			return json.Number("1e400")
		}
		return v
	},
	"unknown-fields": func(_ string, v any) any {
		if m, ok := v.(map[string]any); ok {
			m["x_future_field"] = map[string]any{"nested": []any{1, "two", nil}}
			m["zz_number"] = json.Number("3.5")
		}
		return v
	},
	"optional-dropped": func(_ string, v any) any {
		if m, ok := v.(map[string]any); ok {
			for _, k := range []string{"_meta", "usage", "locations", "kind", "title", "modes", "models", "annotations", "messageId", "priority", "configOptions"} {
				delete(m, k)
			}
		}
		return v
	},
}

// essentials is what must survive: tool call ids, tool results (by id),
// final texts per message, results and completions.
func essentials(evs []agent.Event) []string {
	var out []string
	texts := map[string]string{}
	var order []string
	for _, ev := range evs {
		switch ev.Type {
		case agent.EventMessage:
			m := ev.Message
			if _, ok := texts[m.ID]; !ok {
				order = append(order, m.ID)
			}
			var sb strings.Builder
			for _, p := range m.Parts {
				switch p.Type {
				case agent.PartText:
					sb.WriteString(p.Text)
				case agent.PartToolUse:
					fmt.Fprintf(&sb, "[tool %s]", p.ToolID)
				case agent.PartToolResult:
					fmt.Fprintf(&sb, "[result %s %q]", p.ToolID, p.TextContent())
				}
			}
			if m.Role == agent.RoleResult {
				fmt.Fprintf(&sb, "[result text %q]", m.Result)
			}
			texts[m.ID] = sb.String()
		case agent.EventDelta:
			texts[ev.MessageID] += "" // deltas end in a whole message at the turn's end
		case agent.EventComplete:
			out = append(out, fmt.Sprintf("complete %q interrupted=%v", ev.Result.Text, ev.Result.Interrupted))
		case agent.EventPermissionRequest:
			out = append(out, "permission "+ev.Request.ToolID)
		}
	}
	for _, id := range order {
		if strings.HasPrefix(id, "acp-unknown-") || strings.HasPrefix(id, "acp-session-") {
			continue // system lines (their text quotes the frame or the modes)
		}
		out = append(out, id+": "+texts[id])
	}
	return out
}

func TestPropertyPerturbedRecordings(t *testing.T) {
	for _, path := range recordings(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := essentials(feedAll(bytes.Split(data, []byte{'\n'})))
		for name, f := range perturbations {
			t.Run(strings.TrimSuffix(path[len("testdata/"):], ".jsonl")+"/"+name, func(t *testing.T) {
				var lines [][]byte
				for _, l := range bytes.Split(data, []byte{'\n'}) {
					if len(bytes.TrimSpace(l)) > 0 {
						lines = append(lines, perturb(l, f))
					}
				}
				evs := feedAll(lines)
				for _, ev := range evs {
					if ev.Type == agent.EventError && strings.Contains(ev.Error, "malformed") {
						t.Errorf("a parseable line became %q: %s", ev.Error, ev.Raw)
					}
				}
				got := essentials(evs)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("lost or changed:\nwant:\n%s\ngot:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
				}
			})
		}
	}
}

func feedAll(lines [][]byte) []agent.Event {
	n := NewNormalizer()
	var evs []agent.Event
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) > 0 {
			evs = append(evs, n.Feed(l)...)
		}
	}
	return append(evs, n.Flush()...)
}

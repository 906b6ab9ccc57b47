package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Drift is how a recording is changed to look like a CLI version the suite
// has never seen (the shared tools' drift.py, written in Go, plus dropped fields).
type Drift struct {
	Floats   bool // every integer becomes a float (5 → 5.5)
	Huge     bool // one number in seven becomes 1e400
	Unknown  bool // every object gains an unknown field first
	Optional bool // null and empty values and usage-like fields are dropped
}

// Drifts are the property tests' variants.
var Drifts = map[string]Drift{
	"floats":   {Floats: true},
	"huge":     {Huge: true},
	"unknown":  {Unknown: true},
	"optional": {Optional: true},
	"all":      {Floats: true, Huge: true, Unknown: true, Optional: true},
}

// optionalKeys are dropped by Drift.Optional: fields an agent may omit
// without the transcript losing a tool call, a text or a result.
var optionalKeys = map[string]bool{
	"usage": true, "stats": true, "tokens": true, "cost": true, "cost_usd": true,
	"total_cost_usd": true, "duration_ms": true, "duration_api_ms": true, "timestamp": true,
	"modelUsage": true, "model": true, "modelID": true, "providerID": true, "num_turns": true,
	"snapshot": true, "metadata": true,
}

// Apply returns frame changed by d. A frame that is not JSON is returned
// as is; key order and strings are kept.
func (d Drift) Apply(frame []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.UseNumber()
	var out bytes.Buffer
	k := 0
	if err := d.value(dec, &out, &k); err != nil {
		return frame
	}
	if dec.More() {
		return frame
	}
	return out.Bytes()
}

func (d Drift) value(dec *json.Decoder, out *bytes.Buffer, k *int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return d.object(dec, out, k)
		}
		out.WriteByte('[')
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := d.value(dec, out, k); err != nil {
				return err
			}
		}
		_, err := dec.Token()
		out.WriteByte(']')
		return err
	case json.Number:
		out.WriteString(d.number(string(v), k))
	default:
		b, _ := json.Marshal(v)
		out.Write(b)
	}
	return nil
}

func (d Drift) object(dec *json.Decoder, out *bytes.Buffer, k *int) error {
	out.WriteByte('{')
	n := 0
	if d.Unknown {
		out.WriteString(`"x_new_field":[1,{"y":null}]`)
		n++
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var val bytes.Buffer
		if err := d.value(dec, &val, k); err != nil {
			return err
		}
		if d.Optional && (optionalKeys[key] || isEmpty(val.Bytes())) {
			continue
		}
		if n > 0 {
			out.WriteByte(',')
		}
		kb, _ := json.Marshal(key)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(val.Bytes())
		n++
	}
	_, err := dec.Token()
	out.WriteByte('}')
	return err
}

func isEmpty(v []byte) bool {
	switch string(v) {
	case "null", `""`, "[]", "{}":
		return true
	}
	return false
}

func (d Drift) number(s string, k *int) string {
	if strings.ContainsAny(s, ".eE") {
		return s
	}
	*k++
	switch {
	case d.Huge && *k%7 == 0:
		return "1e400"
	case d.Floats:
		return s + ".5"
	}
	return s
}

// Survivors is what drift must never lose: tool calls, tool results, texts
// and the turns' results.
type Survivors struct {
	ToolUses    []string
	ToolResults []string
	Texts       []string
	Results     int
}

// Summarize folds evs (deltas applied) into their Survivors.
func Summarize(evs []agent.Event) Survivors {
	var s Survivors
	for _, m := range agent.Fold(evs) {
		for _, p := range m.Parts {
			switch p.Type {
			case agent.PartToolUse:
				s.ToolUses = append(s.ToolUses, p.ToolID)
			case agent.PartToolResult:
				s.ToolResults = append(s.ToolResults, p.ToolID)
			case agent.PartText:
				if p.Text != "" && m.Role != agent.RoleSystem {
					s.Texts = append(s.Texts, p.Text)
				}
			}
		}
	}
	for _, ev := range evs {
		if ev.Type == agent.EventComplete {
			s.Results++
		}
	}
	slices.Sort(s.ToolUses)
	slices.Sort(s.ToolResults)
	slices.Sort(s.Texts)
	return s
}

// FeedFrames runs frames through a fresh normalizer of f.
func FeedFrames(f agent.Format, frames [][]byte) []agent.Event {
	n := f.New()
	var evs []agent.Event
	for _, fr := range frames {
		evs = append(evs, n.Feed(fr)...)
	}
	return append(evs, n.Flush()...)
}

// ReadFrames cuts the recording at path into frames.
func ReadFrames(t testing.TB, f agent.Format, path string) [][]byte {
	t.Helper()
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var frames [][]byte
	for fr, err := range f.Split(r) {
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, fr)
	}
	return frames
}

// CheckDrift runs each recording through f as recorded and under every
// Drift: every tool call, tool result, text and result must survive, and
// no parseable frame may give a malformed-frame error.
func CheckDrift(t *testing.T, f agent.Format, paths []string) {
	for _, path := range paths {
		frames := ReadFrames(t, f, path)
		want := Summarize(FeedFrames(f, frames))
		for name, d := range Drifts {
			t.Run(fmt.Sprintf("%s/%s", baseName(path), name), func(t *testing.T) {
				drifted := make([][]byte, len(frames))
				for i, fr := range frames {
					drifted[i] = d.Apply(fr)
				}
				evs := FeedFrames(f, drifted)
				for _, ev := range evs {
					if ev.Type == agent.EventError && strings.Contains(ev.Error, "malformed") && json.Valid(ev.Raw) {
						t.Errorf("a parseable frame became an error: %s\n%s", ev.Error, ev.Raw)
					}
				}
				got := Summarize(evs)
				if d := diffSurvivors(want, got); d != "" {
					t.Errorf("lost under drift: %s", d)
				}
			})
		}
	}
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func diffSurvivors(want, got Survivors) string {
	var out []string
	for _, c := range []struct {
		name      string
		want, got []string
	}{{"tool calls", want.ToolUses, got.ToolUses}, {"tool results", want.ToolResults, got.ToolResults}, {"texts", want.Texts, got.Texts}} {
		for _, w := range c.want {
			if !slices.Contains(c.got, w) {
				out = append(out, fmt.Sprintf("%s: %.60q", c.name, w))
			}
		}
	}
	if got.Results < want.Results {
		out = append(out, fmt.Sprintf("results: %d of %d", got.Results, want.Results))
	}
	return strings.Join(out, "; ")
}

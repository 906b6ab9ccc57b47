package agent

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLenientNumbers(t *testing.T) {
	var w struct {
		A Int    `json:"a"`
		B Int    `json:"b"`
		C Int    `json:"c"`
		D Float  `json:"d"`
		E Int    `json:"e"`
		F *Int   `json:"f"`
		G Float  `json:"g"`
		S string `json:"s"`
		T int    `json:"t"`
	}
	a, err := DecodeNoting([]byte(`{"a":5,"b":1500.0,"c":1e400,"d":1e400,"e":"12","f":null,"g":0.25,"s":7,"t":3}`), &w)
	if err != nil {
		t.Fatal(err)
	}
	if w.A.V != 5 || w.B.V != 1500 || w.C.V != math.MaxInt64 || w.D.V != math.MaxFloat64 || w.E.V != 12 || w.F != nil || w.G.V != 0.25 || w.T != 3 {
		t.Errorf("values: %+v", w)
	}
	want := []string{"s: 7 where string expected", "c: 1e400 out of range", "d: 1e400 out of range", "e: a string: 12"}
	if len(a) != len(want) {
		t.Fatalf("anomalies %q, want %q", a, want)
	}
	for i := range want {
		if a[i] != want[i] {
			t.Errorf("anomaly %d = %q, want %q", i, a[i], want[i])
		}
	}
	if _, err := Decode([]byte(`{"a":`), &w); err == nil {
		t.Error("truncated JSON decoded")
	}
	b, _ := json.Marshal(w.B)
	if string(b) != "1500" {
		t.Errorf("marshal %s", b)
	}
}

func TestApplyDeltaAndTextDeltas(t *testing.T) {
	prev := &Message{ID: "m", Parts: []Part{{Type: PartText, Text: "ab"}, {Type: PartReasoning, Text: "x"}}}
	next := &Message{ID: "m", Parts: []Part{{Type: PartText, Text: "abcd"}, {Type: PartReasoning, Text: "xy"}}}
	ds, ok := TextDeltas(prev, next)
	if !ok || len(ds) != 2 || ds[0].Text != "cd" || ds[1].Field != DeltaReason {
		t.Fatalf("TextDeltas = %+v %v", ds, ok)
	}
	c := CloneMessage(prev)
	for _, d := range ds {
		if !ApplyDelta(c, d) {
			t.Fatal("not applied")
		}
	}
	if c.Parts[0].Text != "abcd" || prev.Parts[0].Text != "ab" {
		t.Errorf("applied %+v (prev %+v)", c.Parts, prev.Parts)
	}
	next.Parts[1].Type = PartText
	if _, ok := TextDeltas(prev, next); ok {
		t.Error("a changed part type is not a delta")
	}
	b, _ := json.Marshal(Delta{Field: DeltaText, Text: "hi"})
	if string(b) != `{"text":"hi"}` {
		t.Errorf("compact delta %s", b)
	}
	var d Delta
	if err := json.Unmarshal(b, &d); err != nil || d.Field != DeltaText {
		t.Errorf("read back %+v %v", d, err)
	}
}

// Every field of the wrong type is degraded and noted (not only the first),
// nested ones with their path; whole floats fill int fields.
func TestDecodeDegradesEachField(t *testing.T) {
	var w struct {
		N     int    `json:"n"`
		Name  string `json:"name"`
		Inner struct {
			Count int      `json:"count"`
			Tags  []string `json:"tags"`
		} `json:"inner"`
		List []struct {
			ID int `json:"id"`
		} `json:"list"`
	}
	a, err := Decode([]byte(`{"n":3.0,"name":{"x":1},"inner":{"count":"7","tags":["a",2,"c"]},"list":[{"id":1},{"id":"two"}]}`), &w)
	if err != nil {
		t.Fatal(err)
	}
	if w.N != 3 || w.Name != "" || w.Inner.Count != 0 || len(w.Inner.Tags) != 2 || len(w.List) != 2 || w.List[0].ID != 1 {
		t.Fatalf("decoded %+v", w)
	}
	want := []string{`name: {"x":1} where string expected`, `inner.count: "7" where int expected`,
		`inner.tags[1]: 2 where string expected`, `list[1].id: "two" where int expected`}
	if len(a) != len(want) {
		t.Fatalf("anomalies %q, want %q", a, want)
	}
	for i := range want {
		if a[i] != want[i] {
			t.Errorf("anomaly %d = %q, want %q", i, a[i], want[i])
		}
	}
}

// A field's odd value is quoted in the note cut on a rune's start: a
// string of three-byte runes where a number was expected does not make the
// note (shown in the task view, stored with the message) invalid UTF-8.
func TestOddValueNoteStaysValidUTF8(t *testing.T) {
	var w struct {
		A Int `json:"a"`
	}
	a, err := DecodeNoting([]byte(`{"a":"`+strings.Repeat("日本", 20)+`"}`), &w)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 1 || !utf8.ValidString(a[0]) || !strings.HasSuffix(a[0], "…") {
		t.Fatalf("anomalies %q: want one valid UTF-8 note, clipped", a)
	}
}

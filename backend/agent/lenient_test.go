package agent

import (
	"encoding/json"
	"math"
	"testing"
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
	want := []string{"s: number where string expected", "c: 1e400 out of range", "d: 1e400 out of range", "e: a string: 12"}
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

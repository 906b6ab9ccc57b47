package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Agent CLIs drift between versions: an integer becomes a float (Claude Code
// 2.1.197 writes retry_delay_ms as 1500.0), a number overflows (1e400), a
// field changes type. A field never loses a frame: wire types declare their
// numbers as Int or Float, which decode whatever number (or numeric string)
// comes and remember when it was not what the type says, and Decode keeps
// what it could read when another field has the wrong type. The anomalies
// go, quietly, to the message's metadata (AnomaliesKey).

// AnomaliesKey is the Message.Metadata key listing how a frame deviated
// from the wire types ("duration_ms: 1e400 out of range").
const AnomaliesKey = "anomalies"

// Int is an integer field decoded leniently: a float is rounded, a numeric
// string parsed, an out-of-range value clamped; anything else (a bool, an
// object) leaves 0. Odd says what was odd about the JSON value ("" when it
// was a plain integer or null).
type Int struct {
	V   int64
	Odd string
}

// Float is a float field decoded leniently: a numeric string is parsed, an
// out-of-range value (1e400) clamped to ±math.MaxFloat64; anything else
// leaves 0. Odd says what was odd.
type Float struct {
	V   float64
	Odd string
}

// I returns an exact Int.
func I(v int64) Int { return Int{V: v} }

// F returns an exact Float.
func F(v float64) Float { return Float{V: v} }

// UnmarshalJSON implements json.Unmarshaler; it never fails.
func (n *Int) UnmarshalJSON(b []byte) error {
	*n = Int{}
	s, quoted, ok := numberText(b)
	if !ok {
		if s != "null" {
			n.Odd = "not a number: " + clip(s)
		}
		return nil
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		n.V = v
		if quoted {
			n.Odd = "a string: " + clip(s)
		}
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		n.Odd = "not a number: " + clip(s)
	case f >= math.MaxInt64:
		n.V, n.Odd = math.MaxInt64, clip(s)+" out of range"
	case f <= math.MinInt64:
		n.V, n.Odd = math.MinInt64, clip(s)+" out of range"
	default:
		n.V = int64(math.Round(f))
		if f != math.Trunc(f) || quoted {
			n.Odd = "not an integer: " + clip(s)
		}
	}
	return nil
}

// MarshalJSON implements json.Marshaler: the value.
func (n Int) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, n.V, 10), nil }

// UnmarshalJSON implements json.Unmarshaler; it never fails.
func (n *Float) UnmarshalJSON(b []byte) error {
	*n = Float{}
	s, quoted, ok := numberText(b)
	if !ok {
		if s != "null" {
			n.Odd = "not a number: " + clip(s)
		}
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		n.V, n.Odd = math.Copysign(math.MaxFloat64, f), clip(s)+" out of range"
		if math.Abs(f) < 1 { // underflow
			n.V = 0
		}
	case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
		n.Odd = "not a number: " + clip(s)
	default:
		n.V = f
		if quoted {
			n.Odd = "a string: " + clip(s)
		}
	}
	return nil
}

// MarshalJSON implements json.Marshaler: the value.
func (n Float) MarshalJSON() ([]byte, error) { return json.Marshal(n.V) }

// numberText returns the text of a JSON number, or of a JSON string holding
// one (quoted true); ok is false for anything else (s is then the value).
func numberText(b []byte) (s string, quoted, ok bool) {
	b = bytes.TrimSpace(b)
	if len(b) > 1 && b[0] == '"' {
		var str string
		if json.Unmarshal(b, &str) != nil {
			return string(b), false, false
		}
		str = strings.TrimSpace(str)
		if str == "" {
			return `""`, false, false
		}
		return str, true, true
	}
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return string(b), false, false
	}
	return string(b), false, true
}

func clip(s string) string {
	if len(s) > 40 {
		return clipText(s, 40) + "…" // on a rune's start: the note stays valid UTF-8
	}
	return s
}

// Anomalies collects how one frame deviated from its wire types. The zero
// value is ready to use.
type Anomalies []string

// Int returns n's value, noting field when it was odd.
func (a *Anomalies) Int(field string, n Int) int64 {
	if n.Odd != "" {
		*a = append(*a, field+": "+n.Odd)
	}
	return n.V
}

// Float returns n's value, noting field when it was odd.
func (a *Anomalies) Float(field string, n Float) float64 {
	if n.Odd != "" {
		*a = append(*a, field+": "+n.Odd)
	}
	return n.V
}

// IntPtr is Int for an optional field (nil stays nil).
func (a *Anomalies) IntPtr(field string, n *Int) *int64 {
	if n == nil {
		return nil
	}
	v := a.Int(field, *n)
	return &v
}

// FloatPtr is Float for an optional field (nil stays nil).
func (a *Anomalies) FloatPtr(field string, n *Float) *float64 {
	if n == nil {
		return nil
	}
	v := a.Float(field, *n)
	return &v
}

// Note adds an anomaly.
func (a *Anomalies) Note(format string, args ...any) {
	*a = append(*a, fmt.Sprintf(format, args...))
}

// Into adds the anomalies to meta under AnomaliesKey (making meta when
// nil) and returns it; with none it returns meta unchanged.
func (a Anomalies) Into(meta map[string]any) map[string]any {
	if len(a) == 0 {
		return meta
	}
	if meta == nil {
		meta = map[string]any{}
	}
	prev, _ := meta[AnomaliesKey].([]string)
	meta[AnomaliesKey] = append(prev[:len(prev):len(prev)], a...)
	return meta
}

// Decode unmarshals data into v (a pointer) leniently: when the typed
// decode fails, v is filled field by field (decodeFields), so a value of
// another type or out of range degrades that field only and is reported as
// an anomaly with its path; an integer written as a whole float is
// converted. Only data that is not JSON, or not the JSON kind v is (an
// object for a struct), is an error.
func Decode(data []byte, v any) (Anomalies, error) {
	err := json.Unmarshal(data, v)
	var te *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) {
		return nil, err
	}
	rv := reflect.ValueOf(v).Elem()
	rv.Set(reflect.Zero(rv.Type()))
	var a Anomalies
	if !decodeFields(data, rv, "", &a) {
		return nil, err
	}
	return a, nil
}

var (
	intType   = reflect.TypeFor[Int]()
	floatType = reflect.TypeFor[Float]()
)

// DecodeNoting is Decode plus the Int and Float fields of v that were odd,
// by JSON path ("time.created: 1e400 out of range").
func DecodeNoting(data []byte, v any) (Anomalies, error) {
	a, err := Decode(data, v)
	if err != nil {
		return nil, err
	}
	oddFields(reflect.ValueOf(v), "", &a, 0)
	return a, nil
}

// oddFields walks v for odd Int and Float values.
func oddFields(v reflect.Value, path string, a *Anomalies, depth int) {
	if depth > 12 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			oddFields(v.Elem(), path, a, depth+1)
		}
	case reflect.Struct:
		switch v.Type() {
		case intType:
			a.Int(path, v.Interface().(Int))
			return
		case floatType:
			a.Float(path, v.Interface().(Float))
			return
		}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if f.Anonymous {
				name = ""
			}
			oddFields(v.Field(i), joinPath(path, name), a, depth+1)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // json.RawMessage, []byte
		}
		for i := range v.Len() {
			oddFields(v.Index(i), path, a, depth+1)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			oddFields(it.Value(), joinPath(path, fmt.Sprint(it.Key().Interface())), a, depth+1)
		}
	}
}

func joinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}

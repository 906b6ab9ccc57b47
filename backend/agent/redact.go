package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
)

// SecretSource is a Backend that passes secrets to its agents (API keys,
// tokens from the agent's settings): what its sessions write must never be
// stored or shown with those values in it.
type SecretSource interface {
	SecretValues(ctx context.Context) []string
}

// Redacted replaces a secret value in what an agent wrote.
const Redacted = "[redacted]"

// minSecretLen: shorter values ("1", "true", a port) are settings, not
// secrets, and replacing them would garble ordinary text.
const minSecretLen = 8

// Redactor removes known secret values from an agent's frames and events
// before they are stored or emitted: an agent that prints its environment,
// or echoes a key in an error, must not put it in the database.
//
// A frame is searched for each value as written and as JSON escapes it;
// events are rewritten (copied, never changed in place) only when their
// frame held a value. A value split across two frames (two deltas) is not
// seen; the normalized message that joins them is, when it is rebuilt from
// one frame.
type Redactor struct {
	plain []string
	forms [][]byte // each value as written and JSON-escaped
}

// NewRedactor returns a redactor for values (nil when none qualifies, and a
// nil *Redactor redacts nothing).
func NewRedactor(values []string) *Redactor {
	r := &Redactor{}
	for _, v := range values {
		if len(v) < minSecretLen {
			continue
		}
		r.plain = append(r.plain, v)
		r.forms = append(r.forms, []byte(v))
		if esc, _ := json.Marshal(v); string(esc[1:len(esc)-1]) != v {
			r.forms = append(r.forms, esc[1:len(esc)-1])
		}
	}
	if len(r.plain) == 0 {
		return nil
	}
	return r
}

// String returns s without the secret values.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, v := range r.plain {
		s = strings.ReplaceAll(s, v, Redacted)
	}
	return s
}

// Batches returns bs with the secret values replaced in frames and events.
func (r *Redactor) Batches(bs []Batch) []Batch {
	if r == nil {
		return bs
	}
	for i := range bs {
		if !r.inFrame(bs[i].Frame) && !r.inEvents(bs[i].Events) {
			continue
		}
		for _, f := range r.forms {
			bs[i].Frame = bytes.ReplaceAll(bs[i].Frame, f, []byte(Redacted))
		}
		evs := make([]Event, len(bs[i].Events))
		for j, ev := range bs[i].Events {
			evs[j] = r.value(reflect.ValueOf(ev)).Interface().(Event)
		}
		bs[i].Events = evs
	}
	return bs
}

func (r *Redactor) inFrame(frame []byte) bool {
	for _, f := range r.forms {
		if bytes.Contains(frame, f) {
			return true
		}
	}
	return false
}

// inEvents catches synthesized events (no frame) that carry a value.
func (r *Redactor) inEvents(evs []Event) bool {
	for _, ev := range evs {
		if ev.Type == EventError && ev.Error != "" && r.String(ev.Error) != ev.Error {
			return true
		}
	}
	return false
}

// value returns a copy of v with every string (and byte slice) redacted.
func (r *Redactor) value(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		out := reflect.New(v.Type()).Elem()
		out.SetString(r.String(v.String()))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(r.value(v.Elem()))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(r.value(v.Elem()))
		return out
	case reflect.Struct:
		return r.structValue(v)
	case reflect.Slice:
		return r.sliceValue(v)
	case reflect.Map:
		return r.mapValue(v)
	}
	return v
}

func (r *Redactor) structValue(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	out.Set(v)
	for i := 0; i < v.NumField(); i++ {
		if out.Field(i).CanSet() {
			out.Field(i).Set(r.value(v.Field(i)))
		}
	}
	return out
}

func (r *Redactor) sliceValue(v reflect.Value) reflect.Value {
	if v.IsNil() {
		return v
	}
	if v.Type().Elem().Kind() == reflect.Uint8 { // []byte, json.RawMessage
		b := v.Bytes()
		for _, f := range r.forms {
			b = bytes.ReplaceAll(b, f, []byte(Redacted))
		}
		return reflect.ValueOf(b).Convert(v.Type())
	}
	out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
	for i := 0; i < v.Len(); i++ {
		out.Index(i).Set(r.value(v.Index(i)))
	}
	return out
}

func (r *Redactor) mapValue(v reflect.Value) reflect.Value {
	if v.IsNil() {
		return v
	}
	out := reflect.MakeMapWithSize(v.Type(), v.Len())
	for it := v.MapRange(); it.Next(); {
		out.SetMapIndex(it.Key(), r.value(it.Value()))
	}
	return out
}

// Error returns err with the secret values removed from its text; errors.Is
// and errors.As still see err.
func (r *Redactor) Error(err error) error {
	if r == nil || err == nil {
		return err
	}
	if msg := r.String(err.Error()); msg != err.Error() {
		return &redactedError{msg: msg, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

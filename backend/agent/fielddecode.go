package agent

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// decodeFields fills rv from data field by field, after the typed decode
// failed: a value of another type or out of range degrades that field only
// (it keeps its zero value and is noted with its JSON path and the type it
// should have had); an integer written as a float (5.0, 1e3) is converted
// when it is whole and in range. It reports false only when data is not
// JSON of rv's overall shape (an object for a struct, an array for a slice).
func decodeFields(data []byte, rv reflect.Value, path string, a *Anomalies) bool {
	if rv.Type() == rawMessageType || rv.Kind() == reflect.Interface {
		return unmarshalOrNote(data, rv, path, a)
	}
	switch rv.Kind() {
	case reflect.Pointer:
		return decodePointer(data, rv, path, a)
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			noteField(a, path, data, rv.Type())
			return false
		}
		fillStruct(obj, rv, path, a)
		return true
	case reflect.Slice:
		return decodeSlice(data, rv, path, a)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var f float64
		if json.Unmarshal(data, &f) == nil && f == math.Trunc(f) && math.Abs(f) < 1<<62 && !rv.OverflowInt(int64(f)) {
			rv.SetInt(int64(f))
			return true
		}
	}
	return unmarshalOrNote(data, rv, path, a)
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

func unmarshalOrNote(data []byte, rv reflect.Value, path string, a *Anomalies) bool {
	if json.Unmarshal(data, rv.Addr().Interface()) != nil {
		rv.Set(reflect.Zero(rv.Type()))
		noteField(a, path, data, rv.Type())
		return false
	}
	return true
}

func decodePointer(data []byte, rv reflect.Value, path string, a *Anomalies) bool {
	if string(bytes.TrimSpace(data)) == "null" {
		return true
	}
	p := reflect.New(rv.Type().Elem())
	if json.Unmarshal(data, p.Interface()) != nil {
		p.Elem().Set(reflect.Zero(p.Elem().Type()))
		if !decodeFields(data, p.Elem(), path, a) {
			return false
		}
	}
	rv.Set(p)
	return true
}

func decodeSlice(data []byte, rv reflect.Value, path string, a *Anomalies) bool {
	var items []json.RawMessage
	if json.Unmarshal(data, &items) != nil {
		noteField(a, path, data, rv.Type())
		return false
	}
	s := reflect.MakeSlice(rv.Type(), 0, len(items))
	for i, it := range items {
		e := reflect.New(rv.Type().Elem()).Elem()
		if json.Unmarshal(it, e.Addr().Interface()) != nil {
			e.Set(reflect.Zero(e.Type()))
			if !decodeFields(it, e, path+"["+strconv.Itoa(i)+"]", a) {
				continue
			}
		}
		s = reflect.Append(s, e)
	}
	rv.Set(s)
	return true
}

// fillStruct decodes each field of rv from obj (embedded structs from the
// same object), matching names as encoding/json does.
func fillStruct(obj map[string]json.RawMessage, rv reflect.Value, path string, a *Anomalies) {
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			fillStruct(obj, rv.Field(i), path, a)
			continue
		}
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
		raw, ok := fieldValue(obj, name)
		if !ok {
			continue
		}
		fv := rv.Field(i)
		if json.Unmarshal(raw, fv.Addr().Interface()) != nil {
			fv.Set(reflect.Zero(fv.Type()))
			decodeFields(raw, fv, joinPath(path, name), a)
		}
	}
}

// fieldValue finds name in obj, exactly or case-insensitively.
func fieldValue(obj map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	if raw, ok := obj[name]; ok {
		return raw, true
	}
	for k, v := range obj {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// noteField notes an unreadable field: "retry.delay: \"soon\" where int64 expected".
func noteField(a *Anomalies, path string, data []byte, want reflect.Type) {
	if a == nil {
		return
	}
	a.Note("%s: %s where %s expected", path, clip(string(bytes.TrimSpace(data))), want)
}

package acp

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
)

// decode unmarshals data into v (a pointer) field by field when the typed
// decode fails: a value of another type or out of range degrades that field
// only (it keeps its zero value and is noted in *notes, with its path); an
// integer written as a float (5.0, 1e3) is converted when it is whole and in
// range. It reports false only when data is not JSON of v's overall shape
// (an object for a struct, an array for a slice).
func decode(data []byte, v any, notes *[]string) bool {
	if json.Unmarshal(data, v) == nil {
		return true
	}
	rv := reflect.ValueOf(v).Elem()
	rv.Set(reflect.Zero(rv.Type()))
	return decodeValue(data, rv, rv.Type().Name(), notes)
}

func note(notes *[]string, path string, data []byte) {
	if notes == nil {
		return
	}
	const max = 40
	if len(data) > max {
		data = append(bytes.Clone(data[:max]), "…"...)
	}
	*notes = append(*notes, path+": "+string(data))
}

var rawType = reflect.TypeOf(json.RawMessage(nil))

func decodeValue(data []byte, rv reflect.Value, path string, notes *[]string) bool {
	if rv.Type() == rawType || rv.Kind() == reflect.Interface {
		if json.Unmarshal(data, rv.Addr().Interface()) != nil {
			note(notes, path, data)
			return false
		}
		return true
	}
	switch rv.Kind() {
	case reflect.Pointer:
		if t := bytes.TrimSpace(data); string(t) == "null" {
			return true
		}
		p := reflect.New(rv.Type().Elem())
		if json.Unmarshal(data, p.Interface()) != nil {
			p.Elem().Set(reflect.Zero(p.Elem().Type()))
			if !decodeValue(data, p.Elem(), path, notes) {
				return false
			}
		}
		rv.Set(p)
		return true
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			note(notes, path, data)
			return false
		}
		fillStruct(obj, rv, path, notes)
		return true
	case reflect.Slice:
		var items []json.RawMessage
		if json.Unmarshal(data, &items) != nil {
			note(notes, path, data)
			return false
		}
		s := reflect.MakeSlice(rv.Type(), 0, len(items))
		for i, it := range items {
			e := reflect.New(rv.Type().Elem()).Elem()
			if json.Unmarshal(it, e.Addr().Interface()) != nil {
				e.Set(reflect.Zero(e.Type()))
				if !decodeValue(it, e, path+"["+itoa(i)+"]", notes) {
					continue
				}
			}
			s = reflect.Append(s, e)
		}
		rv.Set(s)
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var f float64
		if json.Unmarshal(data, &f) == nil && f == math.Trunc(f) && !rv.OverflowInt(int64(f)) && math.Abs(f) < 1<<62 {
			rv.SetInt(int64(f))
			return true
		}
	case reflect.Float32, reflect.Float64:
		// out of range (1e400): the field stays zero
	}
	if json.Unmarshal(data, rv.Addr().Interface()) != nil {
		rv.Set(reflect.Zero(rv.Type()))
		note(notes, path, data)
		return false
	}
	return true
}

// fillStruct decodes each field of rv from obj, embedded structs from the
// same object.
func fillStruct(obj map[string]json.RawMessage, rv reflect.Value, path string, notes *[]string) {
	rt := rv.Type()
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			fillStruct(obj, rv.Field(i), path, notes)
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
		raw, ok := obj[name]
		if !ok {
			for k, v := range obj {
				if strings.EqualFold(k, name) {
					raw, ok = v, true
					break
				}
			}
		}
		if !ok {
			continue
		}
		fv := rv.Field(i)
		if json.Unmarshal(raw, fv.Addr().Interface()) != nil {
			fv.Set(reflect.Zero(fv.Type()))
			decodeValue(raw, fv, path+"."+name, notes)
		}
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

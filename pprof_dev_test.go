//go:build dev

package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// sink keeps the test's allocation alive across the collection.
var sink []byte

func TestServeMemReadsTheRuntimesFigures(t *testing.T) {
	sink = make([]byte, 8<<20)
	runtime.GC()
	rec := httptest.NewRecorder()
	serveMem(rec, httptest.NewRequest(http.MethodGet, MemPath, nil))
	var m memFigures
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("%v: %s", err, rec.Body.String())
	}
	if m.Live < 8<<20 || m.Objects < m.Live/2 || m.Total < m.Objects || m.GCs == 0 || m.Goroutines == 0 {
		t.Fatalf("figures %+v: want the live 8 MB, a collection and goroutines", m)
	}
	sink = nil
}

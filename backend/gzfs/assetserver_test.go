package gzfs_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/assetserver"
	aso "github.com/wailsapp/wails/v2/pkg/options/assetserver"

	"github.com/jean-claude/jean-claude/backend/gzfs"
)

// TestWailsAssetServer: Wails' asset handler finds index.html in the plain
// view and serves each file inflated, with its type and length.
func TestWailsAssetServer(t *testing.T) {
	h, err := assetserver.NewAssetHandler(aso.Options{Assets: gzfs.New(tree(t))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][2]string{
		"/":                {"<!doctype html><p>hello</p>", "text/html"},
		"/assets/index.js": {"console.log(1)", "javascript"},
		"/assets/a.css":    {"p{}", "text/css"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 || rec.Body.String() != want[0] || !strings.Contains(rec.Header().Get("Content-Type"), want[1]) {
			t.Errorf("GET %s: %d %q %q", path, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/assets/nope.js", nil))
	if rec.Code != 404 {
		t.Errorf("GET a missing file: %d", rec.Code)
	}
}

package bootpage

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

const page = `<html><body><div id="jc-boot"></div><script id="jc-snapshot" type="application/json">{}</script></body></html>`

func serveWith(t *testing.T, path string, list func(context.Context) ([]store.Project, error)) *httptest.ResponseRecorder {
	t.Helper()
	return serveSources(t, path, Sources{Projects: list})
}

func serveSources(t *testing.T, path string, src Sources) *httptest.ResponseRecorder {
	t.Helper()
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(page))
	})
	rec := httptest.NewRecorder()
	Middleware(src)(next).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

func TestSnapshotInlinesProjects(t *testing.T) {
	list := func(context.Context) ([]store.Project, error) {
		return []store.Project{{Name: "alpha"}, {Name: `</script><b>x`}}, nil
	}
	rec := serveWith(t, "/", list)
	body := rec.Body.String()
	if !strings.Contains(body, `{"projects":[{"name":"alpha"},{"name":"\u003c/script\u003e\u003cb\u003ex"}]}`) {
		t.Fatalf("snapshot not inlined (or not escaped): %s", body)
	}
	if strings.Count(body, "</script>") != 1 {
		t.Fatalf("a project name closed the script element: %s", body)
	}
	if got := rec.Header().Get("Content-Type"); got != "text/html" {
		t.Fatalf("content type %q", got)
	}
}

func TestSnapshotLeavesOtherRequestsAndFailures(t *testing.T) {
	called := false
	list := func(context.Context) ([]store.Project, error) { called = true; return nil, errors.New("db gone") }
	if body := serveWith(t, "/assets/x.js", list).Body.String(); body != page || called {
		t.Fatalf("an asset request was rewritten: %s", body)
	}
	if body := serveWith(t, "/index.html", list).Body.String(); !strings.Contains(body, `{"projects":[]}`) {
		t.Fatalf("a failed list should inline an empty snapshot: %s", body)
	}
}

func TestSnapshotInlinesAgents(t *testing.T) {
	none := func(context.Context) ([]store.Project, error) { return nil, nil }
	agents := func(context.Context) (any, error) {
		return []map[string]string{{"backend": "claude-code", "notes": "</script>"}}, nil
	}
	body := serveSources(t, "/", Sources{Projects: none, Agents: agents}).Body.String()
	if !strings.Contains(body, `{"projects":[],"agents":[{"backend":"claude-code","notes":"\u003c/script\u003e"}]}`) {
		t.Fatalf("agents not inlined (or not escaped): %s", body)
	}
	failing := func(context.Context) (any, error) { return nil, errors.New("settings gone") }
	body = serveSources(t, "/", Sources{Projects: none, Agents: failing}).Body.String()
	if !strings.Contains(body, `>{"projects":[]}</script>`) {
		t.Fatalf("a failed read should leave the agents out: %s", body)
	}
}

func TestSnapshotReloadGetsAFreshPage(t *testing.T) {
	modified := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "index.html", modified, strings.NewReader(page)) // as the Wails asset handler
	})
	agents := func(context.Context) (any, error) { return []string{"claude-code"}, nil }
	none := func(context.Context) ([]store.Project, error) { return nil, nil }
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("If-Modified-Since", modified.Add(time.Hour).Format(http.TimeFormat))
	rec := httptest.NewRecorder()
	Middleware(Sources{Projects: none, Agents: agents})(next).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"agents":["claude-code"]`) {
		t.Fatalf("a reload got %d %q, want the page with the current snapshot", rec.Code, rec.Body.String())
	}
	if rec.Header().Get("Last-Modified") != "" || rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("the page may be cached: %v", rec.Header())
	}
}

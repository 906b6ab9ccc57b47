// Package bootpage inlines the last known project list into index.html
// (issue 20), so the window's boot shell paints it before the bundle runs,
// and the Agents page's last known state (issue 14), so its first visit
// paints without a round trip.
package bootpage

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// snapshotSlot is the empty snapshot frontend/index.html carries; the boot
// shell there paints the projects it finds in it before the bundle runs.
var snapshotSlot = []byte(`<script id="jc-snapshot" type="application/json">{}</script>`)

// snapshotMax bounds the projects inlined into the page.
const snapshotMax = 200

type bootSnapshot struct {
	Projects []bootProject `json:"projects"`
	// Agents is what AgentService.LastKnown returns (secrets masked);
	// absent when there is nothing or it could not be read.
	Agents any `json:"agents,omitempty"`
}

// Sources are what the snapshot is made of. Agents may be nil.
type Sources struct {
	Projects func(context.Context) ([]store.Project, error)
	Agents   func(context.Context) (any, error)
}

type bootProject struct {
	Name string `json:"name"`
}

// Middleware fills the boot snapshot of index.html with the last known
// project list (issue 20: the window shows the shell at once) and the
// Agents page's last known state. Any other request, and any failure, goes
// through unchanged. It is a Wails assetserver.Middleware.
func Middleware(src Sources) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || (r.URL.Path != "/" && r.URL.Path != "/index.html") {
				next.ServeHTTP(w, r)
				return
			}
			rec := &bufferedResponse{header: http.Header{}, code: http.StatusOK}
			next.ServeHTTP(rec, unconditional(r))
			body := rec.body.Bytes()
			if rec.code == http.StatusOK && bytes.Contains(body, snapshotSlot) {
				body = bytes.Replace(body, snapshotSlot, snapshotScript(r.Context(), src), 1)
				rec.header.Set("Content-Length", strconv.Itoa(len(body)))
				// The page changes with the data: never a 304 or a cached copy.
				rec.header.Del("Last-Modified")
				rec.header.Del("ETag")
				rec.header.Set("Cache-Control", "no-store")
			}
			for k, v := range rec.header {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.code)
			_, _ = w.Write(body)
		})
	}
}

// unconditional drops a request's validators: the file under the page has
// not changed, but the snapshot in it may have (a reload must not get a
// 304 and keep the snapshot of the first load).
func unconditional(r *http.Request) *http.Request {
	r = r.Clone(r.Context())
	for _, h := range []string{"If-Modified-Since", "If-None-Match", "If-Range", "If-Match", "If-Unmodified-Since"} {
		r.Header.Del(h)
	}
	return r
}

// snapshotScript renders the snapshot element; json.Marshal escapes <, >
// and &, so a project name cannot end the script element.
func snapshotScript(ctx context.Context, src Sources) []byte {
	ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	snap := bootSnapshot{Projects: []bootProject{}}
	if ps, err := src.Projects(ctx); err == nil {
		for i, p := range ps {
			if i == snapshotMax {
				break
			}
			snap.Projects = append(snap.Projects, bootProject{Name: p.Name})
		}
	}
	if src.Agents != nil {
		if a, err := src.Agents(ctx); err == nil {
			snap.Agents = a
		}
	}
	b, err := json.Marshal(snap)
	if err != nil {
		return snapshotSlot
	}
	out := []byte(`<script id="jc-snapshot" type="application/json">`)
	out = append(out, b...)
	return append(out, "</script>"...)
}

// bufferedResponse records a response so it can be rewritten.
type bufferedResponse struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) WriteHeader(code int)        { b.code = code }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }

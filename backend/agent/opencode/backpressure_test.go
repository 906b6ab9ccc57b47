package opencode

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// floodServer is an OpenCode server whose event stream writes n 1 KiB
// part deltas of session ses_flood as fast as the client reads them, and
// counts the frames written.
type floodServer struct {
	n       int
	written atomic.Int64
}

func (f *floodServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/session" && r.Method == http.MethodPost:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"ses_flood","title":"flood"}`))
	case r.URL.Path == "/event":
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		pad := strings.Repeat("x", 1000)
		for i := range f.n {
			_, err := fmt.Fprintf(w, `data: {"type":"message.part.delta","properties":{"sessionID":"ses_flood","messageID":"msg_1","partID":"prt_1","field":"text","delta":"%d %s"}}`+"\n\n", i, pad)
			if err != nil {
				return
			}
			fl.Flush()
			f.written.Add(1)
		}
		<-r.Context().Done()
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}
}

// TestSSEBackpressure: the SSE session reader is on the shared runtime's
// stream: while nobody takes the session's events, it stops reading the
// response (the server's writes block) instead of queueing without bound;
// once they are taken, every frame arrives, in order.
func TestSSEBackpressure(t *testing.T) {
	const frames = 20_000 // 20 MB offered
	f := &floodServer{n: frames}
	ts := httptest.NewServer(f)
	defer ts.Close()
	b := New(Options{BaseURL: ts.URL, ConnectTimeout: 5 * time.Second})
	defer b.Dispose(context.Background())
	s, err := b.Start(context.Background(), agent.Config{Cwd: "/p"}, "")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // nobody reads Events meanwhile
	held := f.written.Load()
	// Queued: agent.MaxQueuedFrames + the Events buffer; the rest of what
	// was written sits in the loopback socket buffers and the HTTP
	// client's reader (a few MB).
	const bound = 10_000
	t.Logf("frames written while the consumer did not read: %d of %d (bound %d)", held, frames, bound)
	if held >= bound {
		t.Fatalf("the reader kept reading (%d frames) while nothing was taken", held)
	}
	next := 0
	for next < frames {
		select {
		case bt, ok := <-s.Events():
			if !ok {
				t.Fatalf("events closed after %d frames", next)
			}
			if bt.Frame == nil {
				continue
			}
			var env struct {
				Properties struct {
					Delta string `json:"delta"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(bt.Frame, &env); err != nil {
				continue // session.created, synthesized first
			}
			var i int
			if _, err := fmt.Sscanf(env.Properties.Delta, "%d ", &i); err != nil {
				continue
			}
			if i != next {
				t.Fatalf("frame %d arrived when %d was expected", i, next)
			}
			next++
		case <-time.After(20 * time.Second):
			t.Fatalf("only %d frames of %d arrived", next, frames)
		}
	}
	go func() {
		for range s.Events() {
		}
	}()
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// FuzzNormalize feeds arbitrary frames (seeded with every recorded frame
// and mutations of whole recordings) and checks the invariants: no panic,
// every message event has an id and a Raw that rebuilds it, a malformed
// frame is a non-fatal error event carrying the frame.
func FuzzNormalize(f *testing.F) {
	paths, _ := filepath.Glob("testdata/serve-*.sse")
	runs, _ := filepath.Glob("testdata/run-*.jsonl")
	for _, p := range append(paths, runs...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var frames [][]byte
		for fr, err := range Frames(bytes.NewReader(data)) {
			if err != nil {
				f.Fatal(err)
			}
			frames = append(frames, fr)
		}
		for i, fr := range frames {
			if i%7 == 0 {
				f.Add(fr)
			}
		}
		f.Add(bytes.Join(frames, []byte("\n")))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := NewNormalizer()
		var evs []agent.Event
		for _, fr := range bytes.Split(data, []byte("\n")) {
			if len(fr) == 0 {
				continue
			}
			got := n.Feed(fr)
			if !json.Valid(fr) {
				if len(got) != 1 || got[0].Type != agent.EventError || got[0].Fatal || !bytes.Equal(got[0].Raw, fr) {
					t.Fatalf("malformed %q gave %+v", fr, got)
				}
			}
			evs = append(evs, got...)
		}
		evs = append(evs, n.Flush()...)
		for _, ev := range evs {
			if _, err := json.Marshal(ev); err != nil {
				t.Fatalf("event does not marshal: %v", err)
			}
			if ev.Type != agent.EventMessage {
				continue
			}
			if ev.Message == nil || ev.Message.ID == "" || len(ev.Raw) == 0 {
				t.Fatalf("message event without id or raw: %+v", ev)
			}
			if !rebuilds(ev) {
				t.Fatalf("Raw of %s does not rebuild it:\n%s", ev.Message.ID, ev.Raw)
			}
		}
	})
}

// rebuilds reports whether ev.Raw, fed to a fresh normalizer, ends with the
// same message.
func rebuilds(ev agent.Event) bool {
	n := NewNormalizer()
	var last *agent.Message
	for _, fr := range bytes.Split(ev.Raw, []byte("\n")) {
		for _, re := range n.Feed(fr) {
			if re.Type == agent.EventMessage && re.Message.ID == ev.Message.ID {
				last = re.Message
			}
		}
	}
	for _, re := range n.Flush() {
		if re.Type == agent.EventMessage && re.Message.ID == ev.Message.ID {
			last = re.Message
		}
	}
	a, _ := json.Marshal(last)
	b, _ := json.Marshal(ev.Message)
	return last != nil && (reflect.DeepEqual(a, b))
}

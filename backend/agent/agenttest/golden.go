package agenttest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// NormalizeFile runs the recording at path through a fresh normalizer of f.
func NormalizeFile(t testing.TB, path string, f agent.Format) []agent.Event {
	t.Helper()
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var evs []agent.Event
	for ev, err := range agent.Normalize(f, r) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// Render is the golden form of events: one JSON object a line, as
// `jean-claude normalize` prints them.
func Render(t testing.TB, evs []agent.Event) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, ev := range evs {
		line, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// CheckGolden compares got with the golden file, first rewriting it when
// update is set (the packages' -update flag).
func CheckGolden(t testing.TB, golden string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("events differ (-want +got):\n%s", d)
	}
}

// CheckRebuildFromRaw checks the contract on agent.Event.Raw: the raw frames
// of each message's last version, followed by those of the deltas after it,
// fed to a fresh normalizer of f, give the same message (deltas applied) with
// the same id. It returns how many messages it checked.
func CheckRebuildFromRaw(t testing.TB, f agent.Format, evs []agent.Event) int {
	t.Helper()
	raws := map[string][][]byte{}
	for _, ev := range evs {
		switch {
		case ev.Type == agent.EventMessage:
			raws[ev.Message.ID] = [][]byte{ev.Raw}
		case ev.Type == agent.EventDelta && len(ev.Raw) > 0:
			raws[ev.MessageID] = append(raws[ev.MessageID], ev.Raw)
		}
	}
	live := map[string]agent.Message{}
	for _, m := range agent.Fold(evs) {
		live[m.ID] = m
	}
	for id, raw := range raws {
		var got []agent.Event
		for e := range agent.Normalize(f, bytes.NewReader(bytes.Join(raw, []byte("\n")))) {
			got = append(got, e)
		}
		var rebuilt *agent.Message
		for _, m := range agent.Fold(got) {
			if m.ID == id {
				rebuilt = &m
			}
		}
		want, ok := live[id]
		if !ok {
			continue // removed
		}
		if rebuilt == nil {
			t.Errorf("message %s: not rebuilt from its raw frames", id)
			continue
		}
		if d := cmp.Diff(&want, rebuilt); d != "" {
			t.Errorf("message %s rebuilt differently (-live +rebuilt):\n%s", id, d)
		}
	}
	return len(raws)
}

// Recordings finds the recordings under testdata: each glob pattern with
// the format its files are in. It fails tb when there are none.
func Recordings(tb testing.TB, patterns map[string]agent.Format) map[string]agent.Format {
	tb.Helper()
	out := map[string]agent.Format{}
	for pattern, f := range patterns {
		files, err := filepath.Glob(filepath.Join("testdata", pattern))
		if err != nil {
			tb.Fatal(err)
		}
		for _, p := range files {
			out[p] = f
		}
	}
	if len(out) == 0 {
		tb.Fatal("no recordings")
	}
	return out
}

// CheckGoldens compares each recording's normalized events with
// testdata/TestGolden/<name>.golden (<name> without .jsonl or .json);
// update rewrites them.
func CheckGoldens(t *testing.T, recs map[string]agent.Format, update bool) {
	for path, f := range recs {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			golden := filepath.Join("testdata", "TestGolden", strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")+".golden")
			CheckGolden(t, golden, Render(t, NormalizeFile(t, path, f)), update)
		})
	}
}

// CheckRebuildsFromRaw: in every recording, a message's Raw fed to a fresh
// normalizer gives the same message, same id.
func CheckRebuildsFromRaw(t *testing.T, recs map[string]agent.Format) {
	for path, f := range recs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			CheckRebuildFromRaw(t, f, NormalizeFile(t, path, f))
		})
	}
}

// CheckRebuiltAs checks that raw, rebuilt by agent.Rebuild, gives the
// message stored as JSON in the file at path (its id is the one rebuilt),
// compared as stored and read back.
func CheckRebuiltAs(t *testing.T, f agent.Format, raw []byte, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want agent.Message
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	got, err := agent.Rebuild(f, raw, want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b, err = json.Marshal(got); err != nil {
		t.Fatal(err)
	}
	got = agent.Message{}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s rebuilt differently (-want +got):\n%s", want.ID, d)
	}
}

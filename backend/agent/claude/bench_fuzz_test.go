package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// largestRecording returns the lines of the biggest stdout recording.
func largestRecording(b testing.TB) (string, [][]byte, int) {
	var best string
	var size int64
	for _, p := range recordings(b) {
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		if st.Size() > size {
			best, size = p, st.Size()
		}
	}
	data, err := os.ReadFile(best)
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for l, err := range agent.Lines(bytes.NewReader(data)) {
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, l)
	}
	return filepath.Base(best), lines, len(data)
}

// BenchmarkNormalize normalizes the largest recording (bidi_interrupt:
// stream events, two system/init lines, three turns' messages).
func BenchmarkNormalize(b *testing.B) {
	name, lines, size := largestRecording(b)
	b.Logf("%s: %d lines, %d bytes", name, len(lines), size)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	msgs := 0
	for b.Loop() {
		n := NewNormalizer()
		for _, l := range lines {
			for _, ev := range n.Feed(l) {
				if ev.Type == agent.EventMessage {
					msgs++
				}
			}
		}
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkNormalizeMessages normalizes only the lines that become
// messages (no hidden lines): the worst case per byte.
func BenchmarkNormalizeMessages(b *testing.B) {
	var lines [][]byte
	size := 0
	for _, p := range recordings(b) {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for l := range agent.Lines(bytes.NewReader(data)) {
			h, _ := scanHead(l)
			switch string(h.typ) {
			case "assistant", "user", "result":
				lines = append(lines, l)
				size += len(l) + 1
			}
		}
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	msgs := 0
	for b.Loop() {
		n := NewNormalizer()
		for _, l := range lines {
			for _, ev := range n.Feed(l) {
				if ev.Type == agent.EventMessage {
					msgs++
				}
			}
		}
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}

// FuzzNormalize feeds arbitrary lines (seeded with every recorded line)
// to a normalizer that has already seen a few of them: it must never
// panic, and every message event must carry its Raw.
func FuzzNormalize(f *testing.F) {
	for _, p := range recordings(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for l := range agent.Lines(bytes.NewReader(data)) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		n := NewNormalizer()
		// Two copies: the second exercises merging and dedup state.
		for _, l := range [][]byte{line, line, append(bytes.Clone(line), line...)} {
			for _, ev := range n.Feed(l) {
				switch ev.Type {
				case agent.EventMessage:
					if ev.Message == nil || ev.Message.ID == "" || len(ev.Raw) == 0 {
						t.Fatalf("bad message event %+v", ev)
					}
					if _, err := ev.MarshalJSON(); err != nil {
						t.Fatalf("marshal: %v", err)
					}
					// Its Raw rebuilds a message with the same ID.
					again := NewNormalizer()
					found := false
					for _, r := range bytes.Split(ev.Raw, []byte("\n")) {
						for _, e := range again.Feed(r) {
							found = found || (e.Type == agent.EventMessage && e.Message.ID == ev.Message.ID)
						}
					}
					if !found {
						t.Fatalf("Raw %q does not rebuild message %s", ev.Raw, ev.Message.ID)
					}
				case agent.EventError:
					if ev.Error == "" {
						t.Fatal("empty error")
					}
				}
			}
		}
		n.Flush()
	})
}

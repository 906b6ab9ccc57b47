package limits

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agents"
)

type frame struct {
	format string
	data   []byte
}

func recordedFrames(b *testing.B) ([]frame, int) {
	files, _ := filepath.Glob("testdata/recorded/*")
	var out []frame
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		format := strings.SplitN(filepath.Base(f), ".", 2)[0]
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			out = append(out, frame{format, bytes.Clone(sc.Bytes())})
			size += len(sc.Bytes())
		}
	}
	return out, size
}

// BenchmarkDetect: Detect runs on every raw frame the orchestrator stores,
// next to the normalizer. It prints MB/s and its cost relative to the
// agents' normalizers over the same frames (the recorded 429 sessions,
// where most frames are errors that pass the prefilter: the worst case),
// measured in the same run; the limit is 0.5 (Detect must cost less than
// half of normalizing), and json.Valid over them for scale.
func BenchmarkDetect(b *testing.B) {
	frames, size := recordedFrames(b)
	now := time.Now()
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range frames {
			Detect(f.format, f.data, now)
		}
	}
	b.StopTimer()
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	ratio := per / normalizeNs(b, frames, b.N)
	b.ReportMetric(ratio, "x-normalize")
	b.ReportMetric(per/validNs(frames, b.N), "x-json.Valid")
	b.ReportMetric(per/float64(len(frames)), "ns/frame")
	if b.N >= 50 && ratio > 0.5 { // the first rounds (N=1) time a cold cache
		b.Errorf("Detect costs %.2fx the normalizers over the same frames (limit 0.5)", ratio)
	}
}

// validNs is the time json.Valid takes over frames, per pass (n passes).
func validNs(frames []frame, n int) float64 {
	start := time.Now()
	for i := 0; i < n; i++ {
		for _, f := range frames {
			json.Valid(f.data)
		}
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

// normalizeNs is the time the formats' normalizers take over frames, per
// pass (n passes, a fresh normalizer per pass).
func normalizeNs(b *testing.B, frames []frame, n int) float64 {
	formats := agents.Formats()
	start := time.Now()
	for i := 0; i < n; i++ {
		norms := map[string]agent.Normalizer{}
		for _, f := range frames {
			nz, ok := norms[f.format]
			if !ok {
				fm, err := formats.Get(f.format)
				if err != nil {
					b.Fatal(err)
				}
				nz = fm.New()
				norms[f.format] = nz
			}
			nz.Feed(f.data)
		}
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

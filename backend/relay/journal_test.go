package relay

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
)

// A sender far behind the journal (an app attaching after a long time
// away: more than the read-ahead and the in-memory tail unsent) reads
// every record in order, a record longer than the read-ahead included,
// from the file and from memory alike.
func TestJournalReadFarBehind(t *testing.T) {
	j, err := openJournal(filepath.Join(t.TempDir(), "j"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	line := func(i int) []byte {
		if i == 5000 {
			return bytes.Repeat([]byte("h"), readAhead+TailBytes) // its own write, kept in no chunk
		}
		return fmt.Appendf(nil, `{"i":%d,"pad":"%s"}`, i, bytes.Repeat([]byte("x"), 180))
	}
	const n = 120000 // ~24 MiB: more than the read-ahead and the tail chunks
	for i := 1; i <= n; i += 100 {
		var recs []pendingRec
		for k := i; k < i+100; k++ {
			recs = append(recs, pendingRec{kind: recFrame, line: line(k)})
		}
		if err := j.appendBatch(recs); err != nil {
			t.Fatal(err)
		}
	}
	gen, size, _ := j.at()
	for _, mem := range []bool{false, true} {
		r := chunkReader{f: j.f, gen: gen}
		if mem {
			r.j = j
		}
		var off int64
		for i := 1; off < size; i++ {
			rec, m, err := r.read(off, size)
			if err != nil {
				t.Fatalf("mem %v: record %d at %d of %d: %v", mem, i, off, size, err)
			}
			if rec.Seq != uint64(i) || !bytes.Equal(rec.Payload, line(i)) {
				t.Fatalf("mem %v: record %d: seq %d, %d bytes", mem, i, rec.Seq, len(rec.Payload))
			}
			off += m
		}
	}
}

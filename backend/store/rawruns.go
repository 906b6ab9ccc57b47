package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
)

// Raw frame runs (migration 0130). The writer stores a task's frames in
// runs: the frames of one InsertRawFrames call that follow each other
// (consecutive seqs, one format) are one row of raw_frame_runs, up to
// maxRunFrames frames, instead of one raw_frames row each. A frame's bytes
// are kept exactly as before (gzip-compressed past GzipThreshold), one
// after the other in the run's data; the run's meta says, per frame, its
// stored length, its receivedAt as an offset from the run's receivedAt
// (the first frame's), and whether it is gzip'd:
//
//	meta = [[len, dt], [len, dt, 1], ...]
//
// JSON, so that SQL can read it too (the down migration expands the runs
// back into raw_frames rows with json_each). A lone frame is still a
// raw_frames row, as is every frame stored before the migration; readers
// (RawFrames, expandRefs, CountRawFrames, NextRawSeq) read both tables,
// in seq order.
//
// Why: per frame, a raw_frames row costs its own record, its index entry
// (taskId, seq) and its share of the statement; a run costs those once. In
// the ingest benchmark's recorded shape the raw rows were the writer's
// largest cost (docs/streaming.md, sixteenth pass).

// maxRunFrames bounds a run's frames, so a range query finds the runs
// that overlap it by their first seq (an index range).
const maxRunFrames = 256

// insertRunQuery stores one run.
const insertRunQuery = `INSERT INTO raw_frame_runs (taskId, firstSeq, lastSeq, format, receivedAt, meta, data) VALUES (?, ?, ?, ?, ?, ?, ?)`

// runLen is how many frames from the start of fs make one run: the same
// task and format, consecutive seqs, maxRunFrames at most.
func runLen(fs []RawFrame) int {
	n := 1
	for n < len(fs) && n < maxRunFrames && fs[n].TaskID == fs[0].TaskID &&
		fs[n].Format == fs[0].Format && fs[n].Seq == fs[n-1].Seq+1 {
		n++
	}
	return n
}

// runBuffer is a runner that lends a buffer to encode a run's data into,
// given back once the run is inserted (the driver copies a bound blob).
type runBuffer interface {
	takeRunBuffer() []byte
	putRunBuffer([]byte)
}

// maxKeptRunBuffer: a larger buffer (a run with a huge frame) is not kept.
const maxKeptRunBuffer = 1 << 20

// encodeRun is the meta and data of the run fs, the data encoded into buf
// when it is large enough.
func encodeRun(fs []RawFrame, buf []byte) (meta string, data []byte, err error) {
	size := 0
	for _, f := range fs {
		size += len(f.Data)
	}
	if cap(buf) >= size {
		data = buf[:0]
	} else {
		data = make([]byte, 0, size)
	}
	m := make([]byte, 0, 2+len(fs)*12)
	m = append(m, '[')
	for i, f := range fs {
		b, enc, err := encodeRaw(f.Data)
		if err != nil {
			return "", nil, fmt.Errorf("raw frame %d: %w", f.Seq, err)
		}
		if i > 0 {
			m = append(m, ',')
		}
		m = append(m, '[')
		m = strconv.AppendInt(m, int64(len(b)), 10)
		m = append(m, ',')
		m = strconv.AppendInt(m, f.ReceivedAt-fs[0].ReceivedAt, 10)
		if enc == "gzip" {
			m = append(m, ",1"...)
		}
		m = append(m, ']')
		data = append(data, b...)
	}
	return string(append(m, ']')), data, nil
}

// insertRun stores the run fs (runLen(fs) == len(fs) > 1).
func insertRun(ctx context.Context, q SQLRunner, fs []RawFrame) error {
	first, last := fs[0], fs[len(fs)-1]
	var buf []byte
	rb, lends := q.(runBuffer)
	if lends {
		buf = rb.takeRunBuffer()
	}
	meta, data, err := encodeRun(fs, buf)
	if err == nil {
		_, err = q.ExecContext(ctx, insertRunQuery, first.TaskID, first.Seq, last.Seq, first.Format, first.ReceivedAt, meta, data)
	}
	if lends && cap(data) <= maxKeptRunBuffer {
		rb.putRunBuffer(data)
	}
	if err != nil {
		return fmt.Errorf("store: insert raw frames %d..%d of task %s: %w", first.Seq, last.Seq, first.TaskID, err)
	}
	return nil
}

// runFrame is one frame's entry of a run's meta.
type runFrame struct {
	size, dt int64
	gzip     bool
}

// parseMeta reads a run's meta (the form encodeRun writes; anything else
// is an error naming where it stops making sense). Written by hand rather
// than json.Unmarshal into [][]int64 because the writer reads runs back
// (expandRefs) while it streams: for a run of 256 frames 15 µs and 8
// allocations against 84 µs and 562 (a scratch benchmark, 2026-11-29).
func parseMeta(meta string) ([]runFrame, error) {
	var out []runFrame
	i := 0
	expect := func(c byte) error {
		if i >= len(meta) || meta[i] != c {
			return fmt.Errorf("raw run meta: %q expected at byte %d", c, i)
		}
		i++
		return nil
	}
	num := func() (int64, error) {
		j := i
		if j < len(meta) && meta[j] == '-' {
			j++
		}
		for j < len(meta) && meta[j] >= '0' && meta[j] <= '9' {
			j++
		}
		n, err := strconv.ParseInt(meta[i:j], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("raw run meta: number at byte %d: %w", i, err)
		}
		i = j
		return n, nil
	}
	if err := expect('['); err != nil {
		return nil, err
	}
	for i < len(meta) && meta[i] != ']' {
		if len(out) > 0 {
			if err := expect(','); err != nil {
				return nil, err
			}
		}
		var f runFrame
		var err error
		if err = expect('['); err == nil {
			f.size, err = num()
		}
		if err == nil {
			err = expect(',')
		}
		if err == nil {
			f.dt, err = num()
		}
		if err == nil && i < len(meta) && meta[i] == ',' {
			i++
			var g int64
			g, err = num()
			f.gzip = g == 1
		}
		if err == nil {
			err = expect(']')
		}
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if err := expect(']'); err != nil {
		return nil, err
	}
	if i != len(meta) {
		return nil, fmt.Errorf("raw run meta: trailing bytes at %d", i)
	}
	return out, nil
}

// rawRow is one row of the union of raw_frames and raw_frame_runs.
type rawRow struct {
	seq, lastSeq int64 // lastSeq 0: a raw_frames row
	format       string
	enc          string
	data         []byte
	receivedAt   int64
	meta         *string
}

// rawRangeQuery reads the raw_frames rows with seq in [?2, ?3] and the runs
// that overlap it, in seq order.
var rawRangeQuery = `SELECT seq, 0, format, encoding, data, receivedAt, NULL FROM raw_frames
		WHERE taskId = ?1 AND seq BETWEEN ?2 AND ?3
	UNION ALL
	SELECT firstSeq, lastSeq, format, '', data, receivedAt, meta FROM raw_frame_runs
		WHERE taskId = ?1 AND firstSeq BETWEEN ?2 - ` + strconv.Itoa(maxRunFrames) + ` AND ?3 AND lastSeq >= ?2
	ORDER BY 1`

// rawRange yields task taskID's raw frames with seq in [lo, hi], in seq
// order, decompressed, from both tables.
func rawRange(ctx context.Context, q SQLRunner, taskID string, lo, hi int64) iter.Seq2[RawFrame, error] {
	return func(yield func(RawFrame, error) bool) {
		fail := func(err error) { yield(RawFrame{}, fmt.Errorf("store: raw frames of task %s: %w", taskID, err)) }
		rows, err := q.QueryContext(ctx, rawRangeQuery, taskID, lo, hi)
		if err != nil {
			fail(err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			var r rawRow
			if err := rows.Scan(&r.seq, &r.lastSeq, &r.format, &r.enc, &r.data, &r.receivedAt, &r.meta); err != nil {
				fail(err)
				return
			}
			for f, err := range r.frames(taskID, lo, hi) {
				if err != nil {
					fail(err)
					return
				}
				if !yield(f, nil) {
					return
				}
			}
		}
		if err := rows.Err(); err != nil {
			fail(err)
		}
	}
}

// frames yields the row's frames with seq in [lo, hi], decompressed.
func (r rawRow) frames(taskID string, lo, hi int64) iter.Seq2[RawFrame, error] {
	return func(yield func(RawFrame, error) bool) {
		if r.meta == nil {
			data, err := decodeRaw(r.data, r.enc == "gzip")
			if err != nil {
				err = fmt.Errorf("raw frame %d: %w", r.seq, err)
			}
			yield(RawFrame{TaskID: taskID, Seq: r.seq, Format: r.format, Data: data, ReceivedAt: r.receivedAt}, err)
			return
		}
		fs, err := parseMeta(*r.meta)
		if err == nil && int64(len(fs)) != r.lastSeq-r.seq+1 {
			err = fmt.Errorf("raw frames %d..%d: the run's meta names %d frames", r.seq, r.lastSeq, len(fs))
		}
		if err != nil {
			yield(RawFrame{}, err)
			return
		}
		off := int64(0)
		for k, m := range fs {
			seq := r.seq + int64(k)
			if m.size < 0 || off+m.size > int64(len(r.data)) {
				yield(RawFrame{}, fmt.Errorf("raw frame %d: its run's data is %d bytes, the frame ends at %d", seq, len(r.data), off+m.size))
				return
			}
			b := r.data[off : off+m.size : off+m.size]
			off += m.size
			if seq < lo || seq > hi {
				continue
			}
			data, err := decodeRaw(b, m.gzip)
			if err != nil {
				err = fmt.Errorf("raw frame %d: %w", seq, err)
			}
			if !yield(RawFrame{TaskID: taskID, Seq: seq, Format: r.format, Data: data, ReceivedAt: r.receivedAt + m.dt}, err) || err != nil {
				return
			}
		}
	}
}

// decodeRaw is a stored frame's bytes as received.
func decodeRaw(data []byte, gzipped bool) ([]byte, error) {
	if !gzipped {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err == nil {
		data, err = io.ReadAll(zr)
	}
	if err != nil {
		return nil, fmt.Errorf("gunzip: %w", err)
	}
	return data, nil
}

// lastRawSeq is the highest seq task taskID has stored (0: none).
func lastRawSeq(ctx context.Context, q SQLRunner, taskID string) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT max(
		coalesce((SELECT max(seq) FROM raw_frames WHERE taskId = ?1), 0),
		coalesce((SELECT lastSeq FROM raw_frame_runs WHERE taskId = ?1 ORDER BY firstSeq DESC LIMIT 1), 0))`, taskID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: last raw seq of task %s: %w", taskID, err)
	}
	return n, nil
}

// allSeqs is the whole seq range, for rawRange.
const allSeqs = math.MaxInt64

package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"iter"
	"strings"
)

// GzipThreshold: raw frames larger than this are stored gzip-compressed.
const GzipThreshold = 4 << 10

// RawFrame is one stored raw frame, decoded.
type RawFrame struct {
	TaskID     string
	Seq        int64
	Format     string
	Data       []byte
	ReceivedAt int64
}

// NextRawSeq returns the seq the next raw frame of task taskID gets.
func NextRawSeq(ctx context.Context, q SQLRunner, taskID string) (int64, error) {
	var n int64
	if err := q.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM raw_frames WHERE taskId = ?`, taskID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: next raw seq of task %s: %w", taskID, err)
	}
	return n, nil
}

// InsertRawFrame stores one raw frame exactly as received, gzip-compressed
// when larger than GzipThreshold.
func InsertRawFrame(ctx context.Context, q SQLRunner, f RawFrame) error {
	data, enc, err := encodeRaw(f.Data)
	if err != nil {
		return fmt.Errorf("store: raw frame %d of task %s: %w", f.Seq, f.TaskID, err)
	}
	_, err = q.ExecContext(ctx, `INSERT INTO raw_frames (taskId, seq, format, encoding, data, receivedAt)
		VALUES (?, ?, ?, ?, ?, ?)`, f.TaskID, f.Seq, f.Format, enc, data, f.ReceivedAt)
	if err != nil {
		return fmt.Errorf("store: insert raw frame %d of task %s: %w", f.Seq, f.TaskID, err)
	}
	return nil
}

// rawFramesPerInsert is how many rows one INSERT of InsertRawFrames takes:
// SQLite's work per row is the same, but each statement run costs its own
// bind, step and reset and database/sql's bookkeeping (a 200-byte frame
// costs ~5.3 µs alone, ~3 µs in a statement of 16 to 64 rows: measured).
const rawFramesPerInsert = 32

// InsertRawFrames stores frames in order, each exactly as received (as
// InsertRawFrame), several rows per statement: full statements of
// rawFramesPerInsert rows, the rest in statements of 16, 8, 4, 2 and 1 row,
// so that a caller with prepared statements (Prepared) prepares six at most.
func InsertRawFrames(ctx context.Context, q SQLRunner, frames []RawFrame) error {
	args := make([]any, 0, 6*min(len(frames), rawFramesPerInsert))
	return inChunks(frames, rawFramesPerInsert, func(chunk []RawFrame) error {
		args = args[:0]
		for _, f := range chunk {
			data, enc, err := encodeRaw(f.Data)
			if err != nil {
				return fmt.Errorf("store: raw frame %d of task %s: %w", f.Seq, f.TaskID, err)
			}
			args = append(args, f.TaskID, f.Seq, f.Format, enc, data, f.ReceivedAt)
		}
		if _, err := q.ExecContext(ctx, insertRawQueries[len(chunk)], args...); err != nil {
			return fmt.Errorf("store: insert raw frames %d..%d of task %s: %w", chunk[0].Seq, chunk[len(chunk)-1].Seq, chunk[0].TaskID, err)
		}
		return nil
	})
}

// insertRawQueries are the INSERTs of 1, 2, 4 … rawFramesPerInsert rows.
var insertRawQueries = multiRowQueries(`INSERT INTO raw_frames (taskId, seq, format, encoding, data, receivedAt) VALUES `,
	"(?, ?, ?, ?, ?, ?)", "", rawFramesPerInsert)

// inChunks calls fn on xs in order: chunks of max items (a power of two),
// then of max/2, … 1 for the rest, so that statements of several rows each
// come in log2(max)+1 shapes at most (a caller with prepared statements
// prepares that many). It stops at fn's first error.
func inChunks[T any](xs []T, max int, fn func([]T) error) error {
	for n := max; len(xs) > 0; n /= 2 {
		for len(xs) >= n {
			if err := fn(xs[:n]); err != nil {
				return err
			}
			xs = xs[n:]
		}
	}
	return nil
}

// multiRowQueries are head, n rows of placeholders row separated by commas,
// then tail, for n = 1, 2, 4 … max: the statements inChunks needs.
func multiRowQueries(head, row, tail string, max int) map[int]string {
	qs := map[int]string{}
	for n := 1; n <= max; n *= 2 {
		qs[n] = head + strings.TrimSuffix(strings.Repeat(row+", ", n), ", ") + tail
	}
	return qs
}

// encodeRaw is a frame's bytes as stored: gzip-compressed past
// GzipThreshold (encoding "gzip"), else as they are ("").
func encodeRaw(data []byte) ([]byte, string, error) {
	if len(data) > GzipThreshold {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		if _, err := zw.Write(data); err != nil {
			return nil, "", fmt.Errorf("gzip: %w", err)
		}
		if err := zw.Close(); err != nil {
			return nil, "", fmt.Errorf("gzip: %w", err)
		}
		return buf.Bytes(), "gzip", nil
	}
	if data == nil {
		data = []byte{}
	}
	return data, "", nil
}

// RawFrames yields the raw frames of task taskID in seq order, decompressed.
func RawFrames(ctx context.Context, q SQLRunner, taskID string) iter.Seq2[RawFrame, error] {
	return func(yield func(RawFrame, error) bool) {
		rows, err := q.QueryContext(ctx, `SELECT seq, format, encoding, data, receivedAt FROM raw_frames
			WHERE taskId = ? ORDER BY seq`, taskID)
		if err != nil {
			yield(RawFrame{}, fmt.Errorf("store: raw frames of task %s: %w", taskID, err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			f := RawFrame{TaskID: taskID}
			var enc string
			if err := rows.Scan(&f.Seq, &f.Format, &enc, &f.Data, &f.ReceivedAt); err != nil {
				yield(RawFrame{}, fmt.Errorf("store: raw frames of task %s: %w", taskID, err))
				return
			}
			if enc == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(f.Data))
				if err == nil {
					f.Data, err = io.ReadAll(zr)
				}
				if err != nil {
					yield(RawFrame{}, fmt.Errorf("store: raw frame %d of task %s: gunzip: %w", f.Seq, taskID, err))
					return
				}
			}
			if !yield(f, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(RawFrame{}, fmt.Errorf("store: raw frames of task %s: %w", taskID, err))
		}
	}
}

// CountRawFrames returns how many raw frames task taskID has.
func CountRawFrames(ctx context.Context, q SQLRunner, taskID string) (int, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM raw_frames WHERE taskId = ?`, taskID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count raw frames of task %s: %w", taskID, err)
	}
	return n, nil
}

package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
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
	n, err := lastRawSeq(ctx, q, taskID)
	return n + 1, err
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

// InsertRawFrames stores frames, each exactly as received (as
// InsertRawFrame): the frames that follow each other as one run each
// (rawruns.go), a lone frame as a raw_frames row. Frames must come after
// those the task has stored: a seq stored already is an error, as a
// raw_frames row's (taskId, seq) is unique.
func InsertRawFrames(ctx context.Context, q SQLRunner, frames []RawFrame) error {
	if len(frames) == 0 {
		return nil
	}
	if err := afterStored(ctx, q, frames); err != nil {
		return err
	}
	var lone []RawFrame
	for len(frames) > 0 {
		n := runLen(frames)
		if n == 1 {
			lone = append(lone, frames[0])
		} else if err := insertRun(ctx, q, frames[:n]); err != nil {
			return err
		}
		frames = frames[n:]
	}
	return insertRawRows(ctx, q, lone)
}

// afterStored checks that frames (of one task) come in increasing seq
// order after every seq their task has stored: a run is not checked frame
// by frame by a unique index as a raw_frames row is.
func afterStored(ctx context.Context, q SQLRunner, frames []RawFrame) error {
	first, last := frames[0], frames[len(frames)-1]
	prev, err := lastRawSeq(ctx, q, first.TaskID)
	for _, f := range frames {
		if err != nil {
			break
		}
		if f.TaskID != first.TaskID || f.Seq <= prev {
			err = fmt.Errorf("frame %d of task %s is not after seq %d", f.Seq, f.TaskID, prev)
		}
		prev = f.Seq
	}
	if err != nil {
		return fmt.Errorf("store: insert raw frames %d..%d of task %s: %w", first.Seq, last.Seq, first.TaskID, err)
	}
	return nil
}

// insertRawRows stores frames as raw_frames rows, several per statement:
// full statements of rawFramesPerInsert rows, the rest in statements of
// 16, 8, 4, 2 and 1 row, so that a caller with prepared statements
// (Prepared) prepares six at most.
func insertRawRows(ctx context.Context, q SQLRunner, frames []RawFrame) error {
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
	return rawRange(ctx, q, taskID, 0, allSeqs)
}

// CountRawFrames returns how many raw frames task taskID has.
func CountRawFrames(ctx context.Context, q SQLRunner, taskID string) (int, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM raw_frames WHERE taskId = ?1) +
		(SELECT coalesce(sum(lastSeq - firstSeq + 1), 0) FROM raw_frame_runs WHERE taskId = ?1)`, taskID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count raw frames of task %s: %w", taskID, err)
	}
	return n, nil
}

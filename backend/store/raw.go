package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"iter"
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
	data, enc := f.Data, ""
	if len(data) > GzipThreshold {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		if _, err := zw.Write(data); err != nil {
			return fmt.Errorf("store: gzip raw frame: %w", err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("store: gzip raw frame: %w", err)
		}
		data, enc = buf.Bytes(), "gzip"
	}
	if data == nil {
		data = []byte{}
	}
	_, err := q.ExecContext(ctx, `INSERT INTO raw_frames (taskId, seq, format, encoding, data, receivedAt)
		VALUES (?, ?, ?, ?, ?, ?)`, f.TaskID, f.Seq, f.Format, enc, data, f.ReceivedAt)
	if err != nil {
		return fmt.Errorf("store: insert raw frame %d of task %s: %w", f.Seq, f.TaskID, err)
	}
	return nil
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

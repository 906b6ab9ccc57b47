package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
)

// FrameRange is a range of a task's raw frame seqs, first and last
// included.
type FrameRange [2]int64

// RawRefs names raw frames of a task (migration 0125): the frames of its
// ranges in order, joined by one newline, are the bytes it stands for.
type RawRefs []FrameRange

// Add appends frame seq, extending the last range when seq follows it.
// It copies nothing shared: the result may be a new slice.
func (r RawRefs) Add(seq int64) RawRefs {
	if n := len(r); n > 0 && r[n-1][1]+1 == seq {
		out := append(RawRefs(nil), r...)
		out[n-1][1] = seq
		return out
	}
	return append(r[:len(r):len(r)], FrameRange{seq, seq})
}

// Concat is r followed by s (ranges that meet are joined).
func (r RawRefs) Concat(s RawRefs) RawRefs {
	out := append(RawRefs(nil), r...)
	for _, fr := range s {
		if n := len(out); n > 0 && out[n-1][1]+1 == fr[0] {
			out[n-1][1] = fr[1]
			continue
		}
		out = append(out, fr)
	}
	return out
}

// String is the stored form, a JSON array of [first, last] pairs.
func (r RawRefs) String() string {
	b := make([]byte, 0, 2+len(r)*16)
	b = append(b, '[')
	for i, fr := range r {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, fr[0], 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, fr[1], 10)
		b = append(b, ']')
	}
	return string(append(b, ']'))
}

// expandRefs returns the bytes refs (stored form) stand for in task taskID.
func expandRefs(ctx context.Context, q SQLRunner, taskID, refs string) ([]byte, error) {
	var rs RawRefs
	if err := json.Unmarshal([]byte(refs), &rs); err != nil {
		return nil, fmt.Errorf("store: raw refs %.40q of task %s: %w", refs, taskID, err)
	}
	var out []byte
	for _, fr := range rs {
		next := fr[0]
		for f, err := range rawRange(ctx, q, taskID, fr[0], fr[1]) {
			if err == nil && f.Seq != next {
				err = fmt.Errorf("raw frame %d is missing", next)
			}
			if err != nil {
				return nil, fmt.Errorf("store: raw frames %d-%d of task %s: %w", fr[0], fr[1], taskID, err)
			}
			if len(out) > 0 {
				out = append(out, '\n')
			}
			out = append(out, f.Data...)
			next++
		}
		if next != fr[1]+1 {
			return nil, fmt.Errorf("store: raw frame %d of task %s is missing", next, taskID)
		}
	}
	return out, nil
}

// AppendMessageRawRefs appends one chunk to message messageID's raw data
// that is prefix followed by the frames refs names (migration 0125).
func AppendMessageRawRefs(ctx context.Context, q SQLRunner, taskID, messageID string, idx int, prefix []byte, refs RawRefs) error {
	if prefix == nil {
		prefix = []byte{}
	}
	if _, err := q.ExecContext(ctx, `INSERT OR REPLACE INTO message_raw_chunks (taskId, messageId, idx, data, refs) VALUES (?, ?, ?, ?, ?)`,
		taskID, messageID, idx, prefix, refs.String()); err != nil {
		return fmt.Errorf("store: append raw of message %s of task %s: %w", messageID, taskID, err)
	}
	return nil
}

// messageRawTail appends message messageID's chunks (data, then refs
// expanded) to raw and returns it with the number of chunks.
func messageRawTail(ctx context.Context, q SQLRunner, taskID, messageID string, raw []byte) ([]byte, int, error) {
	rows, err := q.QueryContext(ctx, `SELECT data, refs FROM message_raw_chunks WHERE taskId = ? AND messageId = ? ORDER BY idx`, taskID, messageID)
	if err != nil {
		return nil, 0, fmt.Errorf("store: raw chunks of message %s: %w", messageID, err)
	}
	type chunk struct {
		data []byte
		refs sql.NullString
	}
	var cs []chunk
	for rows.Next() {
		var c chunk
		if err := rows.Scan(&c.data, &c.refs); err != nil {
			rows.Close()
			return nil, 0, fmt.Errorf("store: raw chunks of message %s: %w", messageID, err)
		}
		cs = append(cs, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("store: raw chunks of message %s: %w", messageID, err)
	}
	for _, c := range cs {
		raw = append(raw, c.data...)
		if c.refs.Valid {
			b, err := expandRefs(ctx, q, taskID, c.refs.String)
			if err != nil {
				return nil, 0, err
			}
			raw = append(raw, b...)
		}
	}
	return raw, len(cs), nil
}

// messageRawHead is a row's head raw data: rawData, or rawRefs expanded
// (nil when both are NULL).
func messageRawHead(ctx context.Context, q SQLRunner, taskID string, data, refs sql.NullString) ([]byte, error) {
	if refs.Valid {
		b, err := expandRefs(ctx, q, taskID, refs.String)
		if b == nil && err == nil {
			b = []byte{}
		}
		return b, err
	}
	if data.Valid {
		return []byte(data.String), nil
	}
	return nil, nil
}

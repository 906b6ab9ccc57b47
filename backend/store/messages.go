package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// MessageWrite is one normalized message to upsert.
type MessageWrite struct {
	TaskID  string
	Message agent.Message
	// Raw is the frames that rebuild the message (agent.Event.Raw).
	Raw []byte
	// KeepRaw leaves an existing row's rawData (and chunks) as they are:
	// the caller appended the new frames as chunks (AppendMessageRaw).
	KeepRaw bool
	// RawRefs, when not empty, is the message's head raw data by
	// reference (migration 0125): rawData becomes NULL, even with KeepRaw
	// (its chunks stay).
	RawRefs RawRefs
	Format  string
	Version int
	Now     int64
	// CreatedAt, when not 0, is the row's known createdAt (the caller saw
	// the first insert), which saves a lookup when the timestamp is stamped.
	CreatedAt int64
	// Exists says the caller knows the row exists: it is updated in place
	// (one index lookup) rather than through the insert's conflict path;
	// if it is gone after all, it is inserted.
	Exists bool
}

// StampTimestamp fills an empty message timestamp from the row's createdAt
// (milliseconds), as the store does on every write.
func StampTimestamp(m *agent.Message, createdAt int64) {
	if m.Timestamp == "" {
		m.Timestamp = time.UnixMilli(createdAt).UTC().Format(time.RFC3339Nano)
	}
}

// UpsertMessage inserts w.Message or, when the task already has a message with
// that id, replaces it in place: messageIndex and createdAt stay those of the
// first insert. An empty timestamp is stamped with createdAt. It returns the
// message as stored.
func UpsertMessage(ctx context.Context, q SQLRunner, w MessageWrite) (agent.Message, error) {
	m, _, err := UpsertMessageCreated(ctx, q, w)
	return m, err
}

// UpsertMessageCreated is UpsertMessage that also returns the row's
// createdAt when it had to know it (0 otherwise).
func UpsertMessageCreated(ctx context.Context, q SQLRunner, w MessageWrite) (agent.Message, int64, error) {
	m, created, err := stampWrite(ctx, q, w)
	if err != nil {
		return m, 0, err
	}
	data, raw, refs, keep, err := encodeWrite(m, w)
	if err != nil {
		return m, 0, err
	}
	if w.Exists {
		res, err := q.ExecContext(ctx, `UPDATE agent_messages SET role = ?, normalizedData = ?,
			rawData = CASE WHEN ? THEN rawData ELSE ? END, rawRefs = CASE WHEN ? THEN rawRefs ELSE ? END,
			rawFormat = ?, normalizedVersion = ?, updatedAt = ?
			WHERE taskId = ? AND messageId = ?`,
			string(m.Role), data, keep, raw, keep, refs, w.Format, w.Version, w.Now, w.TaskID, m.ID)
		if err != nil {
			return m, 0, fmt.Errorf("store: update message %s of task %s: %w", m.ID, w.TaskID, err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 1 {
			return m, created, nil
		}
	}
	_, err = q.ExecContext(ctx, `INSERT INTO agent_messages
		(taskId, messageId, messageIndex, role, normalizedData, rawData, rawRefs, rawFormat, normalizedVersion, createdAt, updatedAt)
		VALUES (?, ?, (SELECT coalesce(max(messageIndex), -1) + 1 FROM agent_messages WHERE taskId = ?), ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (taskId, messageId) DO UPDATE SET
			role = excluded.role, normalizedData = excluded.normalizedData,
			rawData = CASE WHEN ? THEN agent_messages.rawData ELSE excluded.rawData END,
			rawRefs = CASE WHEN ? THEN agent_messages.rawRefs ELSE excluded.rawRefs END,
			rawFormat = excluded.rawFormat, normalizedVersion = excluded.normalizedVersion, updatedAt = excluded.updatedAt`,
		w.TaskID, m.ID, w.TaskID, string(m.Role), data, raw, refs, w.Format, w.Version, w.Now, w.Now, keep, keep)
	if err != nil {
		return m, 0, fmt.Errorf("store: upsert message %s of task %s: %w", m.ID, w.TaskID, err)
	}
	return m, created, nil
}

// stampWrite is w's message as it is stored (parts never null, an empty
// timestamp stamped with the row's createdAt: w.CreatedAt, else the
// stored row's, else w.Now) and the createdAt it had to know (0 when it
// did not).
func stampWrite(ctx context.Context, q SQLRunner, w MessageWrite) (agent.Message, int64, error) {
	m := w.Message
	if m.ID == "" {
		return m, 0, fmt.Errorf("store: message of task %s without id", w.TaskID)
	}
	if m.Parts == nil {
		m.Parts = []agent.Part{}
	}
	created := w.Now
	if m.Timestamp == "" && w.CreatedAt != 0 {
		created = w.CreatedAt
		StampTimestamp(&m, created)
	}
	if m.Timestamp == "" {
		err := q.QueryRowContext(ctx, `SELECT createdAt FROM agent_messages WHERE taskId = ? AND messageId = ?`,
			w.TaskID, m.ID).Scan(&created)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return m, 0, fmt.Errorf("store: message %s of task %s: %w", m.ID, w.TaskID, err)
		}
		StampTimestamp(&m, created)
	} else if w.CreatedAt == 0 {
		created = 0
	}
	return m, created, nil
}

// encodeWrite is the row's normalizedData, rawData, rawRefs and whether an
// existing row keeps its raw data.
func encodeWrite(m agent.Message, w MessageWrite) (data string, raw, refs any, keep bool, err error) {
	b, err := appendMessageJSON(make([]byte, 0, 512), &m)
	if err != nil {
		return "", nil, nil, false, fmt.Errorf("store: encode message %s: %w", m.ID, err)
	}
	if w.Raw != nil {
		raw = string(w.Raw)
	}
	keep = w.KeepRaw
	if len(w.RawRefs) > 0 {
		raw, refs, keep = nil, w.RawRefs.String(), false
	}
	return string(b), raw, refs, keep, nil
}

// messagesPerInsert is how many rows one INSERT of InsertNewMessages takes
// (as rawFramesPerInsert: a statement run costs its own bind, step, reset
// and statement journal; a message row costs ~22 µs alone and ~15 µs in a
// statement of 8: measured, docs/streaming.md "Thirteenth pass").
const messagesPerInsert = 16

// InsertNewMessages inserts messages the caller knows are not stored yet,
// in order (their messageIndex follows the task's last, in ws's order),
// several rows per statement. Each write must know its createdAt
// (CreatedAt, or a timestamp) and rewrite its raw data (not KeepRaw). A
// row that is there after all is replaced in place, as UpsertMessage does.
func InsertNewMessages(ctx context.Context, q SQLRunner, taskID string, ws []MessageWrite) error {
	for _, w := range ws {
		if w.TaskID != taskID || w.KeepRaw || (w.CreatedAt == 0 && w.Message.Timestamp == "") {
			return fmt.Errorf("store: message %s of task %s: not a new message's write", w.Message.ID, w.TaskID)
		}
	}
	if len(ws) == 1 {
		_, _, err := UpsertMessageCreated(ctx, q, ws[0])
		return err
	}
	var last int64
	if err := q.QueryRowContext(ctx, `SELECT coalesce(max(messageIndex), -1) FROM agent_messages WHERE taskId = ?`, taskID).Scan(&last); err != nil {
		return fmt.Errorf("store: last message index of task %s: %w", taskID, err)
	}
	args := make([]any, 0, 11*min(len(ws), messagesPerInsert))
	return inChunks(ws, messagesPerInsert, func(chunk []MessageWrite) error {
		args = args[:0]
		for _, w := range chunk {
			m, _, err := stampWrite(ctx, q, w)
			if err != nil {
				return err
			}
			data, raw, refs, _, err := encodeWrite(m, w)
			if err != nil {
				return err
			}
			last++
			args = append(args, taskID, m.ID, last, string(m.Role), data, raw, refs, w.Format, w.Version, w.Now, w.Now)
		}
		if _, err := q.ExecContext(ctx, insertMessagesQueries[len(chunk)], args...); err != nil {
			return fmt.Errorf("store: insert messages %s… of task %s: %w", chunk[0].Message.ID, taskID, err)
		}
		return nil
	})
}

// insertMessagesQueries are the INSERTs of 1, 2, 4 … messagesPerInsert new
// rows (a conflict replaces the row in place, its raw data rewritten).
var insertMessagesQueries = multiRowQueries(`INSERT INTO agent_messages
		(taskId, messageId, messageIndex, role, normalizedData, rawData, rawRefs, rawFormat, normalizedVersion, createdAt, updatedAt) VALUES `,
	"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", `
		ON CONFLICT (taskId, messageId) DO UPDATE SET
			role = excluded.role, normalizedData = excluded.normalizedData, rawData = excluded.rawData,
			rawRefs = excluded.rawRefs, rawFormat = excluded.rawFormat, normalizedVersion = excluded.normalizedVersion,
			updatedAt = excluded.updatedAt`, messagesPerInsert)

// DeleteMessage removes one message of a task (message-removed).
func DeleteMessage(ctx context.Context, q SQLRunner, taskID, messageID string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM agent_messages WHERE taskId = ? AND messageId = ?`, taskID, messageID); err != nil {
		return fmt.Errorf("store: delete message %s of task %s: %w", messageID, taskID, err)
	}
	return ClearMessageRaw(ctx, q, taskID, messageID)
}

// Messages returns a task's transcript in order.
func Messages(ctx context.Context, q SQLRunner, taskID string) ([]agent.Message, error) {
	rows, err := q.QueryContext(ctx, `SELECT normalizedData FROM agent_messages WHERE taskId = ? ORDER BY messageIndex`, taskID)
	if err != nil {
		return nil, fmt.Errorf("store: messages of task %s: %w", taskID, err)
	}
	defer rows.Close()
	out := []agent.Message{}
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("store: messages of task %s: %w", taskID, err)
		}
		var m agent.Message
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return nil, fmt.Errorf("store: messages of task %s: decode: %w", taskID, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: messages of task %s: %w", taskID, err)
	}
	return out, nil
}

// StoredMessage is one agent_messages row, for re-normalization.
type StoredMessage struct {
	RowID     int64
	TaskID    string
	MessageID string
	Data      []byte // normalizedData
	Raw       []byte // rawData (nil when none)
	Format    string
	Version   int
	CreatedAt int64
}

// CountStaleMessages counts rows normalized by a version older than version.
func CountStaleMessages(ctx context.Context, q SQLRunner, version int) (int, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM agent_messages WHERE normalizedVersion < ?`, version).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count stale messages: %w", err)
	}
	return n, nil
}

// StaleMessages returns up to limit rows older than version with a row id
// above afterRowID, in row id order, each with its whole raw data (head
// and chunks, references expanded; nil when it has none).
func StaleMessages(ctx context.Context, q SQLRunner, version int, afterRowID int64, limit int) ([]StoredMessage, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, taskId, messageId, normalizedData, rawData, rawRefs,
			EXISTS (SELECT 1 FROM message_raw_chunks c WHERE c.taskId = a.taskId AND c.messageId = a.messageId),
			rawFormat, normalizedVersion, createdAt
		FROM agent_messages a WHERE normalizedVersion < ? AND id > ? ORDER BY id LIMIT ?`, version, afterRowID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: stale messages: %w", err)
	}
	type stale struct {
		m         StoredMessage
		raw, refs sql.NullString
		chunks    bool
	}
	var ss []stale
	for rows.Next() {
		var s stale
		var data string
		if err := rows.Scan(&s.m.RowID, &s.m.TaskID, &s.m.MessageID, &data, &s.raw, &s.refs, &s.chunks,
			&s.m.Format, &s.m.Version, &s.m.CreatedAt); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: stale messages: %w", err)
		}
		s.m.Data = []byte(data)
		ss = append(ss, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: stale messages: %w", err)
	}
	out := make([]StoredMessage, 0, len(ss))
	for _, s := range ss {
		if s.m.Raw, err = messageRawHead(ctx, q, s.m.TaskID, s.raw, s.refs); err != nil {
			return nil, err
		}
		if s.chunks {
			if s.m.Raw, _, err = messageRawTail(ctx, q, s.m.TaskID, s.m.MessageID, append([]byte{}, s.m.Raw...)); err != nil {
				return nil, err
			}
		}
		out = append(out, s.m)
	}
	return out, nil
}

// RewriteMessage stores a re-normalized message for row rowID. A nil data
// keeps the normalized data and only records the version. A row rewritten
// meanwhile at version or newer (by a live session) is left alone.
func RewriteMessage(ctx context.Context, q SQLRunner, rowID int64, data []byte, role string, version int) error {
	var err error
	if data == nil {
		_, err = q.ExecContext(ctx, `UPDATE agent_messages SET normalizedVersion = ? WHERE id = ? AND normalizedVersion < ?`,
			version, rowID, version)
	} else {
		_, err = q.ExecContext(ctx, `UPDATE agent_messages SET normalizedData = ?, role = ?, normalizedVersion = ?
			WHERE id = ? AND normalizedVersion < ?`, string(data), role, version, rowID, version)
	}
	if err != nil {
		return fmt.Errorf("store: rewrite message row %d: %w", rowID, err)
	}
	return nil
}

// MessageWithTool returns the latest message of task taskID holding a
// tool-use part with tool id toolID; ok is false when there is none.
func MessageWithTool(ctx context.Context, q SQLRunner, taskID, toolID string) (m agent.Message, ok bool, err error) {
	if toolID == "" {
		return m, false, nil
	}
	var data string
	err = q.QueryRowContext(ctx, `SELECT a.normalizedData FROM agent_messages a, json_each(a.normalizedData, '$.parts') p
		WHERE a.taskId = ? AND json_extract(p.value, '$.type') = 'tool-use' AND json_extract(p.value, '$.toolId') = ?
		ORDER BY a.messageIndex DESC LIMIT 1`, taskID, toolID).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("store: message with tool %s of task %s: %w", toolID, taskID, err)
	}
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		return m, false, fmt.Errorf("store: message with tool %s: decode: %w", toolID, err)
	}
	return m, true, nil
}

// BehindVersion is the normalizedVersion of a row whose normalized data lags
// its raw data: the orchestrator stores every frame at once but rewrites a
// changing message's row at most every ~100 ms; it marks the row behind in
// the meantime (MarkMessageBehind) and the next write clears the mark. A
// crash can leave such rows; the next start re-normalizes them from their
// raw data (BehindMessages) before anything reads them.
const BehindVersion = 0

// MarkMessageBehind marks a message's row behind its raw data.
func MarkMessageBehind(ctx context.Context, q SQLRunner, taskID, messageID string) error {
	if _, err := q.ExecContext(ctx, `UPDATE agent_messages SET normalizedVersion = ? WHERE taskId = ? AND messageId = ?`,
		BehindVersion, taskID, messageID); err != nil {
		return fmt.Errorf("store: mark message %s of task %s behind: %w", messageID, taskID, err)
	}
	return nil
}

// BehindMessages returns up to limit rows marked behind with a row id above
// afterRowID, like StaleMessages.
func BehindMessages(ctx context.Context, q SQLRunner, afterRowID int64, limit int) ([]StoredMessage, error) {
	return StaleMessages(ctx, q, BehindVersion+1, afterRowID, limit)
}

// MessagePage is one page of a task's transcript, oldest first.
type MessagePage struct {
	Messages []agent.Message
	// First is the messageIndex of the page's oldest message: the cursor
	// for the page before it (-1 for an empty page).
	First int64
	// HasOlder tells whether messages older than First exist.
	HasOlder bool
}

// MessagesPage returns up to limit of the task's messages older than
// before (messageIndex; before < 0: the newest), oldest first. With a
// messageID, the page reaches back to that message too (it may then hold
// more than limit), so a view jumping to it gets one contiguous page.
func MessagesPage(ctx context.Context, q SQLRunner, taskID string, before int64, limit int, messageID string) (MessagePage, error) {
	if before < 0 {
		before = math.MaxInt64
	}
	from, err := pageStart(ctx, q, taskID, before, limit)
	if err != nil {
		return MessagePage{}, err
	}
	if messageID != "" {
		var at int64
		err := q.QueryRowContext(ctx, `SELECT messageIndex FROM agent_messages WHERE taskId = ? AND messageId = ?`, taskID, messageID).Scan(&at)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return MessagePage{}, fmt.Errorf("store: page of task %s: find %s: %w", taskID, messageID, err)
		}
		if err == nil && at < from {
			from = at
		}
	}
	p := MessagePage{Messages: []agent.Message{}, First: -1}
	rows, err := q.QueryContext(ctx, `SELECT messageIndex, normalizedData FROM agent_messages
		WHERE taskId = ? AND messageIndex >= ? AND messageIndex < ? ORDER BY messageIndex`, taskID, from, before)
	if err != nil {
		return MessagePage{}, fmt.Errorf("store: page of task %s: %w", taskID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var idx int64
		var data []byte
		if err := rows.Scan(&idx, &data); err != nil {
			return MessagePage{}, fmt.Errorf("store: page of task %s: %w", taskID, err)
		}
		var m agent.Message
		if err := json.Unmarshal(data, &m); err != nil {
			return MessagePage{}, fmt.Errorf("store: page of task %s: decode: %w", taskID, err)
		}
		if p.First < 0 {
			p.First = idx
		}
		p.Messages = append(p.Messages, m)
	}
	if err := rows.Err(); err != nil {
		return MessagePage{}, fmt.Errorf("store: page of task %s: %w", taskID, err)
	}
	if p.First > 0 {
		err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM agent_messages WHERE taskId = ? AND messageIndex < ?)`, taskID, p.First).Scan(&p.HasOlder)
		if err != nil {
			return MessagePage{}, fmt.Errorf("store: page of task %s: %w", taskID, err)
		}
	}
	return p, nil
}

// pageStart returns the messageIndex of the oldest of the limit messages
// before before (before itself when there are none).
func pageStart(ctx context.Context, q SQLRunner, taskID string, before int64, limit int) (int64, error) {
	var from sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT min(messageIndex) FROM (SELECT messageIndex FROM agent_messages
		WHERE taskId = ? AND messageIndex < ? ORDER BY messageIndex DESC LIMIT ?)`, taskID, before, limit).Scan(&from)
	if err != nil {
		return 0, fmt.Errorf("store: page of task %s: %w", taskID, err)
	}
	if !from.Valid {
		return before, nil
	}
	return from.Int64, nil
}

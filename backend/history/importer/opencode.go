package importer

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
)

// OpenCode reads OpenCode's sessions. OpenCode 1.18 keeps them in SQLite,
// $XDG_DATA_HOME/opencode/opencode.db (default ~/.local/share/opencode):
//
//	session  id, directory, title, parent_id (a sub-agent's session),
//	         time_created, time_updated (ms)
//	message  id, session_id, time_created, data: the message info as OpenCode's
//	         bus sends it in message.updated, without id and sessionID
//	part     id, message_id, session_id, time_created, data: the part as in
//	         message.part.updated, without id, messageID and sessionID
//
// Each message row becomes the message.updated frame OpenCode would have
// sent for it and each part row its message.part.updated frame (the row's
// data with its ids put back), fed in order to the live OpenCode normalizer,
// so an imported session normalizes (and re-normalizes) like a live one.
// Only top-level sessions are listed (a sub-agent session belongs to its
// parent's task tool).
type OpenCode struct{}

// Format implements Source.
func (OpenCode) Format() string { return "opencode" }

// Backend implements Source.
func (OpenCode) Backend() agent.BackendType { return agent.BackendOpenCode }

// RawFormat implements Source.
func (OpenCode) RawFormat() string { return opencode.FormatName }

// OpenCodeDB is where OpenCode keeps its database under home.
func OpenCodeDB(home string) string {
	return filepath.Join(home, ".local", "share", "opencode", "opencode.db")
}

func openCodeOpen(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, fmt.Errorf("importer: opencode: %w", err)
	}
	return db, nil
}

// Find implements Source: folder "" lists every folder's sessions, a folder
// the sessions that ran in it, a path to an opencode.db that file's.
func (o OpenCode) Find(home, folder string) ([]Session, error) {
	path := OpenCodeDB(home)
	if strings.HasSuffix(folder, ".db") {
		path, folder = folder, ""
	}
	db, err := openCodeOpen(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer db.Close()
	q := `SELECT s.id, s.directory, s.time_created, s.time_updated,
		coalesce((SELECT sum(length(m.data)) FROM message m WHERE m.session_id = s.id), 0) +
		coalesce((SELECT sum(length(p.data)) FROM part p WHERE p.session_id = s.id), 0),
		coalesce((SELECT json_extract(p.data, '$.text') FROM message m JOIN part p ON p.message_id = m.id
			WHERE m.session_id = s.id AND json_extract(m.data, '$.role') = 'user' AND json_extract(p.data, '$.type') = 'text'
			ORDER BY m.time_created, m.id, p.id LIMIT 1), ''),
		coalesce((SELECT json_extract(m.data, '$.providerID') || '/' || json_extract(m.data, '$.modelID') FROM message m
			WHERE m.session_id = s.id AND json_extract(m.data, '$.role') = 'assistant' ORDER BY m.time_created LIMIT 1), '')
		FROM session s WHERE s.parent_id IS NULL AND (? = '' OR s.directory = ?) ORDER BY s.time_created DESC`
	rows, err := db.QueryContext(context.Background(), q, folder, filepath.Clean(folder))
	if err != nil {
		return nil, fmt.Errorf("importer: opencode %s: %w", path, err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		s := Session{Format: o.Format(), Path: path}
		if err := rows.Scan(&s.ID, &s.Cwd, &s.StartedAt, &s.UpdatedAt, &s.Size, &s.FirstPrompt, &s.Model); err != nil {
			return nil, fmt.Errorf("importer: opencode %s: %w", path, err)
		}
		s.FirstPrompt = strings.TrimSpace(s.FirstPrompt)
		out = append(out, s)
	}
	return out, rows.Err()
}

// withIDs returns the JSON object data with the given fields added.
func withIDs(data string, ids map[string]string) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		return nil, err
	}
	for k, v := range ids {
		m[k] = v
	}
	return m, nil
}

// openCodeRow is one message or part row of a session, in order.
type openCodeRow struct {
	table, id, messageID string
	created              int64
	data                 string
}

func openCodeRows(db *sql.DB, sessionID string) ([]openCodeRow, error) {
	rows, err := db.Query(`SELECT 'message', id, id, time_created, data FROM message WHERE session_id = ?
		UNION ALL SELECT 'part', p.id, p.message_id, m.time_created, p.data FROM part p JOIN message m ON m.id = p.message_id
		WHERE p.session_id = ?
		ORDER BY 4, 3, 1 DESC, 2`, sessionID, sessionID)
	if err != nil {
		return nil, fmt.Errorf("importer: opencode session %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []openCodeRow
	for rows.Next() {
		var r openCodeRow
		if err := rows.Scan(&r.table, &r.id, &r.messageID, &r.created, &r.data); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Load implements Source.
func (o OpenCode) Load(s Session) (Loaded, error) {
	l := Loaded{Session: s}
	db, err := openCodeOpen(s.Path)
	if err != nil {
		return l, err
	}
	defer db.Close()
	rows, err := openCodeRows(db, s.ID)
	if err != nil {
		return l, err
	}
	n := opencode.NewNormalizer()
	col := newCollector()
	for _, r := range rows {
		rec, _ := json.Marshal(map[string]any{"table": r.table, "id": r.id, "messageId": r.messageID, "sessionId": s.ID, "data": json.RawMessage(r.data)})
		l.Records = append(l.Records, rec)
		var frame map[string]any
		if r.table == "message" {
			info, err := withIDs(r.data, map[string]string{"id": r.id, "sessionID": s.ID})
			if err != nil {
				return l, fmt.Errorf("importer: opencode message %s: %w", r.id, err)
			}
			frame = map[string]any{"type": "message.updated", "properties": map[string]any{"info": info}}
		} else {
			part, err := withIDs(r.data, map[string]string{"id": r.id, "messageID": r.messageID, "sessionID": s.ID})
			if err != nil {
				return l, fmt.Errorf("importer: opencode part %s: %w", r.id, err)
			}
			frame = map[string]any{"type": "message.part.updated", "properties": map[string]any{"part": part}}
		}
		b, _ := json.Marshal(frame)
		col.add(n.Feed(b))
	}
	col.add(n.Flush())
	l.Messages = col.messages()
	return l, nil
}

// collector keeps the latest version of each message event, in first-seen
// order.
type collector struct {
	order []string
	byID  map[string]Message
}

func newCollector() *collector { return &collector{byID: map[string]Message{}} }

func (c *collector) add(evs []agent.Event) {
	for _, ev := range evs {
		switch {
		case ev.Type == agent.EventMessage && ev.Message != nil:
			if _, seen := c.byID[ev.Message.ID]; !seen {
				c.order = append(c.order, ev.Message.ID)
			}
			c.byID[ev.Message.ID] = Message{Message: *ev.Message, Raw: ev.Raw}
		case ev.Type == agent.EventMessageRemoved:
			delete(c.byID, ev.MessageID)
		}
	}
}

func (c *collector) messages() []Message {
	var out []Message
	for _, id := range c.order {
		if m, ok := c.byID[id]; ok {
			out = append(out, m)
		}
	}
	return out
}

package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// SearchLag bounds how long a stored message's text may wait before search
// finds it when its writer defers indexing (DB.TxDeferIndex): the
// orchestrator's group-commit writer indexes what is pending at most this
// long after the write.
const SearchLag = 500 * time.Millisecond

// The statements of IndexPending (migration 0110): drop the queued messages
// from both indexes, compute their current text once into a batch table of
// the connection (the body of migration 0070, computed in Go: searchBody,
// searchtext.go; tags are the filter words), index it, and send the bodies
// holding CJK characters to the trigram index from that table too — read
// back from message_search instead, one lookup per message, that step cost a
// quarter of the whole (docs/streaming.md, "Eighth pass"). Then queue
// nothing.
var indexPendingSQL = []string{
	`CREATE TEMP TABLE IF NOT EXISTS search_batch (id INTEGER PRIMARY KEY, body TEXT NOT NULL, tags TEXT)`,
	`DELETE FROM temp.search_batch`, // left over only if a failed transaction was not rolled back
	`DELETE FROM message_search WHERE rowid IN (SELECT id FROM message_search_pending)`,
	`DELETE FROM message_search_cjk WHERE rowid IN (SELECT id FROM message_search_pending)`,
	`INSERT INTO temp.search_batch (id, body, tags)
	SELECT m.id, ` + fnSearchBody + `(m.normalizedData),
		(SELECT 'role ' || m.role || ' agent ' || t.agentBackend || ' endagent project ' || t.projectId
		FROM tasks t WHERE t.id = m.taskId)
	FROM message_search_pending q JOIN agent_messages m ON m.id = q.id`,
	`INSERT INTO message_search (rowid, body, tags) SELECT id, body, tags FROM temp.search_batch`,
	`INSERT INTO message_search_cjk (rowid, body) SELECT id, body FROM temp.search_batch
		WHERE length(CAST(body AS BLOB)) > length(body) AND ` + fnHasCJK + `(body)`,
	`DELETE FROM temp.search_batch`,
	`DELETE FROM message_search_pending`,
}

// IndexPending brings the search index up to date with the messages
// written since it last ran (queued by migration 0110's triggers), in a few
// statements whatever their number. Run it inside the writing transaction.
func IndexPending(ctx context.Context, q SQLRunner) error {
	var any int
	err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM message_search_pending)`).Scan(&any)
	if err != nil || any == 0 {
		if err != nil {
			return fmt.Errorf("store: search index: %w", err)
		}
		return nil
	}
	for _, s := range indexPendingSQL {
		if _, err := q.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("store: search index: %w", err)
		}
	}
	return nil
}

// SearchSlice is how many queued messages IndexPendingSome indexes at most
// for a writer under load (it passes fewer when it has time to spare).
const SearchSlice = 256

// indexSomeSQL is indexPendingSQL on the first ?1 queued messages.
var indexSomeSQL = func() []string {
	some := "(SELECT id FROM message_search_pending ORDER BY id LIMIT ?1)"
	out := make([]string, len(indexPendingSQL))
	for i, q := range indexPendingSQL {
		q = strings.ReplaceAll(q, "(SELECT id FROM message_search_pending)", some)
		q = strings.ReplaceAll(q, "FROM message_search_pending q", "FROM "+some+" q")
		if q == "DELETE FROM message_search_pending" {
			q += " WHERE id IN " + some
		}
		out[i] = q
	}
	return out
}()

// IndexPendingSome is IndexPending on the oldest n queued messages at most
// (1 ≤ n ≤ SearchSlice), so a writer under load bounds the time one
// transaction spends on the index; it tells whether the queue is now empty.
func IndexPendingSome(ctx context.Context, q SQLRunner, n int) (bool, error) {
	n = min(max(n, 1), SearchSlice)
	var queued int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM message_search_pending LIMIT ?)`, n+1).Scan(&queued)
	if err != nil {
		return false, fmt.Errorf("store: search index: %w", err)
	}
	if queued == 0 {
		return true, nil
	}
	for _, s := range indexSomeSQL {
		var err error
		if strings.Contains(s, "?1") {
			_, err = q.ExecContext(ctx, s, n)
		} else {
			_, err = q.ExecContext(ctx, s)
		}
		if err != nil {
			return false, fmt.Errorf("store: search index: %w", err)
		}
	}
	return queued <= n, nil
}

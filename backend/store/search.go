package store

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Highlight markers around each match in SearchHit.Snippet: control
// characters that never occur in agent text, so the UI and the CLI can split
// on them without escaping.
const (
	MarkStart = "\x02"
	MarkEnd   = "\x03"
)

// SearchQuery is a full-text search over every task's messages (the
// message_search index of migration 0070). Text is split on white space;
// every term must occur (as a substring, case and accents folded). Terms of
// one or two characters are matched with LIKE on the index's text (exact
// case for non-ASCII); a query made only of such terms scans the index.
type SearchQuery struct {
	Text      string
	ProjectID string // "" = every project
	Agent     string // a backend type; "" = every agent
	Role      string // user | assistant | system | result; "" = every role
	From, To  int64  // message createdAt bounds in ms, inclusive; 0 = open
	Limit     int    // 0 = 50
	// Before, when not 0, returns hits older than that hit's RowID (the
	// next page).
	Before int64
}

// SearchHit is one message matching a search, newest first.
type SearchHit struct {
	RowID        int64  `json:"rowId"`
	TaskID       string `json:"taskId"`
	TaskName     string `json:"taskName"`
	TaskPrompt   string `json:"taskPrompt"`
	ProjectID    string `json:"projectId"`
	ProjectName  string `json:"projectName"`
	Agent        string `json:"agent"`
	MessageID    string `json:"messageId"`
	MessageIndex int    `json:"messageIndex"`
	Role         string `json:"role"`
	CreatedAt    int64  `json:"createdAt"`
	// Snippet is the text around the first match with every match between
	// MarkStart and MarkEnd.
	Snippet string `json:"snippet"`
}

// searchTerms splits text into the terms long enough for the trigram index
// (an FTS5 MATCH expression, each term a quoted string) and the short ones.
func searchTerms(text string) (match string, short []string) {
	var long []string
	for _, f := range strings.Fields(text) {
		if utf8.RuneCountInString(f) >= 3 {
			long = append(long, `"`+strings.ReplaceAll(f, `"`, `""`)+`"`)
		} else {
			short = append(short, f)
		}
	}
	return strings.Join(long, " AND "), short
}

// likePattern quotes s for LIKE ... ESCAPE '\'.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// Search runs q against the index and returns up to q.Limit hits, newest
// first. An empty query returns no hits.
func Search(ctx context.Context, q SQLRunner, sq SearchQuery) ([]SearchHit, error) {
	match, short := searchTerms(sq.Text)
	if match == "" && len(short) == 0 {
		return []SearchHit{}, nil
	}
	limit := sq.Limit
	if limit <= 0 {
		limit = 50
	}
	snippet, body := `''`, `s.body`
	var where []string
	var args []any
	if match != "" {
		snippet = `snippet(message_search, 0, '` + MarkStart + `', '` + MarkEnd + `', '…', 48)`
		body = `''`
		where = append(where, `message_search MATCH ?`)
		args = append(args, match)
	}
	for _, s := range short {
		where = append(where, `s.body LIKE ? ESCAPE '\'`)
		args = append(args, likePattern(s))
	}
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	if sq.ProjectID != "" {
		add(`t.projectId = ?`, sq.ProjectID)
	}
	if sq.Agent != "" {
		add(`t.agentBackend = ?`, sq.Agent)
	}
	if sq.Role != "" {
		add(`m.role = ?`, sq.Role)
	}
	if sq.From != 0 {
		add(`m.createdAt >= ?`, sq.From)
	}
	if sq.To != 0 {
		add(`m.createdAt <= ?`, sq.To)
	}
	if sq.Before != 0 {
		add(`s.rowid < ?`, sq.Before)
	}
	query := `SELECT s.rowid, ` + snippet + `, ` + body + `, m.taskId, m.messageId, m.messageIndex, m.role, m.createdAt,
		t.name, t.prompt, t.agentBackend, t.projectId, p.name
		FROM message_search s
		JOIN agent_messages m ON m.id = s.rowid
		JOIN tasks t ON t.id = m.taskId
		JOIN projects p ON p.id = t.projectId
		WHERE ` + strings.Join(where, " AND ") + `
		ORDER BY s.rowid DESC LIMIT ?`
	args = append(args, limit)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search %q: %w", sq.Text, err)
	}
	defer rows.Close()
	hits := []SearchHit{}
	for rows.Next() {
		var h SearchHit
		var text string
		if err := rows.Scan(&h.RowID, &h.Snippet, &text, &h.TaskID, &h.MessageID, &h.MessageIndex, &h.Role,
			&h.CreatedAt, &h.TaskName, &h.TaskPrompt, &h.Agent, &h.ProjectID, &h.ProjectName); err != nil {
			return nil, fmt.Errorf("store: search %q: %w", sq.Text, err)
		}
		if match == "" {
			h.Snippet = shortSnippet(text, short[0])
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search %q: %w", sq.Text, err)
	}
	return hits, nil
}

// shortSnippet is the snippet of a query made only of short terms (FTS5's
// snippet() needs a MATCH): about 40 characters either side of the first
// occurrence of term, matched without case.
func shortSnippet(body, term string) string {
	lower := strings.ToLower(body)
	i := strings.Index(lower, strings.ToLower(term))
	if i < 0 || len(lower) != len(body) {
		i = strings.Index(body, term)
	}
	if i < 0 {
		return truncateRunes(body, 80)
	}
	j := i + len(term)
	start, end := i, j
	for n := 0; n < 40 && start > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(body[:start])
		start -= size
	}
	for n := 0; n < 40 && end < len(body); n++ {
		_, size := utf8.DecodeRuneInString(body[end:])
		end += size
	}
	out := body[start:i] + MarkStart + body[i:j] + MarkEnd + body[j:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(body) {
		out += "…"
	}
	return out
}

func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}

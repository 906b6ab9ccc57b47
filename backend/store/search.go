package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"
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
// every term must occur, case and accents folded: a term is a phrase of its
// words (parse_config_file, foo.bar(), src/main.go); the last term, when it
// has four characters or more, is also a prefix (fooBar finds fooBarBaz). A term holding CJK characters matches any
// substring (trigram index; terms of one or two characters scan the CJK
// messages with LIKE).
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

// searchTerms turns text into an FTS5 MATCH expression for message_search
// (match) and the CJK terms: long ones as a MATCH expression for
// message_search_cjk (cjkMatch), short ones for LIKE (cjkShort). A term
// without any letter or digit is dropped (it holds no word).
func searchTerms(text string) (match, cjkMatch string, cjkShort []string) {
	var words, cjk []string
	fields := strings.Fields(text)
	for i, f := range fields {
		quoted := `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
		switch {
		case hasCJK(f) && utf8.RuneCountInString(f) >= 3:
			cjk = append(cjk, quoted)
		case hasCJK(f):
			cjkShort = append(cjkShort, f)
		case strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0:
			if i == len(fields)-1 && utf8.RuneCountInString(f) >= 4 {
				quoted += "*" // the word being typed; short prefixes would merge too many words
			}
			words = append(words, quoted)
		}
	}
	return strings.Join(words, " AND "), strings.Join(cjk, " AND "), cjkShort
}

// hasCJK reports whether s holds a character of the ranges migration 0070
// sends to the trigram index.
func hasCJK(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return r >= 0x2E80 && r <= 0x9FFF || r >= 0xAC00 && r <= 0xD7AF || r >= 0xF900 && r <= 0xFAFF || r >= 0xFF00 && r <= 0xFFEF
	}) >= 0
}

// tagFilter is the MATCH phrase on the tags column for one filter.
func tagFilter(words ...string) string {
	return `tags : "` + strings.ReplaceAll(strings.Join(words, " "), `"`, `""`) + `"`
}

// likePattern quotes s for LIKE ... ESCAPE '\'.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// searchPlan is the FROM table, snippet, conditions and arguments of a
// search.
type searchPlan struct {
	table, snippet, body string
	where                []string
	args                 []any
}

func (p *searchPlan) add(cond string, v ...any) {
	p.where = append(p.where, cond)
	p.args = append(p.args, v...)
}

// planSearch chooses the index: message_search when the query has a word
// (CJK terms then restrict it by rowid), message_search_cjk when it has
// only CJK terms. ok is false for a query without any term.
func planSearch(sq SearchQuery) (p searchPlan, ok bool) {
	match, cjkMatch, cjkShort := searchTerms(sq.Text)
	if match == "" && cjkMatch == "" && len(cjkShort) == 0 {
		return p, false
	}
	p.snippet, p.body = `''`, `''`
	cjk := func(table, body string) {
		if cjkMatch != "" {
			p.add(table+` MATCH ?`, cjkMatch)
		}
		for _, s := range cjkShort {
			p.add(body+` LIKE ? ESCAPE '\'`, likePattern(s))
		}
	}
	if match != "" {
		p.table = "message_search"
		p.snippet = `snippet(message_search, 0, '` + MarkStart + `', '` + MarkEnd + `', '…', 24)`
		expr := "{body} : (" + match + ")"
		if sq.Role != "" {
			expr += " AND " + tagFilter("role", sq.Role)
		}
		if sq.Agent != "" {
			expr += " AND " + tagFilter("agent", sq.Agent, "endagent")
		}
		if sq.ProjectID != "" {
			expr += " AND " + tagFilter("project", sq.ProjectID)
		}
		p.add(`message_search MATCH ?`, expr)
		if cjkMatch != "" || len(cjkShort) > 0 {
			sub := searchPlan{}
			sub.where, sub.args = p.where, p.args
			p.where, p.args = nil, nil
			cjk("message_search_cjk", "body")
			cond := `s.rowid IN (SELECT rowid FROM message_search_cjk WHERE ` + strings.Join(p.where, " AND ") + `)`
			p.where, p.args = append(sub.where, cond), append(sub.args, p.args...)
		}
		return p, true
	}
	p.table = "message_search_cjk"
	if cjkMatch != "" {
		p.snippet = `snippet(message_search_cjk, 0, '` + MarkStart + `', '` + MarkEnd + `', '…', 48)`
	} else {
		p.body = `s.body`
	}
	cjk("message_search_cjk", "s.body")
	return p, true
}

// Search runs q against the index and returns up to q.Limit hits, newest
// first. An empty query returns no hits.
func Search(ctx context.Context, q SQLRunner, sq SearchQuery) ([]SearchHit, error) {
	p, ok := planSearch(sq)
	if !ok {
		return []SearchHit{}, nil
	}
	limit := sq.Limit
	if limit <= 0 {
		limit = 50
	}
	if sq.ProjectID != "" {
		p.add(`t.projectId = ?`, sq.ProjectID)
	}
	if sq.Agent != "" {
		p.add(`t.agentBackend = ?`, sq.Agent)
	}
	if sq.Role != "" {
		p.add(`m.role = ?`, sq.Role)
	}
	// The unary + keeps the planner from driving the query from an index
	// on createdAt and probing the full-text index once per message. (Row
	// id bounds computed from the dates were tried: exact ones need
	// min/max(id) over the whole date range, which cost ~750 ms at 1M
	// messages; the full-text side itself answers bounded queries in < 1 ms.)
	if sq.From != 0 {
		p.add(`+m.createdAt >= ?`, sq.From)
	}
	if sq.To != 0 {
		p.add(`+m.createdAt <= ?`, sq.To)
	}
	if sq.Before != 0 {
		p.add(`s.rowid < ?`, sq.Before)
	}
	query := `SELECT s.rowid, ` + p.snippet + `, ` + p.body + `, m.taskId, m.messageId, m.messageIndex, m.role, m.createdAt,
		t.name, t.prompt, t.agentBackend, t.projectId, pr.name
		FROM ` + p.table + ` s
		JOIN agent_messages m ON m.id = s.rowid
		JOIN tasks t ON t.id = m.taskId
		JOIN projects pr ON pr.id = t.projectId
		WHERE ` + strings.Join(p.where, " AND ") + `
		ORDER BY s.rowid DESC LIMIT ?`
	rows, err := q.QueryContext(ctx, query, append(p.args, limit)...)
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
		if p.body != `''` {
			h.Snippet = shortSnippet(text, firstField(sq.Text))
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search %q: %w", sq.Text, err)
	}
	return hits, nil
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return s
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

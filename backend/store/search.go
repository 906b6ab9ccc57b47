package store

import (
	"context"
	"fmt"
	"math"
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
	TaskSummary  string `json:"taskSummary"`
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
// without any letter or digit is dropped (it holds no word). With prefix,
// the last term's last word, when it has four characters or more, is also a
// prefix (the word being typed); canPrefix tells whether the text has such
// a word.
func searchTerms(text string, prefix bool) (match, cjkMatch string, cjkShort []string, canPrefix bool) {
	var words, cjk []string
	fields := strings.Fields(text)
	for i, f := range fields {
		quoted := `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
		switch {
		case hasCJK(f) && utf8.RuneCountInString(f) >= 3:
			cjk = append(cjk, quoted)
		case hasCJK(f):
			cjkShort = append(cjkShort, f)
		case strings.IndexFunc(f, isWordRune) >= 0:
			// Short prefixes would merge too many words, and FTS5 merges
			// the whole doclist of every word a prefix matches: src/x/main.go
			// with go* cost 150-370 ms at 1M messages.
			if i == len(fields)-1 && utf8.RuneCountInString(lastWord(f)) >= 4 {
				canPrefix = true
				if prefix {
					quoted += "*"
				}
			}
			words = append(words, quoted)
		}
	}
	return strings.Join(words, " AND "), strings.Join(cjk, " AND "), cjkShort, canPrefix
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// lastWord is the last run of letters and digits of f (the last token
// unicode61 makes of it).
func lastWord(f string) string {
	end := strings.LastIndexFunc(f, isWordRune)
	if end < 0 {
		return ""
	}
	_, size := utf8.DecodeRuneInString(f[end:])
	start := strings.LastIndexFunc(f[:end], func(r rune) bool { return !isWordRune(r) })
	_, skip := utf8.DecodeRuneInString(f[max(start, 0):])
	if start < 0 {
		skip, start = 0, 0
	}
	return f[start+skip : end+size]
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
func planSearch(sq SearchQuery, prefix, tags bool) (p searchPlan, ok bool) {
	match, cjkMatch, cjkShort, _ := searchTerms(sq.Text, prefix)
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
		if !tags {
			sq.Role, sq.Agent, sq.ProjectID = "", "", ""
		}
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
// first. An empty query returns no hits. The exact words are searched first;
// when the last word can be a prefix (the word being typed) and the exact
// words fill less than a page, the search is run again with that prefix.
func Search(ctx context.Context, q SQLRunner, sq SearchQuery) ([]SearchHit, error) {
	if sq.Limit <= 0 {
		sq.Limit = 50
	}
	_, _, _, canPrefix := searchTerms(sq.Text, false)
	ranges, err := searchRanges(ctx, q, sq)
	if err != nil {
		return nil, err
	}
	hits, err := searchInRanges(ctx, q, sq, false, ranges)
	if err != nil || !canPrefix || len(hits) >= sq.Limit {
		return hits, err
	}
	return searchInRanges(ctx, q, sq, true, ranges)
}

// rowRange is an inclusive range of agent_messages ids.
type rowRange struct{ lo, hi int64 }

// maxRanges bounds the row id ranges a date filter is searched in one by
// one; past it, the search runs once over the range that spans them all.
const maxRanges = 64

// searchRanges turns the date filter and Before into row id ranges, newest
// first, from message_time_blocks (migration 0115): the blocks of 1,024 ids
// whose createdAt span overlaps the dates. No range: nothing can match.
func searchRanges(ctx context.Context, q SQLRunner, sq SearchQuery) ([]rowRange, error) {
	top := int64(math.MaxInt64)
	if sq.Before != 0 {
		top = sq.Before - 1
	}
	if sq.From == 0 && sq.To == 0 {
		return []rowRange{{0, top}}, nil
	}
	to := sq.To
	if to == 0 {
		to = math.MaxInt64
	}
	rows, err := q.QueryContext(ctx, `SELECT block FROM message_time_blocks
		WHERE maxAt >= ? AND minAt <= ? AND block <= ? ORDER BY block DESC`, sq.From, to, top>>10)
	if err != nil {
		return nil, fmt.Errorf("store: search dates: %w", err)
	}
	defer rows.Close()
	var out []rowRange
	for rows.Next() {
		var b int64
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("store: search dates: %w", err)
		}
		lo, hi := b<<10, min(top, b<<10+1023)
		if n := len(out); n > 0 && out[n-1].lo == hi+1 {
			out[n-1].lo = lo
			continue
		}
		out = append(out, rowRange{lo, hi})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search dates: %w", err)
	}
	if len(out) > maxRanges {
		out = []rowRange{{out[len(out)-1].lo, out[0].hi}}
	}
	return out, nil
}

// searchInRanges searches each range, newest first, until a page is full.
func searchInRanges(ctx context.Context, q SQLRunner, sq SearchQuery, prefix bool, ranges []rowRange) ([]SearchHit, error) {
	hits := []SearchHit{}
	for _, r := range ranges {
		got, err := searchRange(ctx, q, sq, prefix, r, sq.Limit-len(hits))
		if err != nil {
			return nil, err
		}
		if hits = append(hits, got...); len(hits) >= sq.Limit {
			break
		}
	}
	return hits, nil
}

// probeRows (a variable for the tests) is how many of the newest matches a filtered search checks by
// joining before it asks the index to intersect the filter tags.
var probeRows = 2000

// searchRange searches one row id range. A project, agent or role filter
// is checked first on the newest probeRows matches of the words alone (a
// few ms of joins; intersecting a rare word with a tag phrase that every
// message holds costs 100-400 ms at 1M messages); only what is left below
// them, when they did not fill the page, is searched with the tags in the
// MATCH (which is what keeps a small project's search from joining every
// match of a frequent word).
func searchRange(ctx context.Context, q SQLRunner, sq SearchQuery, prefix bool, r rowRange, limit int) ([]SearchHit, error) {
	plain, ok := planSearch(sq, prefix, false)
	if !ok {
		return []SearchHit{}, nil
	}
	if sq.ProjectID == "" && sq.Agent == "" && sq.Role == "" {
		return searchRows(ctx, q, sq, plain, r, limit)
	}
	low, n, err := probeLow(ctx, q, plain, r)
	if err != nil {
		return nil, err
	}
	if n < probeRows {
		return searchRows(ctx, q, sq, plain, r, limit)
	}
	hits, err := searchRows(ctx, q, sq, plain, rowRange{low, r.hi}, limit)
	if err != nil || len(hits) >= limit || low <= r.lo {
		return hits, err
	}
	tagged, _ := planSearch(sq, prefix, true)
	rest, err := searchRows(ctx, q, sq, tagged, rowRange{r.lo, low - 1}, limit-len(hits))
	return append(hits, rest...), err
}

// probeLow returns the lowest row id of the newest probeRows matches of p
// in r, and how many there were.
func probeLow(ctx context.Context, q SQLRunner, p searchPlan, r rowRange) (low int64, n int, err error) {
	p.where, p.args = append([]string{}, p.where...), append([]any{}, p.args...)
	if r.lo > 0 {
		p.add(`s.rowid >= ?`, r.lo)
	}
	if r.hi < math.MaxInt64 {
		p.add(`s.rowid <= ?`, r.hi)
	}
	err = q.QueryRowContext(ctx, `SELECT coalesce(min(rowid), 0), count(*) FROM (SELECT s.rowid FROM `+p.table+` s
		WHERE `+strings.Join(p.where, " AND ")+` ORDER BY s.rowid DESC LIMIT ?)`, append(p.args, probeRows)...).Scan(&low, &n)
	if err != nil {
		return 0, 0, fmt.Errorf("store: search probe: %w", err)
	}
	return low, n, nil
}

// searchRows runs one search plan over one row id range.
func searchRows(ctx context.Context, q SQLRunner, sq SearchQuery, p searchPlan, r rowRange, limit int) ([]SearchHit, error) {
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
	// on createdAt and probing the full-text index once per message; the
	// row id range (searchRanges) is what bounds the scan.
	if sq.From != 0 {
		p.add(`+m.createdAt >= ?`, sq.From)
	}
	if sq.To != 0 {
		p.add(`+m.createdAt <= ?`, sq.To)
	}
	if r.lo > 0 {
		p.add(`s.rowid >= ?`, r.lo)
	}
	if r.hi < math.MaxInt64 {
		p.add(`s.rowid <= ?`, r.hi)
	}
	query := `SELECT s.rowid, ` + p.snippet + `, ` + p.body + `, m.taskId, m.messageId, m.messageIndex, m.role, m.createdAt,
		t.name, t.prompt, t.summary, t.agentBackend, t.projectId, pr.name
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
			&h.CreatedAt, &h.TaskName, &h.TaskPrompt, &h.TaskSummary, &h.Agent, &h.ProjectID, &h.ProjectName); err != nil {
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

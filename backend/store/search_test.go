package store_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// searchFixture is two projects, three tasks on two agents, and messages
// of every role holding Unicode text and code identifiers.
type searchFixture struct {
	db         *store.DB
	p, q       store.Project
	t1, t2, t3 store.Task
}

func textMsg(id string, role agent.Role, text string) agent.Message {
	return agent.Message{ID: id, Role: role, Parts: []agent.Part{{Type: agent.PartText, Text: text}}}
}

func put(t *testing.T, db *store.DB, taskID string, m agent.Message, now int64) {
	t.Helper()
	err := db.Tx(t.Context(), func(tx *sql.Tx) error {
		_, err := store.UpsertMessage(t.Context(), tx, store.MessageWrite{TaskID: taskID, Message: m, Format: "claude-code", Version: 1, Now: now})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func newSearchFixture(t *testing.T) searchFixture {
	db, _ := openTemp(t)
	ctx := t.Context()
	f := searchFixture{db: db}
	var err error
	if f.p, err = store.AddProject(ctx, db.W, store.NewProject{Name: "alpha", Path: "/alpha"}); err != nil {
		t.Fatal(err)
	}
	if f.q, err = store.AddProject(ctx, db.W, store.NewProject{Name: "beta", Path: "/beta"}); err != nil {
		t.Fatal(err)
	}
	if f.t1, err = store.CreateTask(ctx, db.W, store.NewTask{ProjectID: f.p.ID, Name: "one", Prompt: "p1", AgentBackend: agent.BackendClaudeCode}); err != nil {
		t.Fatal(err)
	}
	if f.t2, err = store.CreateTask(ctx, db.W, store.NewTask{ProjectID: f.p.ID, Name: "two", Prompt: "p2", AgentBackend: agent.BackendOpenCode}); err != nil {
		t.Fatal(err)
	}
	if f.t3, err = store.CreateTask(ctx, db.W, store.NewTask{ProjectID: f.q.ID, Name: "three", Prompt: "p3", AgentBackend: agent.BackendClaudeCode}); err != nil {
		t.Fatal(err)
	}
	put(t, db, f.t1.ID, textMsg("u1", agent.RoleUser, "Le café est prêt à Genève"), 1000)
	put(t, db, f.t1.ID, textMsg("a1", agent.RoleAssistant, "東京タワーは高いです。中文搜索测试"), 2000)
	put(t, db, f.t2.ID, textMsg("a2", agent.RoleAssistant, "call parse_config_file() then fooBarBaz.render() in src/app/main_view.tsx"), 3000)
	put(t, db, f.t2.ID, agent.Message{ID: "a3", Role: agent.RoleAssistant, Parts: []agent.Part{
		{Type: agent.PartToolUse, ToolID: "t1", ToolName: "Bash", Input: []byte(`{"command":"grep -rn needleInInput ."}`)},
	}}, 4000)
	put(t, db, f.t2.ID, agent.Message{ID: "r3", Role: agent.RoleUser, Parts: []agent.Part{
		{Type: agent.PartToolResult, ToolID: "t1", Content: agent.StringContent("./x.go:1: needleInOutput")},
	}}, 5000)
	put(t, db, f.t3.ID, textMsg("a4", agent.RoleAssistant, "Another café in project beta"), 6000)
	put(t, db, f.t3.ID, agent.Message{ID: "res", Role: agent.RoleResult, Result: "finished the refactor of widgetFactory"}, 7000)
	return f
}

func search(t *testing.T, db *store.DB, q store.SearchQuery) []store.SearchHit {
	t.Helper()
	hits, err := store.Search(context.Background(), db.R, q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return hits
}

func ids(hits []store.SearchHit) string {
	var s []string
	for _, h := range hits {
		s = append(s, h.MessageID)
	}
	return strings.Join(s, ",")
}

func TestSearchTerms(t *testing.T) {
	f := newSearchFixture(t)
	for _, c := range []struct {
		text, want string
	}{
		{"café", "a4,u1"},               // accents kept
		{"CAFE", "a4,u1"},               // accents and case folded
		{"geneve", "u1"},                // inside a word
		{"東京タワー", "a1"},                 // CJK, no spaces
		{"タワー", "a1"},                   // CJK, inside a run
		{"東京", "a1"},                    // CJK, two characters (LIKE)
		{"搜索测试", "a1"},                  // Chinese
		{"parse_config_file", "a2"},     // snake_case whole
		{"config_file", "a2"},           // snake_case part
		{"fooBarBaz", "a2"},             // camelCase whole
		{"foobar", "a2"},                // camelCase prefix, any case
		{"barbaz", ""},                  // not inside a camelCase word (unicode61 words)
		{"needleIn", "r3,a3"},           // a prefix
		{"fooBarBaz.render()", "a2"},    // a call
		{"src/app/main_view.tsx", "a2"}, // a path
		{"main_view", "a2"},             // a path segment
		{"needleInInput", "a3"},         // tool input
		{"needleInOutput", "r3"},        // tool output
		{"widgetFactory", "res"},        // result summary
		{"café beta", "a4"},             // every term must occur
		{"café zz", ""},                 // a short term that does not occur
		{`"quoted" AND OR NEAR( *`, ""}, // FTS syntax is text, never an error
		{"東京 タワー", "a1"},                // two CJK terms
		{"東京 zzzq", ""},                 // a CJK and a word term
		{"", ""},                        // nothing
		{"   ", ""},                     // nothing
		{"100%", ""},                    // LIKE wildcards are text
		{"a_b", ""},                     // LIKE wildcards are text
		{"zzzzzz", ""},                  // no match
		{"ca", ""},                      // words, not substrings
		{"le", "u1"},                    // a short word
	} {
		got := ids(search(t, f.db, store.SearchQuery{Text: c.text}))
		if got != c.want {
			t.Errorf("search %q = [%s], want [%s]", c.text, got, c.want)
		}
	}
}

func TestSearchFilters(t *testing.T) {
	f := newSearchFixture(t)
	for _, c := range []struct {
		name string
		q    store.SearchQuery
		want string
	}{
		{"project", store.SearchQuery{Text: "café", ProjectID: f.p.ID}, "u1"},
		{"agent", store.SearchQuery{Text: "needle", Agent: "opencode"}, "r3,a3"},
		{"other agent", store.SearchQuery{Text: "needle", Agent: "claude-code"}, ""},
		{"role", store.SearchQuery{Text: "needle", Role: "user"}, "r3"},
		{"from", store.SearchQuery{Text: "café", From: 2000}, "a4"},
		{"to", store.SearchQuery{Text: "café", To: 2000}, "u1"},
		{"cjk and role", store.SearchQuery{Text: "東京", Role: "user"}, ""},
		{"cjk and project", store.SearchQuery{Text: "東京タワー", ProjectID: f.p.ID}, "a1"},
		{"limit", store.SearchQuery{Text: "needle", Limit: 1}, "r3"},
		{"next page", store.SearchQuery{Text: "needle", Limit: 1, Before: search(t, f.db, store.SearchQuery{Text: "needle", Limit: 1})[0].RowID}, "a3"},
	} {
		if got := ids(search(t, f.db, c.q)); got != c.want {
			t.Errorf("%s: got [%s], want [%s]", c.name, got, c.want)
		}
	}
}

func TestSearchHit(t *testing.T) {
	f := newSearchFixture(t)
	hits := search(t, f.db, store.SearchQuery{Text: "fooBarBaz"})
	if len(hits) != 1 {
		t.Fatalf("hits = %+v", hits)
	}
	h := hits[0]
	if h.TaskID != f.t2.ID || h.TaskName != "two" || h.ProjectID != f.p.ID || h.ProjectName != "alpha" ||
		h.Agent != "opencode" || h.Role != "assistant" || h.MessageIndex != 0 || h.CreatedAt != 3000 {
		t.Errorf("hit = %+v", h)
	}
	if !strings.Contains(h.Snippet, store.MarkStart+"fooBarBaz"+store.MarkEnd) {
		t.Errorf("snippet %q does not mark the match", h.Snippet)
	}
	short := search(t, f.db, store.SearchQuery{Text: "東京"})
	if len(short) != 1 || !strings.Contains(short[0].Snippet, store.MarkStart+"東京"+store.MarkEnd) {
		t.Errorf("short-term snippet = %+v", short)
	}
}

// A streaming message is rewritten in place as it grows: the index follows
// every rewrite (text no longer there is no longer found), a
// re-normalization, and a delete.
func TestSearchFollowsUpdates(t *testing.T) {
	f := newSearchFixture(t)
	ctx := t.Context()
	m := textMsg("s1", agent.RoleAssistant, "draft: oldFragmentXyz")
	put(t, f.db, f.t1.ID, m, 8000)
	if got := ids(search(t, f.db, store.SearchQuery{Text: "oldFragmentXyz"})); got != "s1" {
		t.Fatalf("first write: [%s]", got)
	}
	for i, text := range []string{"final: newFragment", "final: newFragmentQrs", "final: newFragmentQrs and more"} {
		put(t, f.db, f.t1.ID, textMsg("s1", agent.RoleAssistant, text), int64(8001+i))
	}
	if got := ids(search(t, f.db, store.SearchQuery{Text: "oldFragmentXyz"})); got != "" {
		t.Errorf("old text still found: [%s]", got)
	}
	if got := ids(search(t, f.db, store.SearchQuery{Text: "newFragmentQrs and more"})); got != "s1" {
		t.Errorf("new text: [%s], want [s1]", got)
	}
	var n int
	if err := f.db.R.QueryRowContext(ctx, `SELECT count(*) FROM message_search`).Scan(&n); err != nil || n != 8 {
		t.Errorf("index rows = %d (%v), want one per message (8)", n, err)
	}

	// Re-normalization rewrites normalizedData by row id.
	hit := search(t, f.db, store.SearchQuery{Text: "newFragmentQrs"})[0]
	data := `{"id":"s1","role":"assistant","parts":[{"type":"text","text":"renormalizedWord"}],"timestamp":""}`
	err := f.db.Tx(ctx, func(tx *sql.Tx) error {
		return store.RewriteMessage(ctx, tx, hit.RowID, []byte(data), "assistant", 2)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(search(t, f.db, store.SearchQuery{Text: "renormalizedWord"})); got != "s1" {
		t.Errorf("after re-normalization: [%s]", got)
	}
	if got := ids(search(t, f.db, store.SearchQuery{Text: "newFragmentQrs"})); got != "" {
		t.Errorf("pre-re-normalization text still found: [%s]", got)
	}

	// Deleting a message, then a whole task, empties their index rows.
	if err := store.DeleteMessage(ctx, f.db.W, f.t1.ID, "s1"); err != nil {
		t.Fatal(err)
	}
	if got := ids(search(t, f.db, store.SearchQuery{Text: "renormalizedWord"})); got != "" {
		t.Errorf("deleted message still found: [%s]", got)
	}
	if err := store.DeleteTask(ctx, f.db.W, f.t2.ID); err != nil {
		t.Fatal(err)
	}
	if got := ids(search(t, f.db, store.SearchQuery{Text: "needle"})); got != "" {
		t.Errorf("deleted task's messages still found: [%s]", got)
	}
	if err := f.db.R.QueryRowContext(ctx, `SELECT count(*) FROM message_search`).Scan(&n); err != nil || n != 4 {
		t.Errorf("index rows after deletes = %d (%v), want 4", n, err)
	}
}

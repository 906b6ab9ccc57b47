package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// refSearch is the slow reference: the words in the MATCH, every filter
// in the join, no row id ranges.
func refSearch(ctx context.Context, q SQLRunner, sq SearchQuery, prefix bool) ([]int64, error) {
	match, cjk, short, _ := searchTerms(sq.Text, prefix)
	where := []string{"1"}
	var args []any
	if sq.Before != 0 {
		where = append(where, "s.rowid < ?")
		args = append(args, sq.Before)
	}
	table := "message_search"
	if match != "" {
		where = append(where, "message_search MATCH ?")
		args = append(args, "{body} : ("+match+")")
		if cjk != "" {
			where = append(where, "s.rowid IN (SELECT rowid FROM message_search_cjk WHERE message_search_cjk MATCH ?)")
			args = append(args, cjk)
		}
		for _, c := range short {
			where = append(where, `s.rowid IN (SELECT rowid FROM message_search_cjk WHERE body LIKE ? ESCAPE '\')`)
			args = append(args, likePattern(c))
		}
	} else {
		table = "message_search_cjk"
		if cjk != "" {
			where = append(where, "message_search_cjk MATCH ?")
			args = append(args, cjk)
		}
		for _, s := range short {
			where = append(where, `s.body LIKE ? ESCAPE '\'`)
			args = append(args, likePattern(s))
		}
	}
	if sq.ProjectID != "" {
		where = append(where, "t.projectId = ?")
		args = append(args, sq.ProjectID)
	}
	if sq.Agent != "" {
		where = append(where, "t.agentBackend = ?")
		args = append(args, sq.Agent)
	}
	if sq.Role != "" {
		where = append(where, "m.role = ?")
		args = append(args, sq.Role)
	}
	if sq.From != 0 {
		where = append(where, "m.createdAt >= ?")
		args = append(args, sq.From)
	}
	if sq.To != 0 {
		where = append(where, "m.createdAt <= ?")
		args = append(args, sq.To)
	}
	rows, err := q.QueryContext(ctx, `SELECT s.rowid FROM `+table+` s JOIN agent_messages m ON m.id = s.rowid JOIN tasks t ON t.id = m.taskId WHERE `+strings.Join(where, " AND ")+` ORDER BY s.rowid DESC LIMIT ?`, append(args, sq.Limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// TestSearchMatchesReference checks the fast paths of Search (date ranges
// as row id ranges, filters joined on the newest matches first, the prefix
// only when the exact words fill less than a page) against refSearch, on
// messages stored in time order plus an "imported" session stored last
// with old dates, with a small probe so the tag fallback runs too.
func TestSearchMatchesReference(t *testing.T) {
	defer func(n int) { probeRows = n }(probeRows)
	probeRows = 25
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var projects, tasks []string
	for _, name := range []string{"alpha", "beta"} {
		p, err := AddProject(ctx, db.W, NewProject{Name: name, Path: "/" + name})
		if err != nil {
			t.Fatal(err)
		}
		projects = append(projects, p.ID)
	}
	agents := []agent.BackendType{agent.BackendClaudeCode, agent.BackendCodex, agent.BackendGemini}
	for i := range 9 {
		tk, err := CreateTask(ctx, db.W, NewTask{ProjectID: projects[i%2], Prompt: "t", AgentBackend: agents[i%3]})
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, tk.ID)
	}
	words := []string{"alpha", "beta", "gamma", "delta", "needle", "needleInInput", "src/app/main.go", "parse_config_id", "東京タワー", "rare"}
	rng := rand.New(rand.NewPCG(3, 4))
	roles := []agent.Role{agent.RoleUser, agent.RoleAssistant, agent.RoleAssistant}
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		for i := range 5000 {
			var b strings.Builder
			for range 6 {
				w := words[min(len(words)-1, int(rng.ExpFloat64()*2))]
				b.WriteString(w + " ")
			}
			m := agent.Message{ID: fmt.Sprint("m", i), Role: roles[i%3], Parts: []agent.Part{{Type: agent.PartText, Text: b.String()}}}
			data, _ := json.Marshal(m)
			at := int64(1_000_000 + i*1000)
			if i >= 4500 { // imported later, with old dates
				at = int64(1_000_000 + (i-4500)*3000)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO agent_messages (taskId, messageId, messageIndex, role, normalizedData, createdAt, updatedAt)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, tasks[i%len(tasks)], m.ID, i, m.Role, data, at, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, text := range []string{"alpha", "needle", "needleIn", "rare", "alpha rare", "src/app/main.go", "parse_config_id", "東京", "東京タワー", "gamma 東京"} {
		for _, f := range []SearchQuery{{}, {ProjectID: projects[1]}, {Agent: "codex", Role: "user"}, {From: 1_500_000, To: 2_000_000},
			{From: 2_000_000, To: 3_000_000, Role: "assistant"}, {To: 1_200_000}, {From: 4_000_000}, {Before: 4700}, {Before: 3000, From: 1_100_000, ProjectID: projects[0]}} {
			for _, limit := range []int{10, 200} {
				sq := f
				sq.Text, sq.Limit = text, limit
				hits, err := Search(ctx, db.R, sq)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := refSearch(ctx, db.R, sq, false)
				if err == nil && len(ref) < limit {
					ref, err = refSearch(ctx, db.R, sq, true)
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []int64
				for _, h := range hits {
					got = append(got, h.RowID)
				}
				if fmt.Sprint(got) != fmt.Sprint(ref) {
					t.Errorf("%+v:\n got %d %v\n ref %d %v", sq, len(got), got, len(ref), ref)
				}
				n += len(ref)
			}
		}
	}
	if n < 1000 {
		t.Fatalf("the reference found only %d hits in all: the test data does not exercise the search", n)
	}
}

package store_test

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// benchCorpus makes deterministic message texts: words drawn from a Zipf
// distribution over a vocabulary of made-up words, code identifiers, paths,
// accented and CJK words, 20 to 80 words a message (about 300 bytes).
type benchCorpus struct {
	vocab []string
	rng   *rand.Rand
	zipf  *rand.Zipf
}

func newBenchCorpus() *benchCorpus {
	rng := rand.New(rand.NewPCG(1, 2))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "zen", "por", "qua", "del", "bri", "sto", "ex", "un"}
	vocab := make([]string, 0, 20000)
	seen := map[string]bool{}
	for len(vocab) < 20000 {
		var w strings.Builder
		for n := 1 + rng.IntN(4); n > 0; n-- {
			w.WriteString(syll[rng.IntN(len(syll))])
		}
		s := w.String()
		switch rng.IntN(20) {
		case 0:
			s += "_" + syll[rng.IntN(len(syll))] + "_id"
		case 1:
			s += strings.ToUpper(syll[rng.IntN(len(syll))][:1]) + "Handler"
		case 2:
			s = "src/" + s + "/main.go"
		case 3:
			s += "é"
		case 4:
			if rng.IntN(30) == 0 { // 1 word in 600: about 1 message in 12 holds CJK
				s = []string{"東京", "検索", "履歴", "测试", "代码"}[rng.IntN(5)] + s
			}
		}
		if !seen[s] {
			seen[s] = true
			vocab = append(vocab, s)
		}
	}
	return &benchCorpus{vocab: vocab, rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))}
}

func (c *benchCorpus) text() string {
	var b strings.Builder
	for n := 20 + c.rng.IntN(60); n > 0; n-- {
		b.WriteString(c.vocab[c.zipf.Uint64()])
		b.WriteByte(' ')
	}
	return b.String()
}

// benchFill inserts n messages (from message number start) spread over
// the tasks, in transactions of 5,000, and returns the time taken.
func benchFill(b *testing.B, db *store.DB, c *benchCorpus, tasks []string, start, n int) time.Duration {
	ctx := context.Background()
	began := time.Now()
	roles := []agent.Role{agent.RoleUser, agent.RoleAssistant, agent.RoleAssistant, agent.RoleAssistant}
	for done := 0; done < n; {
		batch := min(5000, n-done)
		err := db.Tx(ctx, func(tx *sql.Tx) error {
			stmt, err := tx.PrepareContext(ctx, `INSERT INTO agent_messages
				(taskId, messageId, messageIndex, role, normalizedData, rawFormat, normalizedVersion, createdAt, updatedAt)
				VALUES (?, ?, ?, ?, ?, 'claude-code', 1, ?, ?)`)
			if err != nil {
				return err
			}
			defer stmt.Close()
			for i := start + done; i < start+done+batch; i++ {
				role := roles[(i/7)%len(roles)]
				m := agent.Message{ID: "m" + strconv.Itoa(i), Role: role, Parts: []agent.Part{{Type: agent.PartText, Text: c.text()}}}
				data, _ := json.Marshal(m)
				at := int64(1_700_000_000_000 + i*1000)
				if _, err := stmt.ExecContext(ctx, tasks[i%len(tasks)], m.ID, i/len(tasks), role, data, at, at); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		done += batch
	}
	return time.Since(began)
}

func benchDB(b *testing.B, dir, name string, nTasks int) (*store.DB, []string, string) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, name), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var projects []string
	for _, name := range []string{"alpha", "beta"} {
		p, err := store.AddProject(ctx, db.W, store.NewProject{Name: name, Path: "/" + name})
		if err != nil {
			b.Fatal(err)
		}
		projects = append(projects, p.ID)
	}
	agents := []agent.BackendType{agent.BackendClaudeCode, agent.BackendOpenCode, agent.BackendCodex, agent.BackendGemini}
	var tasks []string
	for i := range nTasks {
		t, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: projects[i%2], Prompt: "task " + strconv.Itoa(i), AgentBackend: agents[i%4]})
		if err != nil {
			b.Fatal(err)
		}
		tasks = append(tasks, t.ID)
	}
	return db, tasks, projects[0]
}

// BenchmarkSearch1M fills a database with 1,000,000 messages
// ($JC_SEARCH_BENCH_N overrides) through the indexing triggers, measures the
// indexing rate against plain inserts (the same rows into a database
// whose triggers were dropped) in the same run, then times searches:
// rare, common and multi-word terms, identifiers, CJK, filters.
func BenchmarkSearch1M(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("JC_SEARCH_BENCH_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	const sample = 100_000
	dir := b.TempDir()
	plain, plainTasks, _ := benchDB(b, dir, "plain.db", 1000)
	for _, trig := range []string{"message_insert", "message_search_update", "message_search_delete"} {
		if _, err := plain.W.Exec(`DROP TRIGGER ` + trig); err != nil {
			b.Fatal(err)
		}
	}
	plainTime := benchFill(b, plain, newBenchCorpus(), plainTasks, 0, min(sample, n))
	plain.Close()
	// $JC_SEARCH_BENCH_CACHE keeps the filled database between runs (the
	// fill takes minutes); the indexing rate is then measured on a fresh
	// sample database.
	cache := ""
	if d := os.Getenv("JC_SEARCH_BENCH_CACHE"); d != "" {
		cache = filepath.Join(d, fmt.Sprintf("search-bench-%d-v1.db", n))
	}
	c := newBenchCorpus()
	var db *store.DB
	var project string
	var indexedTime time.Duration
	if _, err := os.Stat(cache); cache != "" && err == nil {
		sdb, stasks, _ := benchDB(b, dir, "sample.db", 1000)
		indexedTime = benchFill(b, sdb, newBenchCorpus(), stasks, 0, min(sample, n))
		sdb.Close()
		if db, err = store.Open(context.Background(), cache, store.Options{}); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		if err := db.R.QueryRow(`SELECT id FROM projects WHERE name = 'alpha'`).Scan(&project); err != nil {
			b.Fatal(err)
		}
		fmt.Printf("search index: reusing %s\n", cache)
	} else {
		path := dir
		if cache != "" {
			path = filepath.Dir(cache)
		}
		var tasks []string
		db, tasks, project = benchDB(b, path, filepath.Base(cmp.Or(cache, "indexed.db")), 1000)
		indexedTime = benchFill(b, db, c, tasks, 0, min(sample, n))
		restTime := benchFill(b, db, c, tasks, sample, max(0, n-sample))
		fmt.Printf("search index: whole fill of %d messages at %.0f msg/s\n", n, float64(n)/(indexedTime+restTime).Seconds())
	}
	plainRate := float64(min(sample, n)) / plainTime.Seconds()
	indexedRate := float64(min(sample, n)) / indexedTime.Seconds()
	fmt.Printf("search index: first %d messages: plain inserts %.0f msg/s, indexed inserts %.0f msg/s: indexing runs at %.2fx the plain insert rate\n",
		min(sample, n), plainRate, indexedRate, indexedRate/plainRate)

	queries := benchQueries(c, project)
	ctx := context.Background()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		i++
		began := time.Now()
		if _, err := store.Search(ctx, db.R, q); err != nil {
			b.Fatal(err)
		}
		d := time.Since(began)
		lat = append(lat, d)
		if d > 50*time.Millisecond && i <= len(queries) && os.Getenv("JC_SEARCH_BENCH_SLOW") != "" {
			fmt.Printf("slow query %+v: %v\n", q, d)
		}
	}
	look := benchLookups(b, db, len(lat))
	p50, p95 := percentile(lat, 0.50), percentile(lat, 0.95)
	l50, l95 := percentile(look, 0.50), percentile(look, 0.95)
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p95.Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(p95)/float64(l95), "p95-x-lookup")
	fmt.Printf("search over %d messages: %d queries, p50 %v, p95 %v (limit 50 ms: p95 at %.2fx of the limit), max %v\n",
		n, len(lat), p50, p95, float64(p95)/float64(50*time.Millisecond), lat[len(lat)-1])
	fmt.Printf("search vs a plain indexed lookup in the same run (a task's newest 50 messages by (taskId, messageIndex)): lookup p50 %v, p95 %v; search p50 %.1fx, p95 %.1fx the lookup\n",
		l50, l95, float64(p50)/float64(l50), float64(p95)/float64(l95))
}

// percentile of sorted-in-place durations.
func percentile(lat []time.Duration, f float64) time.Duration {
	slices.Sort(lat)
	return lat[min(len(lat)-1, int(f*float64(len(lat))))]
}

// benchLookups times n plain indexed lookups on the same database: a page of
// a task's newest 50 messages with their text, what opening a task reads.
// It is the floor the search is compared to.
func benchLookups(b *testing.B, db *store.DB, n int) []time.Duration {
	var tasks []string
	rows, err := db.R.Query(`SELECT id FROM tasks ORDER BY id`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		tasks = append(tasks, id)
	}
	rows.Close()
	lat := make([]time.Duration, 0, max(n, 1))
	for i := range max(n, 1) {
		began := time.Now()
		rows, err := db.R.Query(`SELECT id, messageId, role, normalizedData FROM agent_messages
			WHERE taskId = ? ORDER BY messageIndex DESC LIMIT 50`, tasks[(i*37)%len(tasks)])
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var mid, role, data string
			rows.Scan(&id, &mid, &role, &data)
		}
		rows.Close()
		lat = append(lat, time.Since(began))
	}
	return lat
}

// benchQueries mixes frequent, middling and rare words, two-word queries,
// identifiers, filters and a two-character CJK term.
func benchQueries(c *benchCorpus, project string) []store.SearchQuery {
	var qs []store.SearchQuery
	for _, rank := range []int{0, 3, 10, 50, 200, 1000, 5000, 15000, 19999} {
		w := c.vocab[rank]
		qs = append(qs,
			store.SearchQuery{Text: w},
			store.SearchQuery{Text: w + " " + c.vocab[rank/2+1]},
			store.SearchQuery{Text: w, ProjectID: project},
			store.SearchQuery{Text: w, Role: "user", Agent: "codex"},
			store.SearchQuery{Text: w, From: 1_700_000_000_000 + 400_000_000, To: 1_700_000_000_000 + 600_000_000},
		)
	}
	for _, w := range c.vocab {
		if strings.Contains(w, "_id") || strings.Contains(w, "Handler") || strings.HasPrefix(w, "src/") {
			qs = append(qs, store.SearchQuery{Text: w})
			if len(qs) > 60 {
				break
			}
		}
	}
	return append(qs, store.SearchQuery{Text: "東京"}, store.SearchQuery{Text: "検索"}, store.SearchQuery{Text: "quaé"})
}

package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// CmdSearch searches every task's messages.
const CmdSearch Command = "search"

func searchUsage(fs *flag.FlagSet, env Env) func() {
	return func() {
		fmt.Fprintln(env.Stderr, "Usage: jean-claude search [--project P] [--agent A] [--role R] [--since DATE] [--until DATE] [--limit N] [--json] QUERY...")
		fs.PrintDefaults()
	}
}

// searchCmd prints the messages matching the query, newest first, one a
// line: date, project / task, role, snippet with matches in **bold**.
func searchCmd(ctx context.Context, opt Options, env Env) int {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	project := fs.String("project", "", "only this project (name, path or id)")
	agentName := fs.String("agent", "", "only tasks of this agent backend (claude-code, opencode, ...)")
	role := fs.String("role", "", "only messages of this role (user, assistant, system, result)")
	since := fs.String("since", "", "only messages from this day on (YYYY-MM-DD, local time)")
	until := fs.String("until", "", "only messages up to this day included (YYYY-MM-DD, local time)")
	limit := fs.Int("limit", 20, "at most this many results")
	asJSON := fs.Bool("json", false, "print each hit as a JSON object, one a line")
	fs.Usage = searchUsage(fs, env)
	if err := fs.Parse(opt.Args); err != nil {
		return ExitUsage
	}
	q := store.SearchQuery{Text: strings.Join(fs.Args(), " "), Agent: *agentName, Role: *role, Limit: *limit}
	if strings.TrimSpace(q.Text) == "" {
		fmt.Fprintln(env.Stderr, "search: no query")
		return ExitUsage
	}
	var err error
	if q.From, err = day(*since, 0); err != nil {
		fmt.Fprintf(env.Stderr, "search: --since: %v\n", err)
		return ExitUsage
	}
	if q.To, err = day(*until, 24*time.Hour-time.Millisecond); err != nil {
		fmt.Fprintf(env.Stderr, "search: --until: %v\n", err)
		return ExitUsage
	}
	db, err := store.Open(ctx, opt.DB, store.Options{})
	if err != nil {
		fmt.Fprintf(env.Stderr, "jean-claude: %v\n", err)
		return ExitError
	}
	defer db.Close()
	if *project != "" {
		if q.ProjectID, err = findProject(ctx, db, *project); err != nil {
			fmt.Fprintf(env.Stderr, "search: %v\n", err)
			return ExitUsage
		}
	}
	hits, err := store.Search(ctx, db.R, q)
	if err != nil {
		fmt.Fprintf(env.Stderr, "search: %v\n", err)
		return ExitError
	}
	printHits(env, hits, *asJSON)
	return ExitOK
}

func printHits(env Env, hits []store.SearchHit, asJSON bool) {
	enc := json.NewEncoder(env.Stdout)
	bold := strings.NewReplacer(store.MarkStart, "**", store.MarkEnd, "**", "\n", " ")
	for _, h := range hits {
		if asJSON {
			_ = enc.Encode(h)
			continue
		}
		task := h.TaskName
		if task == "" {
			task = firstLine(h.TaskPrompt, 40)
		}
		fmt.Fprintf(env.Stdout, "%s  %s / %s  [%s] task %s message %s\n    %s\n",
			time.UnixMilli(h.CreatedAt).Format("2006-01-02 15:04"), h.ProjectName, task, h.Role,
			h.TaskID, h.MessageID, bold.Replace(h.Snippet))
	}
	if !asJSON && len(hits) == 0 {
		fmt.Fprintln(env.Stderr, "no match")
	}
}

// day parses YYYY-MM-DD (local time) into milliseconds plus add; "" is 0.
func day(s string, add time.Duration) (int64, error) {
	if s == "" {
		return 0, nil
	}
	t, err := time.ParseInLocation("2006-01-02", s, time.Local)
	if err != nil {
		return 0, err
	}
	return t.Add(add).UnixMilli(), nil
}

// findProject resolves a project by id, path or name.
func findProject(ctx context.Context, db *store.DB, key string) (string, error) {
	ps, err := store.ListProjects(ctx, db.R)
	if err != nil {
		return "", err
	}
	for _, p := range ps {
		if p.ID == key || p.Path == key || p.Name == key {
			return p.ID, nil
		}
	}
	return "", fmt.Errorf("no project %q", key)
}

func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

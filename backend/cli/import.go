package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/history/importer"
	"github.com/jean-claude/jean-claude/backend/store"
)

// CmdImport imports the sessions the agent CLIs keep on disk.
const CmdImport Command = "import"

// importCmd lists the sessions the CLIs saved for PATH (a project folder,
// or a session file; none = every folder) and imports those no task holds
// yet, each as a completed task that resumes the CLI's session.
func importCmd(ctx context.Context, opt Options, env Env) int {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	var formats []string
	for _, s := range importer.Sources() {
		formats = append(formats, s.Format())
	}
	from := fs.String("from", "", "only this CLI's sessions ("+strings.Join(formats, ", ")+")")
	list := fs.Bool("list", false, "list the sessions found, import nothing")
	home := fs.String("home", "", "the home folder the CLIs keep their sessions under (default $HOME)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: jean-claude import [--from AGENT] [--list] [--home DIR] [PATH]")
		fmt.Fprintln(env.Stderr, "PATH is a project folder (its sessions) or a session file; without it, every session found.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(opt.Args); err != nil {
		return ExitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(env.Stderr, "import: at most one PATH")
		return ExitUsage
	}
	if *from != "" {
		if _, err := importer.SourceNamed(*from); err != nil {
			fmt.Fprintf(env.Stderr, "import: %v\n", err)
			return ExitUsage
		}
	}
	path, err := importPath(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(env.Stderr, "import: %v\n", err)
		return ExitUsage
	}
	if *home == "" {
		if *home, err = os.UserHomeDir(); err != nil {
			fmt.Fprintf(env.Stderr, "import: %v\n", err)
			return ExitError
		}
	}
	db, err := store.Open(ctx, opt.DB, store.Options{})
	if err != nil {
		fmt.Fprintf(env.Stderr, "jean-claude: %v\n", err)
		return ExitError
	}
	defer db.Close()
	sessions, err := importer.Find(ctx, db, *home, path, *from)
	if err != nil {
		fmt.Fprintf(env.Stderr, "import: %v\n", err)
		return ExitError
	}
	if len(sessions) == 0 {
		fmt.Fprintln(env.Stderr, "import: no session found")
		return ExitOK
	}
	return importSessions(ctx, db, env, sessions, *list)
}

func importPath(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", err
	}
	return abs, nil
}

func importSessions(ctx context.Context, db *store.DB, env Env, sessions []importer.Session, list bool) int {
	code := ExitOK
	for _, s := range sessions {
		line := fmt.Sprintf("%s  %-11s %s  %7s  %s", time.UnixMilli(s.StartedAt).Format("2006-01-02 15:04"), s.Format,
			s.ID, size(s.Size), firstLine(s.FirstPrompt, 60))
		switch {
		case s.TaskID != "":
			fmt.Fprintf(env.Stdout, "%s\n    already imported: task %s\n", line, s.TaskID)
		case list:
			fmt.Fprintf(env.Stdout, "%s\n    %s (%s)\n", line, s.Path, s.Cwd)
		default:
			src, _ := importer.SourceNamed(s.Format)
			id, err := importer.Import(ctx, db, src, s, "")
			if errors.Is(err, importer.ErrImported) {
				fmt.Fprintf(env.Stdout, "%s\n    already imported: task %s\n", line, id)
				continue
			}
			if err != nil {
				fmt.Fprintf(env.Stdout, "%s\n    failed: %v\n", line, err)
				code = ExitError
				continue
			}
			fmt.Fprintf(env.Stdout, "%s\n    imported: task %s\n", line, id)
		}
	}
	return code
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

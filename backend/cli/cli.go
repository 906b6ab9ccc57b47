// Package cli is the headless side of the jean-claude binary: it parses the
// command line and runs the subcommands that never open a window (migrate,
// normalize, search, import). main.go starts the desktop app only when Parse says so.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1 // the command failed (I/O, database)
	ExitUsage = 2 // bad command line
)

// Command is what the command line asks for.
type Command string

// Commands.
const (
	CmdGUI       Command = ""          // start the desktop app
	CmdVersion   Command = "version"   // --version
	CmdHelp      Command = "help"      // -h, --help
	CmdMigrate   Command = "migrate"   // run the migrations and exit
	CmdNormalize Command = "normalize" // normalize raw agent output to event JSON lines
	CmdRelay     Command = "relay"     // run an agent under a relay, or bridge stdio to one (docs/relay.md)
)

// Options is the parsed command line.
type Options struct {
	Command Command
	// DB is the database path: --db, else $JEAN_CLAUDE_DB, else the
	// default; always absolute.
	DB string
	// Args are the subcommand's own arguments.
	Args []string
}

// devFlags are the flags a Wails dev build reads itself (see
// wails/v2/internal/app/app_dev.go); they are accepted and ignored here so
// `jean-claude-dev -devserver 127.0.0.1:PORT -assetdir frontend/dist` works.
var devFlags = []string{"devserver", "assetdir", "frontenddevserverurl", "loglevel"}

// Parse reads the command line (without the program name).
func Parse(args []string, stderr io.Writer) (Options, error) {
	fs := flag.NewFlagSet("jean-claude", flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.Bool("version", false, "print the version and exit")
	db := fs.String("db", "", "database file (default $"+store.EnvDB+", else <user config dir>/jean-claude/jean-claude.db)")
	for _, n := range devFlags {
		fs.String(n, "", "Wails dev builds only")
	}
	// Usage is printed once: by CmdHelp for -h/--help (on stdout), here
	// after a bad flag (on stderr), never by the flag package as well.
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return Options{Command: CmdHelp}, nil
		}
		usage(fs)
		return Options{}, err
	}
	opt := Options{DB: *db}
	if *version {
		opt.Command = CmdVersion
		return opt, nil
	}
	if fs.NArg() > 0 {
		switch c := Command(fs.Arg(0)); c {
		case CmdMigrate, CmdNormalize, CmdVersion, CmdHelp, CmdSearch, CmdImport, CmdRelay:
			opt.Command = c
			opt.Args = fs.Args()[1:]
		default:
			fmt.Fprintf(stderr, "unknown command %q\n", fs.Arg(0))
			usage(fs)
			return Options{}, fmt.Errorf("unknown command %q", fs.Arg(0))
		}
	}
	if opt.DB == "" {
		p, err := store.DefaultPath()
		if err != nil {
			return Options{}, err
		}
		opt.DB = p
	}
	abs, err := filepath.Abs(opt.DB)
	if err != nil {
		return Options{}, fmt.Errorf("--db %s: %w", opt.DB, err)
	}
	opt.DB = abs
	return opt, nil
}

func usage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprint(w, `Usage:
  jean-claude [--db PATH]                       start the desktop app
  jean-claude --version                         print the version
  jean-claude [--db PATH] migrate               migrate the database, print its version
  jean-claude normalize --format NAME [FILE]    normalize raw agent output (FILE or stdin)
                                                to agent events, one JSON object a line
  jean-claude [--db PATH] search [FLAGS] QUERY  search every task's messages (search --help)
  jean-claude [--db PATH] import [--from AGENT] [PATH]
                                                import the sessions the agent CLIs keep on disk
                                                (import --help)
  jean-claude relay                             run one agent under a relay (started by the app)
  jean-claude relay dial SOCKET                 bridge stdio to a relay's socket (for ssh)
Flags:
  --db PATH    database file (also $`+store.EnvDB+`)
  --version    print the version and exit
`)
}

// Env is what a command reads and writes.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Version        string
	// Formats are the raw formats normalize knows (agents.Formats()).
	Formats *agent.Formats
}

// Run runs a headless command and returns the process exit code.
func Run(ctx context.Context, opt Options, env Env) int {
	switch opt.Command {
	case CmdVersion:
		fmt.Fprintf(env.Stdout, "jean-claude %s\n", env.Version)
		return ExitOK
	case CmdHelp:
		fs := flag.NewFlagSet("jean-claude", flag.ContinueOnError)
		fs.SetOutput(env.Stdout)
		usage(fs)
		return ExitOK
	case CmdMigrate:
		return migrateCmd(ctx, opt, env)
	case CmdNormalize:
		return normalizeCmd(opt.Args, env)
	case CmdSearch:
		return searchCmd(ctx, opt, env)
	case CmdImport:
		return importCmd(ctx, opt, env)
	case CmdRelay:
		return relay.Main(opt.Args, env.Stdin, env.Stdout, env.Stderr)
	default:
		fmt.Fprintf(env.Stderr, "jean-claude: %q is not a headless command\n", opt.Command)
		return ExitUsage
	}
}

func migrateCmd(ctx context.Context, opt Options, env Env) int {
	if len(opt.Args) > 0 {
		fmt.Fprintf(env.Stderr, "migrate takes no arguments (got %q)\n", strings.Join(opt.Args, " "))
		return ExitUsage
	}
	db, err := store.Open(ctx, opt.DB, store.Options{})
	if err != nil {
		fmt.Fprintf(env.Stderr, "jean-claude: %v\n", err)
		return ExitError
	}
	if err := db.Close(); err != nil {
		fmt.Fprintf(env.Stderr, "jean-claude: close %s: %v\n", opt.DB, err)
		return ExitError
	}
	v, _, err := store.SchemaVersion(ctx, opt.DB)
	if err != nil {
		fmt.Fprintf(env.Stderr, "jean-claude: %v\n", err)
		return ExitError
	}
	fmt.Fprintf(env.Stdout, "%s: schema version %d\n", opt.DB, v)
	return ExitOK
}

func normalizeCmd(args []string, env Env) int {
	fs := flag.NewFlagSet("normalize", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	format := fs.String("format", "", "raw format of the input (one of: "+strings.Join(env.Formats.Names(), ", ")+")")
	each := fs.Bool("each-delta", false, "print every delta event as the agent sent it (default: adjacent deltas to the same part are printed as one)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: jean-claude normalize --format NAME [FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(env.Stderr, "normalize: at most one FILE")
		return ExitUsage
	}
	f, err := env.Formats.Get(*format)
	if err != nil {
		fmt.Fprintf(env.Stderr, "normalize: %v\n", err)
		return ExitUsage
	}
	in := env.Stdin
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		file, err := os.Open(fs.Arg(0))
		if err != nil {
			fmt.Fprintf(env.Stderr, "normalize: %v\n", err)
			return ExitError
		}
		defer file.Close()
		in = file
	}
	out := agent.NewEventWriter(env.Stdout, *each)
	for ev, err := range agent.Normalize(f, in) {
		if err != nil {
			fmt.Fprintf(env.Stderr, "normalize: read: %v\n", err)
			return ExitError
		}
		if err := out.Write(ev); err != nil {
			fmt.Fprintf(env.Stderr, "normalize: write: %v\n", err)
			return ExitError
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(env.Stderr, "normalize: write: %v\n", err)
		return ExitError
	}
	return ExitOK
}

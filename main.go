// Command jean-claude is the Jean-Claude desktop app: it runs AI coding
// agents side by side over local git projects. main only wires: it parses
// the command line, runs a headless subcommand or opens the database,
// builds the services and hands them to Wails.
package main

import (
	"context"
	_ "embed" // the icon
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/cli"
	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/inbox"
	"github.com/jean-claude/jean-claude/backend/instance"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/remote"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/term"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

//go:embed build/appicon.png
var icon []byte

// version is set with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run())
}

func run() int {
	opt, err := cli.Parse(os.Args[1:], os.Stderr)
	if err != nil {
		return cli.ExitUsage
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if opt.Command != cli.CmdGUI {
		return cli.Run(ctx, opt, cli.Env{
			Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
			Version: version, Formats: agents.Formats(),
		})
	}
	return runGUI(ctx, cancel, opt)
}

// runGUI runs the desktop app until its window is closed.
func runGUI(ctx context.Context, cancel context.CancelFunc, opt cli.Options) int {
	servePprof(os.Getenv) // dev builds: JEAN_CLAUDE_PPROF
	lock, code, ok := singleInstance(opt.DB)
	if !ok {
		return code
	}
	if lock != nil {
		defer lock.Close()
	}
	// Open (and migrate) the database before any window: a failed or
	// dirty migration stops here with the reason on stderr.
	var db *store.DB
	if !bindingsBuild {
		var err error
		if db, err = store.Open(ctx, opt.DB, store.Options{}); err != nil {
			fmt.Fprintf(os.Stderr, "jean-claude: cannot open the database: %v\n", err)
			return cli.ExitError
		}
	}
	aw := newAgentsWiring(ctx, db, opt.DB)
	reg := agentRegistry(ctx, aw, db, opt.DB)
	app := NewApp(db, reg, cancel)
	app.appSvc = services.NewAppService(version, opt.DB)
	// Git worktrees per task (issue 8); without git, tasks run in the
	// project folder and the git actions say why they cannot run.
	gitRunner, gitErr := gitx.New(gitx.Options{})
	if gitErr != nil {
		fmt.Fprintf(os.Stderr, "jean-claude: %v: tasks run in the project folder\n", gitErr)
	}
	workspaces := workspace.New(db, gitRunner, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	cw := newCompareWiring(ctx, db) // usage limits, dashboard, comparisons (issue 17)
	sshPool, hostTasks := remoteHosts(ctx, opt.DB, db, workspaces)
	if sshPool != nil {
		defer sshPool.Close()
	}
	sess, err := newSessions(ctx, db, reg, cw.watch(app), workspaces, hostTasks, app.openInboxItem, aw.Resolver(), cw.options)
	if err != nil {
		fmt.Fprintf(os.Stderr, "jean-claude: %v\n", err)
		return cli.ExitError
	}
	app.sessions = sess
	tasks := services.NewTaskService(ctx, db, reg, app, workspaces, sess.ender())
	if sess.sum != nil {
		services.SetTaskTitler(tasks, sess.sum) // one-shot titles when a summary agent is set
	}
	if db != nil {
		// The attention inbox: recomputed after every stored change the
		// window is told about; its notifications withdrawn when answered.
		app.inbox = &inbox.Watcher{DB: db, Out: app, Withdraw: sess.notifier, OnCount: app.setInboxCount}
	}
	cw.finish(reg, app, workspaces, sess.o, sess.ender())
	defer cw.stop()
	// The embedded terminal (agent sign-in); every PTY is killed at exit.
	app.terms = term.NewManager(app)
	workspaces.SetTerminals(services.CloseTaskTerminals(app.terms)) // a deleted task's shells die with it
	if lock != nil {
		lock.Serve(app.bringForward)
	}
	agentsSvc := services.NewAgentService(ctx, aw.Manager, reg, app, aw.SpecList)
	bind := []any{
		app.appSvc,
		services.NewProjectService(ctx, db, reg, app, app, sess.ender(), workspaces),
		tasks,
		services.NewSettingsService(ctx, db, reg),
		sess.svc,
		agentsSvc,
		services.NewGitService(ctx, workspaces, app),
		services.NewHostService(ctx, db, sshPool, remote.DefaultConfigPath(), app),
		services.NewOpenService(ctx, db, workspaces, app),
		services.NewTerminalService(ctx, app.terms, aw.Manager, aw.SpecList, workspaces),
		services.NewHistoryService(ctx, db, reg, app),
		services.NewInboxService(ctx, db, sess.o),
		cw.usage,
		cw.bound,
	}
	if err := runWindow(app, db, agentsSvc, sshPool, bind); err != nil {
		fmt.Fprintf(os.Stderr, "jean-claude: %v\n", err)
		if db != nil {
			db.Close()
		}
		return cli.ExitError
	}
	return cli.ExitOK
}

// singleInstance takes the profile's instance lock (nil in the bindings
// build). A second launch brings the first window forward and exits before
// it touches the database: ok is false then, with the exit code.
func singleInstance(dbPath string) (lock *instance.Lock, code int, ok bool) {
	if bindingsBuild {
		return nil, 0, true
	}
	lock, err := instance.Acquire(dbPath)
	if errors.Is(err, instance.ErrRunning) {
		if ferr := instance.BringForward(dbPath); ferr != nil {
			fmt.Fprintf(os.Stderr, "jean-claude: %v (%v)\n", err, ferr)
			return nil, cli.ExitError, false
		}
		fmt.Fprintln(os.Stderr, "jean-claude: already running with this profile: its window was brought forward")
		return nil, cli.ExitOK, false
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "jean-claude: %v\n", err)
		return nil, cli.ExitError, false
	}
	return lock, 0, true
}

// agentRegistry is the agents' registry, every process its backends start
// recorded in db (reaped after a crash) and their relays and OpenCode host
// servers kept beside it.
func agentRegistry(ctx context.Context, aw *agentmgr.Setup, db *store.DB, dbPath string) *agent.Registry {
	if db != nil {
		aw.Registry.Recorder = &store.ProcessLog{DB: db} // every process the backends start, reaped after a crash
		aw.Registry.Relays = relaysOf(ctx, db)           // OpenCode's server outlives the app too
		// and so does its server on a host: its port and password here (0600)
		aw.Registry.HostServers = filepath.Join(filepath.Dir(dbPath), "opencode-hosts")
	}
	reg := agents.NewRegistry(aw.Registry)
	aw.Manager.WrapRegistry(ctx, reg, aw.Specs, aw.Registry)
	return reg
}

// remoteHosts is the pool of ssh connections to remote hosts (issue 21:
// one multiplexed connection per host, the system ssh) and the runner of
// remote projects' agents there; nil, nil without ssh (said on stderr).
// Projects on a host run git there.
func remoteHosts(ctx context.Context, dbPath string, db *store.DB, workspaces *workspace.Manager) (*remote.Pool, orchestrator.Hosts) {
	if bindingsBuild {
		return nil, nil
	}
	pool, err := remote.NewPool(remote.Options{ControlDir: remote.ControlDirFor(filepath.Dir(dbPath)),
		ConfigFile: remote.ConfigOverride(remote.DefaultConfigPath(), remote.PasswdHome())})
	if err != nil {
		fmt.Fprintf(os.Stderr, "jean-claude: %v: remote hosts are not available\n", err)
		return nil, nil
	}
	if db == nil {
		return pool, nil
	}
	gits := &remote.ProjectGits{Pool: pool, DB: db, Log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	workspaces.SetRemote(gits)
	go gits.RunRemovals(ctx) // worktrees of tasks deleted while their host was away
	return pool, &remote.Tasks{Pool: pool, DB: db, Stops: remote.StoredStops(db)}
}

// runWindow runs the window (GTK and WebKit) until it closes, the services
// in bind bound to the frontend.
func runWindow(app *App, db *store.DB, agentsSvc *services.AgentService, sshPool *remote.Pool, bind []any) error {
	app.webProcessStarted = setForWebProcess(webProcessEnv, envFuncs{os.LookupEnv, os.Setenv, os.Unsetenv})
	// GTK and WebKit must be set up and run on one thread: the web
	// context's memory-pressure settings (webmemory_linux.go) touch WebKit's
	// types before wails.Run, which locks the thread only inside it, to
	// whichever thread the main goroutine is on by then. Unlocked, WebKit
	// aborted in Wails' SetupWebview in 5 of 40 starts under load; locked,
	// in none (README "Run 18").
	runtime.LockOSThread()
	gpu := webviewGpuPolicy(os.Getenv, warnStderr)
	if p, on := webMemoryPressureFor(os.Getenv, warnStderr, gpu); on && !setWebMemoryPressure(p) {
		warnStderr("this WebKitGTK has no memory-pressure settings: the window's web process keeps WebKit's")
	}
	return wails.Run(&options.App{
		Title:     "Jean-Claude",
		Width:     1280,
		Height:    800,
		MinWidth:  900,
		MinHeight: 600,
		// The window paints the theme's background, then the boot shell
		// of index.html with the projects inlined (issue 20).
		BackgroundColour: windowBackground(),
		AssetServer: &assetserver.Options{
			Assets:     frontendAssets(),
			Middleware: assetMiddleware(bootMiddleware(db, agentsSvc), app.feed.Middleware),
		},
		OnStartup:     app.startup,
		OnDomReady:    app.domReady,    // the start's memory given back once the page has loaded
		OnBeforeClose: app.beforeClose, // quit: keep or stop running tasks, or ask (quit.go)
		OnShutdown: func(ctx context.Context) {
			app.shutdown(ctx)
			if sshPool != nil {
				sshPool.Close() // the ssh master connections end with the app
			}
		},
		Bind: bind,
		EnumBind: []any{
			agent.AllPartTypes,
			agent.AllEventTypes,
			agent.AllToolKinds,
			agent.AllToolStates,
			agent.AllInteractionModes,
			agent.AllRoles,
			services.AllTaskStatuses,
			services.AllIndicators,
		},
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "jean-claude",
			WebviewGpuPolicy: gpu,
		},
	})
}

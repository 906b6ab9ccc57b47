package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/mcpserver"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/summary"
	"github.com/jean-claude/jean-claude/backend/tasks"
	"github.com/jean-claude/jean-claude/backend/workspace"
	"github.com/jean-claude/jean-claude/backend/wtsetup"
)

// sessions wires the orchestrator: the session loop, its notifier and the
// bound SessionService. In the bindings build (no database) only the
// service exists, for its method signatures.
type sessions struct {
	o        *orchestrator.Orchestrator
	mcp      *mcpserver.Server // the agents' MCP server (nil: none)
	db       *store.DB
	notifier *notify.Async
	svc      *services.SessionService
	cancel   context.CancelFunc
	relays   bool               // agents run behind relays (the "relays" setting at start)
	sum      *summary.Summaries // one-shot titles and summaries (nil: none)
}

// newSessions builds the orchestrator over db and reg, emitting through
// emit. ws may be nil (agents then run in the project folder).
// onAction is called with the inbox key of a clicked desktop notification;
// resolve finds the summary agent's CLI (nil: no summaries).
func newSessions(ctx context.Context, db *store.DB, reg *agent.Registry, emit orchestrator.Emitter, ws *workspace.Manager,
	hosts orchestrator.Hosts, onAction func(key string), resolve summary.BinaryResolver, extra ...func(*orchestrator.Options)) (*sessions, error) {
	if db == nil {
		return &sessions{svc: services.NewSessionService(ctx, nil, nil)}, nil
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	// Clickable notifications over D-Bus where the server offers actions
	// (issue 17), beeep otherwise.
	n := notify.NewAsync(notify.NewDesktop("Jean-Claude", "", onAction, log), 32, log)
	sum := &summary.Summaries{DB: db, Changed: services.TaskUpdated(emit), Resolve: resolve, Log: log}
	var mcp *mcpserver.Server // set below: the server needs the orchestrator
	relays := relaysOf(ctx, db)
	opt := orchestrator.Options{
		DB: db, Backends: reg, Formats: agents.Formats(), Emitter: emit, Notifier: n, Logger: log,
		TaskView: services.TaskViewOf, OnRunEnd: sum.RunEnded, Relays: relays, Hosts: hosts,
		// Memory back once no turn runs (trim.go), after the event feed
		// has let go of the last events (feedKeep).
		IdleTrim: idleTrim(db, log), IdleDelay: feedKeep + 15*time.Second,
		MCP: func(ctx context.Context, t store.TaskRun) (*agent.MCPServer, error) {
			if mcp == nil {
				return nil, nil
			}
			return mcp.For(ctx, t.ID) // an adopted agent's previous token works again
		},
	}
	if ws != nil {
		opt.Workspace = ws // agents run in the task's worktree, prepared before each start
	}
	for _, f := range extra {
		f(&opt)
	}
	o, err := orchestrator.New(opt)
	if err != nil {
		return nil, err
	}
	if ws != nil {
		// Worktree setup output is stored and shown like agent output.
		ws.SetSetupSink(func(ctx context.Context, taskID string) (workspace.FrameWriter, error) {
			return o.FrameSink(ctx, taskID, wtsetup.Format())
		})
	}
	mcp, err = mcpserver.New(mcpserver.Options{DB: db, Orchestrator: o, Logger: log,
		Diff:     mcpserver.WorkspaceDiff(ws),
		Backends: reg.Names,
		// Agents behind relays outlive the app: the next app listens at the
		// same address and their tokens work again once adopted.
		StateFile: filepath.Join(filepath.Dir(db.Path), "mcp-server.json"),
	})
	if err != nil {
		// Agents then run without the app's tools; the app still works.
		fmt.Fprintf(os.Stderr, "jean-claude: MCP server: %v\n", err)
		mcp = nil
	}
	return &sessions{o: o, db: db, mcp: mcp, notifier: n, relays: relays != nil, sum: sum, svc: services.NewSessionService(ctx, db, o)}, nil
}

// revoker ends a task's tokens of the app's MCP server (mcpserver.Server).
type revoker interface{ Revoke(taskID string) }

// taskEnd stops a task that is being deleted, alone or with its project:
// its agent ended by stop, then its tokens of the app's MCP server revoked,
// so that whoever still holds one (an agent's config file, a copied
// request) can no longer act for a task that is going away. A stop that
// fails revokes nothing: the task is kept and its agent may still run. A
// delete refused after the stop (a dirty worktree) leaves the task without
// a token until its next session, which is granted a new one.
type taskEnd struct {
	stop   tasks.Stopper
	tokens revoker
}

func (e taskEnd) Stop(ctx context.Context, taskID string) error {
	err := e.stop.Stop(ctx, taskID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if e.tokens != nil {
		e.tokens.Revoke(taskID)
	}
	return err
}

// ender is what deleting a task stops it with (taskEnd), nil in the
// bindings build (no orchestrator).
func (s *sessions) ender() tasks.Stopper {
	if s.o == nil {
		return nil
	}
	e := taskEnd{stop: s.o}
	if s.mcp != nil {
		e.tokens = s.mcp
	}
	return e
}

// relaysOf is the relay transport the settings ask for (relay.Configured).
func relaysOf(ctx context.Context, db *store.DB) *relay.Transport {
	on, _, _ := store.SettingValue(ctx, db.R, store.SettingRelays)
	idle, _, _ := store.SettingValue(ctx, db.R, store.SettingRelayIdleStop)
	return relay.Configured(filepath.Dir(db.Path), on, idle)
}

// start recovers tasks a previous run left running and re-normalizes old
// messages in the background; it never blocks startup on the latter.
func (s *sessions) start(ctx context.Context) {
	if s.o == nil {
		return
	}
	if _, err := s.o.Recover(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "jean-claude: recovering tasks: %v\n", err)
	}
	if s.mcp != nil {
		s.mcp.ForgetKept() // the previous app's tokens of tasks not adopted
	}
	go sweepPrivateDirs()
	rctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	go func() {
		if _, err := s.o.Renormalize(rctx); err != nil && rctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "jean-claude: re-normalizing messages: %v\n", err)
		}
	}()
}

// sweepPrivateDirs removes the MCP config dirs (with their token) that
// apps no longer running left behind (a crash, a kill), and says so.
func sweepPrivateDirs() {
	removed, err := agent.SweepPrivateDirs(24 * time.Hour)
	if len(removed) > 0 {
		fmt.Fprintf(os.Stderr, "jean-claude: removed %d private dirs (agents' MCP configs) left by apps no longer running\n", len(removed))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "jean-claude: removing private dirs left by apps no longer running: %v\n", err)
	}
}

// stop ends every agent session (no orphan processes) and flushes the
// notification queue. Call it before disposing the backends.
func (s *sessions) stop(ctx context.Context) {
	if s.o == nil {
		return
	}
	if s.cancel != nil {
		s.cancel()
	}
	if v, _, _ := store.SettingValue(ctx, s.db.R, store.SettingQuitRunning); v == "keep" {
		s.o.SetKeepOnQuit(true)
	}
	if err := s.o.Close(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "jean-claude: stopping agent sessions: %v\n", err)
	}
	if s.mcp != nil {
		_ = s.mcp.Close(ctx)
	}
	_ = s.notifier.Close(ctx)
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
)

// sessions wires the orchestrator: the session loop, its notifier and the
// bound SessionService. In the bindings build (no database) only the
// service exists, for its method signatures.
type sessions struct {
	o        *orchestrator.Orchestrator
	notifier *notify.Async
	svc      *services.SessionService
	cancel   context.CancelFunc
}

// newSessions builds the orchestrator over db and reg, emitting through
// emit. ws may be nil (agents then run in the project folder).
func newSessions(ctx context.Context, db *store.DB, reg *agent.Registry, emit orchestrator.Emitter, ws *services.Workspaces, extra ...func(*orchestrator.Options)) (*sessions, error) {
	if db == nil {
		return &sessions{svc: services.NewSessionService(ctx, nil, nil)}, nil
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	n := notify.NewAsync(notify.NewBeeep("Jean-Claude", ""), 32, log)
	cwd, onEnd := services.WorkspaceHooks(ws, log)
	opt := orchestrator.Options{
		DB: db, Backends: reg, Formats: agents.Formats(), Emitter: emit, Notifier: n, Logger: log,
		TaskView: services.TaskViewOf, Cwd: cwd, OnRunEnd: onEnd,
	}
	for _, f := range extra {
		f(&opt)
	}
	o, err := orchestrator.New(opt)
	if err != nil {
		return nil, err
	}
	return &sessions{o: o, notifier: n, svc: services.NewSessionService(ctx, db, o)}, nil
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
	rctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	go func() {
		if _, err := s.o.Renormalize(rctx); err != nil && rctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "jean-claude: re-normalizing messages: %v\n", err)
		}
	}()
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
	if err := s.o.Close(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "jean-claude: stopping agent sessions: %v\n", err)
	}
	_ = s.notifier.Close(ctx)
}

// Package orchestrator is Jean-Claude's backend-agnostic session loop: it
// starts agent sessions through the agent.Backend contract, stores every raw
// frame and the normalized messages made of it in one transaction, then
// emits them to the frontend; it keeps the task state machine
// (created → running ⇄ waiting → completed | errored | interrupted), the
// follow-up queue, pending permission requests and questions, "always allow"
// rules, desktop notifications, recovery of tasks a closed app left behind,
// and background re-normalization of stored history.
//
// Storage: each agent.Batch is stored whole (its raw frame first, then its
// messages and the state changes it causes) inside one write transaction;
// batches that are already waiting when the loop takes one are stored in the
// same transaction, in order (group commit), never split.
//
// Nothing is emitted before it is stored. Per task, events go out in the
// order they were stored; message updates may be coalesced for a short
// window (the latest version wins), every other event flushes them and is
// emitted at once. Events sent to the frontend (see emit.go for payloads):
//
//	agent:event          AgentEventPayload {taskId, seq, event}
//	permission:decided   DecisionPayload {taskId, seq, decision} (seq shared with agent:event)
//	task:updated         the Task DTO (Options.TaskView)
//	queue:updated        QueuePayload {taskId, items}
//	requests:updated     RequestsPayload {taskId, requests}
//	question:answered    AnswerPayload {taskId, answer}
//	renormalize:progress ProgressPayload {done, total}
package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
	"github.com/jean-claude/jean-claude/backend/limits"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Texts the user sees in statusReason.
const (
	ReasonAppClosed = "Jean-Claude was closed while this task was running"
	ReasonStopped   = "Stopped by user"
)

// ResumePrompt is the turn sent when a task is resumed with nothing queued.
const ResumePrompt = "continue"

// UserMessageFormat is the rawFormat of user messages the orchestrator
// stores itself (follow-ups the backend does not echo).
const UserMessageFormat = "jean-claude"

// Errors callers branch on.
var (
	// ErrBusy: the task already has a live session.
	ErrBusy = errors.New("task is already running")
	// ErrNotRunning: the task has no live session.
	ErrNotRunning = errors.New("task is not running")
	// ErrClosed: the orchestrator was closed.
	ErrClosed = errors.New("orchestrator closed")
	// ErrInvalid: a bad argument (unknown mode, empty message, ...).
	ErrInvalid = errors.New("invalid argument")
)

// Backends looks backends up by name (*agent.Registry does).
type Backends interface {
	Get(name agent.BackendType) (agent.Backend, error)
}

// Workspace is where tasks' agents run (workspace.Manager: one git
// worktree per task).
type Workspace interface {
	// Cwd prepares task t's working directory (creating it on the first
	// run) and returns it; an error keeps the agent from starting.
	Cwd(ctx context.Context, t store.TaskRun) (string, error)
	// RunEnded is called after a run ended and its end was stored.
	RunEnded(ctx context.Context, taskID string)
}

// Options configure an Orchestrator.
type Options struct {
	DB       *store.DB
	Backends Backends
	// Formats are the raw formats, for re-normalization.
	Formats *agent.Formats
	Emitter Emitter
	// Notifier shows desktop notifications; nil sends none. It should not
	// block (wrap a slow one in notify.Async).
	Notifier notify.Notifier
	Logger   *slog.Logger
	// Coalesce is how often at most a task's held-back message updates go
	// out, merged (default 16ms, a display frame: the page cannot show
	// versions faster, and the app's event feed batches every task's emits
	// again; it is part of the stdout-to-emit latency; negative disables
	// it). An update that comes a window after the last flush goes at once.
	Coalesce time.Duration
	// NormalizationVersion overrides agent.NormalizationVersion (tests): at
	// startup, stored messages of an older version are re-normalized from
	// their raw data.
	NormalizationVersion int
	// RenormalizeBatch is how many rows re-normalization handles per
	// transaction (default 200).
	RenormalizeBatch int
	// Workspace says where a task's agent runs and hears when a run ends;
	// nil runs agents in the project's path.
	Workspace Workspace
	// TaskView turns a task into the "task:updated" payload (the services'
	// Task DTO); nil emits the store.TaskRun itself (tests).
	TaskView func(t store.TaskRun) any
	// StopTimeout bounds Session.Stop (default 10s).
	StopTimeout time.Duration
	// OnRunEnd is called (on the session's goroutine, without locks) after
	// a session ended and its end was stored (after Workspace.RunEnded),
	// e.g. to write the task's summary.
	OnRunEnd func(ctx context.Context, taskID string)
	// MCP returns the app's MCP server for a session of the task (nil:
	// none, e.g. turned off for its agent); nil gives no agent MCP. An
	// error is logged and the session starts without it. agent.Adopting(ctx)
	// is true when the session adopts an agent that outlived the previous
	// app (its agent already holds that app's token).
	MCP func(ctx context.Context, t store.TaskRun) (*agent.MCPServer, error)
	// Relays, when set, runs every task's agent behind a relay
	// (docs/relay.md) and adopts the relays found at Recover; nil runs
	// agents as the app's children.
	Relays *relay.Transport
	// Hosts, when set, runs the agent of a task whose project lives on a
	// host there, behind a relay (docs/remote.md), whether or not Relays
	// is set; at Recover it adopts the relays left on those hosts.
	Hosts Hosts
	// HostRetry bounds the background retry of the hosts that could not
	// be asked for their relays at Recover (see hostwait.go).
	HostRetry HostRetry
	// KeepOnQuit leaves relayed agents running when the app closes ("keep");
	// false stops them ("stop").
	KeepOnQuit bool
	// OnLimit is called (after the frame that reported it was stored,
	// without locks) when an agent reports a usage limit with a reset time
	// (limits.Detect on every raw frame).
	OnLimit func(taskID string, l limits.Limit)
	// IdleTrim, when set, is called once the app has been quiet for
	// IdleDelay (DefaultIdleDelay when 0) after the last turn under way
	// ended: no task has a turn under way, whether its session ended or
	// waits for the next message. It runs at most once per quiet period,
	// in the background, without the orchestrator's locks; its ctx is
	// cancelled when a turn starts meanwhile. The app gives memory back
	// there (idle.go).
	IdleTrim  func(ctx context.Context)
	IdleDelay time.Duration
	// idleAfter replaces time.AfterFunc for the idle watch (tests).
	idleAfter afterFunc
}

// Orchestrator runs agent sessions for tasks.
type Orchestrator struct {
	db       *store.DB
	backends Backends
	formats  *agent.Formats
	out      Emitter
	notifier notify.Notifier
	log      *slog.Logger
	opt      Options
	version  int
	prep     *store.Prepared // the loop's statements, prepared once
	procLog  *store.ProcessLog
	writer   *writer // commits the loops' batches, grouped

	ctx    context.Context // lifetime of agent sessions
	cancel context.CancelFunc

	mu       sync.Mutex
	closed   bool
	runs     map[string]*run
	locks    map[string]*sync.Mutex
	emitters map[string]*taskEmitter
	asks     map[string]chan [][]string // app-asked questions' waiters (external.go)
	wg       sync.WaitGroup
	// waits are the tasks whose host was unreachable at Recover; waitDone
	// is closed when their retry ended (nil: none started). hostwait.go.
	// starting cancels the preparation of a start under way (starting.go).
	starting   map[string]context.CancelCauseFunc
	waits      map[string]*hostWait
	waitDone   chan struct{}
	waitCancel context.CancelFunc
	// stopsPending are the tasks whose stop was stored while their host
	// was unreachable (stopped once adopted); stopsLeft the stored stops
	// the retry delivers itself (pendingstops.go).
	stopsPending map[string]bool
	stopsLeft    []store.PendingStop

	focused atomic.Bool
	idle    *idleWatch // runs Options.IdleTrim when no turn is under way

	rawCompared atomic.Int64 // bytes of messages' raw data compared with a new whole event's (tests)
	rawCopied   atomic.Int64 // bytes of delta frames copied onto messages' raw data (tests)
	prehandled  atomic.Int64 // batches handled before their group's transaction (tests)
}

// New returns an orchestrator. Call Recover once at startup, Renormalize in
// the background, and Close at shutdown.
func New(opt Options) (*Orchestrator, error) {
	if opt.DB == nil || opt.Backends == nil || opt.Emitter == nil {
		return nil, fmt.Errorf("orchestrator: DB, Backends and Emitter are required: %w", ErrInvalid)
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Coalesce == 0 {
		opt.Coalesce = 16 * time.Millisecond
	}
	if opt.NormalizationVersion == 0 {
		opt.NormalizationVersion = agent.NormalizationVersion
	}
	if opt.RenormalizeBatch <= 0 {
		opt.RenormalizeBatch = 200
	}
	if opt.StopTimeout <= 0 {
		opt.StopTimeout = 10 * time.Second
	}
	if opt.Formats == nil {
		opt.Formats = agent.NewFormats()
	}
	ctx, cancel := context.WithCancel(context.Background())
	prep := store.NewPrepared(opt.DB.W)
	o := &Orchestrator{
		writer: newWriter(opt.DB, prep, opt.Logger),
		db:     opt.DB, backends: opt.Backends, formats: opt.Formats, out: opt.Emitter, notifier: opt.Notifier,
		log: opt.Logger, opt: opt, version: opt.NormalizationVersion, ctx: ctx, cancel: cancel, prep: prep,
		runs: map[string]*run{}, locks: map[string]*sync.Mutex{}, emitters: map[string]*taskEmitter{},
		waits: map[string]*hostWait{}, stopsPending: map[string]bool{}, starting: map[string]context.CancelCauseFunc{},
		procLog: &store.ProcessLog{DB: opt.DB, Log: opt.Logger.Warn},
	}
	o.idle = newIdleWatch(opt.IdleDelay, o.idleTrim(), opt.idleAfter)
	return o, nil
}

// lock returns task id's lock, held across a state change and its emits so
// the frontend sees changes in the order they were stored.
func (o *Orchestrator) lock(id string) func() {
	o.mu.Lock()
	l, ok := o.locks[id]
	if !ok {
		l = &sync.Mutex{}
		o.locks[id] = l
	}
	o.mu.Unlock()
	l.Lock()
	return l.Unlock
}

func (o *Orchestrator) emitter(id string) *taskEmitter {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, ok := o.emitters[id]
	if !ok {
		e = newTaskEmitter(o.out, id, o.opt.Coalesce)
		o.emitters[id] = e
	}
	return e
}

func (o *Orchestrator) getRun(id string) *run {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.runs[id]
}

// emitTask emits "task:updated" with the task as stored.
func (o *Orchestrator) emitTask(ctx context.Context, id string) {
	t, err := store.LoadTaskRun(ctx, o.db.R, id)
	if err != nil {
		o.log.Warn("orchestrator: reload task", "task", id, "err", err)
		return
	}
	if r := o.getRun(id); r != nil {
		if why := r.storeError(); why != "" {
			t.Status, t.StatusReason = StatusStoreError, why
		}
	}
	var payload any = t
	if o.opt.TaskView != nil {
		payload = o.opt.TaskView(t)
	}
	o.emitter(id).other(EventTaskUpdated, payload)
}

func (o *Orchestrator) emitQueue(ctx context.Context, id string) {
	items, err := store.Queue(ctx, o.db.R, id)
	if err != nil {
		o.log.Warn("orchestrator: reload queue", "task", id, "err", err)
		return
	}
	o.emitter(id).other(EventQueue, QueuePayload{TaskID: id, Items: items})
}

func (o *Orchestrator) emitRequests(ctx context.Context, id string) {
	reqs, err := store.ListPending(ctx, o.db.R, id)
	if err != nil {
		o.log.Warn("orchestrator: reload requests", "task", id, "err", err)
		return
	}
	o.emitter(id).other(EventRequests, RequestsPayload{TaskID: id, Requests: reqs})
}

// userMessage is a follow-up stored by the orchestrator.
func userMessage(text string) agent.Message {
	return agent.Message{
		ID:       "user-" + uuid.NewString(),
		Role:     agent.RoleUser,
		Parts:    []agent.Part{{Type: agent.PartText, Text: text}},
		Metadata: map[string]any{"source": "jean-claude"},
	}
}

// Start starts a created task's first session with its prompt.
func (o *Orchestrator) Start(ctx context.Context, taskID string) error {
	unlock := o.lock(taskID)
	defer unlock()
	t, err := store.LoadTaskRun(ctx, o.db.R, taskID)
	if err != nil {
		return err
	}
	if o.getRun(taskID) != nil {
		return fmt.Errorf("orchestrator: start task %s: %w", taskID, ErrBusy)
	}
	if t.Status != store.StatusCreated {
		return fmt.Errorf("orchestrator: start task %s: status is %s (use Resume or SendMessage): %w", taskID, t.Status, ErrInvalid)
	}
	sessionID := ""
	if t.ForkSession {
		sessionID = t.SessionID // a native fork: resume a copy of the parent's session
	}
	return o.startLocked(ctx, t, sessionID, t.Prompt)
}

// Resume restarts a finished task's session by its stored session id, with
// the first queued message as prompt, else ResumePrompt. A task that never
// got a session id starts afresh with its prompt.
func (o *Orchestrator) Resume(ctx context.Context, taskID string) error {
	unlock := o.lock(taskID)
	defer unlock()
	t, err := store.LoadTaskRun(ctx, o.db.R, taskID)
	if err != nil {
		return err
	}
	if o.getRun(taskID) != nil {
		return fmt.Errorf("orchestrator: resume task %s: %w", taskID, ErrBusy)
	}
	if o.hostWaitOf(taskID) != nil { // its agent may still run on the host
		return fmt.Errorf("orchestrator: resume task %s: its host is unreachable and its agent may still run there: %w", taskID, ErrBusy)
	}
	prompt := ResumePrompt
	if t.SessionID == "" {
		prompt = t.Prompt
	}
	var popped bool
	err = o.db.Tx(ctx, func(tx *txT) error {
		m, ok, err := store.PopQueued(ctx, tx, taskID)
		if ok {
			prompt, popped = m.Text, true
		}
		return err
	})
	if err != nil {
		return err
	}
	if popped {
		o.emitQueue(ctx, taskID)
	} else {
		prompt = o.retryPrompt(ctx, taskID, prompt)
	}
	return o.startLocked(ctx, t, t.SessionID, prompt)
}

// startLocked starts a session (resuming sessionID when set) and its loop.
// The caller holds the task lock.
func (o *Orchestrator) startLocked(ctx context.Context, t store.TaskRun, sessionID, prompt string) error {
	o.mu.Lock()
	closed := o.closed
	o.mu.Unlock()
	if closed {
		return ErrClosed
	}
	fail := func(err error) error {
		o.failStart(ctx, t.ID, prompt, err)
		return fmt.Errorf("orchestrator: start task %s: %w", t.ID, err)
	}
	b, err := o.backends.Get(t.AgentBackend)
	if err != nil {
		return fail(err)
	}
	var red *agent.Redactor // the secrets b passes to its agent
	if ss, ok := b.(agent.SecretSource); ok {
		red = agent.NewRedactor(ss.SecretValues(ctx))
	}
	cwd, stopped, err := o.prepare(ctx, t)
	if stopped != "" { // Stop (or Close) during its worktree's setup
		o.endStart(ctx, t.ID, prompt, store.StatusInterrupted, stopped)
		return nil
	}
	if err != nil {
		return fail(err)
	}
	cfg, sctx, serverHost, err := o.sessionConfig(ctx, t, cwd, sessionID)
	if err != nil {
		return fail(err)
	}
	sess, err := b.Start(sctx, cfg, prompt)
	if err != nil {
		return fail(red.Error(err))
	}
	r, stored, err := o.begin(ctx, t, sess, prompt, serverHost)
	if err != nil {
		_ = sess.Stop(context.Background())
		return fail(err)
	}
	r.redact, r.onHost = red, agent.IsOnHost(sctx)
	o.mu.Lock()
	o.runs[t.ID] = r
	o.mu.Unlock()
	o.idle.mark(t.ID, true)
	if stored != nil {
		o.emitter(t.ID).message(agent.Event{Type: agent.EventMessage, Message: stored}, time.Time{})
	}
	o.noteMCPLost(ctx, t.ID, b, cfg)
	o.emitTask(ctx, t.ID)
	o.wg.Add(1)
	go r.loop()
	return nil
}

// sessionConfig is what the backend starts t's session with: its Config,
// the context it starts under (an adoption's or a host's transport) and,
// for an agent on a host, the host its shared server runs on.
func (o *Orchestrator) sessionConfig(ctx context.Context, t store.TaskRun, cwd, sessionID string) (agent.Config, context.Context, string, error) {
	cfg := agent.Config{
		Backend:   t.AgentBackend,
		Cwd:       cwd,
		Mode:      t.InteractionMode,
		Model:     t.Model,
		SessionID: sessionID,
		Recorder:  o.recorder(),
		// A native fork's first start (history.Fork): resume a copy.
		ForkSession: t.ForkSession && sessionID != "" && sessionID == t.SessionID,
	}
	if cfg.ForkSession {
		cfg.ForkPoint = t.ForkPoint // where the copy stops ("" = the whole session)
	}
	if sessionID != "" {
		cfg.Transcript = o.transcript(ctx, t.ID)
	}
	sctx := o.startCtx(ctx, t.ID)
	if agent.Adopting(sctx) {
		cfg.PendingRequests = o.pendingIDs(ctx, t.ID)
	}
	serverHost := ""
	if _, adopting := ctx.Value(ctxKeyAdopt{}).(agent.Transport); !adopting {
		ht, err := o.hostTransport(ctx, t)
		if err != nil {
			return cfg, nil, "", err
		}
		if ht != nil {
			sctx = agent.WithHostTransport(context.WithValue(sctx, ctxKeyHost{}, ht), ht)
			serverHost = serverHostOf(t.AgentBackend, ht)
		}
	}
	// The app's MCP server listens on this machine: not for a remote agent.
	if o.opt.MCP != nil && sctx.Value(ctxKeyHost{}) == nil && !o.adoptingRemote(ctx) {
		var err error
		if cfg.MCP, err = o.opt.MCP(sctx, t); err != nil { // sctx: agent.Adopting tells an adoption
			o.log.Warn("orchestrator: no MCP server for the session", "task", t.ID, "err", err)
			cfg.MCP = nil
		}
	}
	return cfg, sctx, serverHost, nil
}

// begin records a started session in one transaction: the task running,
// its agent's process (reaped after a crash), the start's prompt (stored
// returns it, to be shown) and the messages already known; it returns
// the session's run, not yet listed nor reading.
func (o *Orchestrator) begin(ctx context.Context, t store.TaskRun, sess agent.Session, prompt, serverHost string) (r *run, stored *agent.Message, err error) {
	seq, err := store.NextRawSeq(ctx, o.db.R, t.ID)
	if err != nil {
		return nil, nil, err
	}
	r = &run{o: o, taskID: t.ID, projectID: t.ProjectID, sess: sess, nextSeq: seq, done: make(chan struct{}), status: store.StatusRunning,
		echo: map[string]string{}, decisions: map[string]store.PermissionDecision{}, created: map[string]int64{},
		live: map[string]*liveMsg{}, serverHost: serverHost}
	now := store.Now()
	err = o.db.Tx(ctx, func(tx *txT) error {
		if err := store.SetTaskStatus(ctx, tx, t.ID, store.StatusRunning, "", now); err != nil {
			return err
		}
		if po, ok := sess.(agent.ProcessOwner); ok {
			if pid := po.PID(); pid > 0 {
				if err := store.RecordAgentProcess(ctx, tx, store.AgentProcess{TaskID: t.ID, PID: pid, StartTicks: proc.StartTicks(pid)}, now); err != nil {
					return err
				}
			}
		}
		if prompt != "" {
			m, err := r.storeStartPrompt(ctx, tx, prompt, now)
			if err != nil {
				return err
			}
			stored = &m
		}
		known, err := store.MessageIDs(ctx, tx, t.ID)
		r.known = known
		return err
	})
	return r, stored, err
}

// SendMessage sends a follow-up: to an idle live session at once, queued
// (stored, shown, editable) while the agent is busy, and to a finished task
// by resuming its stored session id.
func (o *Orchestrator) SendMessage(ctx context.Context, taskID, text string) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("orchestrator: empty message: %w", ErrInvalid)
	}
	unlock := o.lock(taskID)
	t, err := store.LoadTaskRun(ctx, o.db.R, taskID)
	if err != nil {
		unlock()
		return err
	}
	r := o.getRun(taskID)
	if r == nil && o.hostWaitOf(taskID) == nil {
		defer unlock()
		if t.SessionID == "" && t.Status == store.StatusCreated {
			return o.startLocked(ctx, t, "", text)
		}
		return o.startLocked(ctx, t, t.SessionID, text)
	}
	if r == nil || !r.idle || r.stopping { // busy, or waiting for its host: queued
		defer unlock()
		now := store.Now()
		err := o.db.Tx(ctx, func(tx *txT) error {
			_, err := store.Enqueue(ctx, tx, store.QueuedMessage{ID: "q-" + uuid.NewString(), TaskID: taskID, Text: text, CreatedAt: now})
			return err
		})
		if err != nil {
			return err
		}
		o.emitQueue(ctx, taskID)
		return nil
	}
	// Idle live session: what is queued goes first.
	send, err := r.sendNextLocked(ctx, text)
	unlock()
	if err != nil {
		return err
	}
	return send()
}

// Stop interrupts the task's agent and ends its process group; the task
// becomes interrupted. A task without a live session that is still marked
// running or waiting is marked interrupted too.
func (o *Orchestrator) Stop(ctx context.Context, taskID string) error {
	if o.cancelStart(taskID, errStartStopped) {
		// Its worktree's setup runs (holding the lock): it is killed, and
		// the start marks the task stopped before it lets go of the lock.
		unlock := o.lock(taskID)
		unlock()
		return nil
	}
	unlock := o.lock(taskID)
	r := o.getRun(taskID)
	if r == nil {
		defer unlock()
		t, err := store.LoadTaskRun(ctx, o.db.R, taskID)
		if err != nil {
			return err
		}
		if w := o.hostWaitOf(taskID); w != nil {
			return o.stopWaiting(w, t)
		}
		if t.Status == store.StatusRunning || t.Status == store.StatusWaiting {
			return o.markInterrupted(ctx, taskID, ReasonStopped)
		}
		return nil
	}
	if !r.unreachable.IsZero() && r.serverHost == "" { // (a shared server's session ends here at once)
		return o.stopUnreachable(r, unlock)
	}
	r.stopping, r.stopReason = true, ReasonStopped
	unlock()
	return r.stop(ctx)
}

// markInterrupted marks a task without a live session interrupted and clears
// its pending requests. The caller holds the task lock.
func (o *Orchestrator) markInterrupted(ctx context.Context, taskID, reason string) error {
	err := o.db.Tx(ctx, func(tx *txT) error {
		if err := store.ClearPending(ctx, tx, taskID); err != nil {
			return err
		}
		return store.SetTaskStatus(ctx, tx, taskID, store.StatusInterrupted, reason, store.Now())
	})
	if err != nil {
		return err
	}
	o.emitRequests(ctx, taskID)
	o.emitTask(ctx, taskID)
	return nil
}

// Recover marks tasks stored as running or waiting that have no live
// session (the app was closed or killed while they ran) interrupted with
// ReasonAppClosed, and clears their pending requests. Run it at startup.
func (o *Orchestrator) Recover(ctx context.Context) (int, error) {
	if n, err := o.repairBehind(ctx); err != nil {
		return 0, err
	} else if n > 0 {
		o.log.Info("orchestrator: rows a crash left behind their raw frames, re-normalized", "count", n)
	}
	adopted := o.adoptRelays(ctx) // before the clean-up: an adopted agent is not a leftover
	o.adoptHostRelays(ctx, adopted)
	o.adoptSessions(ctx, adopted)
	o.killLeftovers(ctx)
	tasks, err := store.TasksWithStatus(ctx, o.db.R, store.StatusRunning, store.StatusWaiting)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range tasks {
		unlock := o.lock(t.ID)
		// An adopted run may have ended already; a task waiting for its
		// host may go on there.
		if o.getRun(t.ID) == nil && !adopted[t.ID] && o.hostWaitOf(t.ID) == nil {
			if err := o.markInterrupted(ctx, t.ID, ReasonAppClosed); err != nil {
				unlock()
				return n, err
			}
			n++
		}
		unlock()
	}
	if n > 0 {
		o.log.Info("orchestrator: recovered tasks left running", "count", n)
	}
	return n, nil
}

// killLeftovers ends the agent process groups a dead app left behind (the
// agent itself usually exits when its stdin closes; what it started may not)
// and forgets them: those of the tasks' sessions, then every other process
// the runtime recorded (agents of each turn, the OpenCode server).
func (o *Orchestrator) killLeftovers(ctx context.Context) {
	defer o.killRecorded(ctx)
	ps, err := store.AgentProcesses(ctx, o.db.R)
	if err != nil {
		o.log.Warn("orchestrator: list agent processes", "err", err)
		return
	}
	for _, p := range ps {
		if o.getRun(p.TaskID) != nil {
			continue
		}
		if n, err := killLeftovers(p.PID, p.StartTicks); err != nil {
			o.log.Warn("orchestrator: end leftover agent processes", "task", p.TaskID, "pid", p.PID, "err", err)
		} else if n > 0 {
			o.log.Info("orchestrator: ended leftover agent processes", "task", p.TaskID, "pgid", p.PID, "count", n)
		}
		if err := o.db.Tx(ctx, func(tx *txT) error { return store.ForgetAgentProcess(ctx, tx, p.TaskID) }); err != nil {
			o.log.Warn("orchestrator: forget agent process", "task", p.TaskID, "err", err)
		}
	}
}

// killRecorded ends the process groups of recorded processes (see
// store.ProcessLog) that are not this app's own children.
func (o *Orchestrator) killRecorded(ctx context.Context) {
	ps, err := store.AppProcesses(ctx, o.db.R)
	if err != nil {
		o.log.Warn("orchestrator: list recorded processes", "err", err)
		return
	}
	for _, p := range ps {
		if proc.ParentPID(p.PID) == os.Getpid() {
			continue // a child of this app (started since it runs)
		}
		if n, err := killLeftovers(p.PID, p.StartTicks); err != nil {
			o.log.Warn("orchestrator: end leftover processes", "pid", p.PID, "role", p.Role, "err", err)
		} else if n > 0 {
			o.log.Info("orchestrator: ended leftover processes", "pgid", p.PID, "role", p.Role, "count", n)
		}
		if err := o.db.Tx(ctx, func(tx *txT) error { return store.ForgetAppProcess(ctx, tx, p.PID) }); err != nil {
			o.log.Warn("orchestrator: forget recorded process", "pid", p.PID, "err", err)
		}
	}
}

// PermissionAnswer is the user's answer to a permission request.
type PermissionAnswer struct {
	Behavior agent.Behavior `json:"behavior"` // allow | deny
	// Scope of an allow: once, task (always for this task) or project
	// (always for this project). Ignored on deny.
	Scope     string `json:"scope"`
	Message   string `json:"message,omitempty"`   // reason given to the agent on deny
	Interrupt bool   `json:"interrupt,omitempty"` // deny and end the turn
	// Rule is what an "always" allow covers, as the user edited it; nil
	// records the request's own subject (see RuleSubject).
	Rule *RuleSpec `json:"rule,omitempty"`
}

// RespondToPermission answers a pending permission request. An "always"
// answer stores a rule that answers the next matching request by itself.
func (o *Orchestrator) RespondToPermission(ctx context.Context, taskID, requestID string, ans PermissionAnswer) error {
	ans, err := checkAnswer(ans)
	if err != nil {
		return err
	}
	unlock := o.lock(taskID)
	defer unlock()
	p, err := store.GetPending(ctx, o.db.R, taskID, requestID)
	if err != nil || p.Kind != store.RequestPermission {
		return fmt.Errorf("orchestrator: permission %s of task %s: %w", requestID, taskID, agent.ErrUnknownRequest)
	}
	if ans.Behavior == agent.Allow && ans.Scope != store.ScopeOnce {
		if _, err := RuleSubject(p.Request, ans.Rule); err != nil {
			return err // refused before anything is sent or stored
		}
	}
	r := o.getRun(taskID)
	if r == nil {
		_ = o.markInterrupted(ctx, taskID, ReasonAppClosed)
		return fmt.Errorf("orchestrator: permission %s of task %s: %w", requestID, taskID, agent.ErrSessionClosed)
	}
	t, err := store.LoadTaskRun(ctx, o.db.R, taskID)
	if err != nil {
		return err
	}
	d, err := o.storeAnswer(ctx, r, t, p, ans)
	if err != nil {
		// Nothing was sent to the agent: it still waits for an answer.
		return fmt.Errorf("orchestrator: store permission answer %s (not sent): %w", requestID, err)
	}
	// Commit, then act: the decision is stored; only now is it sent.
	sessErr := r.sess.RespondToPermission(ctx, requestID, agent.PermissionResponse{
		Behavior: ans.Behavior, Message: ans.Message, Interrupt: ans.Interrupt,
	})
	r.decisions[d.ToolID] = d
	o.emitter(taskID).decision(d)
	o.reemitToolMessage(ctx, taskID, d.ToolID, r.decisions)
	o.emitRequests(ctx, taskID)
	o.emitTask(ctx, taskID)
	if sessErr != nil && !errors.Is(sessErr, agent.ErrUnknownRequest) {
		return fmt.Errorf("orchestrator: answer permission %s (stored, not delivered): %w", requestID, sessErr)
	}
	return nil
}

// checkAnswer refuses an answer that is neither allow nor deny or whose
// scope is unknown; a deny, or an answer without a scope, is for once.
func checkAnswer(ans PermissionAnswer) (PermissionAnswer, error) {
	if ans.Behavior != agent.Allow && ans.Behavior != agent.Deny {
		return ans, fmt.Errorf("orchestrator: permission behavior %q: %w", ans.Behavior, ErrInvalid)
	}
	if ans.Scope == "" || ans.Behavior == agent.Deny {
		ans.Scope = store.ScopeOnce
	}
	if ans.Scope != store.ScopeOnce && ans.Scope != store.ScopeTask && ans.Scope != store.ScopeProject {
		return ans, fmt.Errorf("orchestrator: permission scope %q: %w", ans.Scope, ErrInvalid)
	}
	return ans, nil
}

// storeAnswer commits the user's answer to the permission request p of
// t in one transaction: the rule an "always" allow makes, the decision,
// the request gone and the task no longer waiting. It returns the stored
// decision; nothing has been sent to the agent.
func (o *Orchestrator) storeAnswer(ctx context.Context, r *run, t store.TaskRun, p store.PendingRequest, ans PermissionAnswer) (store.PermissionDecision, error) {
	now := store.Now()
	d := store.PermissionDecision{
		TaskID: t.ID, RequestID: p.RequestID, ToolID: p.Request.ToolID, ToolName: p.Request.ToolName,
		Input: string(p.Request.Input), Behavior: string(ans.Behavior), Scope: ans.Scope, Source: "user",
		Message: ans.Message, CreatedAt: now,
	}
	switch {
	case ans.Behavior == agent.Deny:
		d.Label = "denied by you"
	case ans.Scope == store.ScopeOnce:
		d.Label = "allowed once by you"
	}
	err := o.db.Tx(ctx, func(tx *txT) error {
		if ans.Behavior == agent.Allow && ans.Scope != store.ScopeOnce {
			s, err := RuleSubject(p.Request, ans.Rule)
			if err != nil {
				return err
			}
			rule := store.PermissionRule{ID: "rule-" + uuid.NewString(), Scope: ans.Scope, ProjectID: t.ProjectID,
				ToolName: p.Request.ToolName, MatchKind: s.Kind, Pattern: s.Pattern, SubjectType: s.Type, CreatedAt: now}
			if ans.Scope == store.ScopeTask {
				rule.TaskID = t.ID
			}
			if err := store.InsertRule(ctx, tx, rule); err != nil {
				return err
			}
			d.RuleID = rule.ID
			d.Label = "always allowed by you: " + RuleLabel(rule)
		}
		var err error
		if d, err = store.InsertDecision(ctx, tx, d); err != nil {
			return err
		}
		if err := store.RemovePending(ctx, tx, t.ID, p.RequestID); err != nil {
			return err
		}
		return r.leaveWaiting(ctx, tx, t.Status, now)
	})
	return d, err
}

// RespondToQuestion answers a pending question: for each question, in
// order, the chosen labels or the free text typed.
func (o *Orchestrator) RespondToQuestion(ctx context.Context, taskID, requestID string, answers [][]string) error {
	unlock := o.lock(taskID)
	defer unlock()
	p, err := store.GetPending(ctx, o.db.R, taskID, requestID)
	if err != nil || p.Kind != store.RequestQuestion {
		return fmt.Errorf("orchestrator: question %s of task %s: %w", requestID, taskID, agent.ErrUnknownRequest)
	}
	r := o.getRun(taskID)
	if r == nil {
		_ = o.markInterrupted(ctx, taskID, ReasonAppClosed)
		return fmt.Errorf("orchestrator: question %s of task %s: %w", requestID, taskID, agent.ErrSessionClosed)
	}
	t, err := store.LoadTaskRun(ctx, o.db.R, taskID)
	if err != nil {
		return err
	}
	// The user's words first: the answer is stored in the transaction that
	// takes the question off the pending list.
	now := store.Now()
	a := store.QuestionAnswer{TaskID: taskID, RequestID: requestID, ToolID: p.Request.ToolID,
		Request: p.Request, Answers: answers, CreatedAt: now}
	err = o.db.Tx(ctx, func(tx *txT) error {
		var err error
		if a, err = store.InsertQuestionAnswer(ctx, tx, a); err != nil {
			return err
		}
		if err := store.RemovePending(ctx, tx, taskID, requestID); err != nil {
			return err
		}
		return r.leaveWaiting(ctx, tx, t.Status, now)
	})
	if err != nil {
		return fmt.Errorf("orchestrator: store answer to question %s (not sent): %w", requestID, err)
	}
	// Commit, then act: a question the app asked (AskUser) is answered to
	// its waiter, any other to the agent.
	var sessErr error
	if ch := o.takeAsk(requestID); ch != nil {
		ch <- answers
	} else {
		sessErr = r.sess.RespondToQuestion(ctx, requestID, agent.QuestionAnswer{Answers: answers})
	}
	o.emitter(taskID).other(EventAnswered, AnswerPayload{TaskID: taskID, Answer: a})
	o.emitRequests(ctx, taskID)
	o.emitTask(ctx, taskID)
	if sessErr != nil && !errors.Is(sessErr, agent.ErrUnknownRequest) {
		return fmt.Errorf("orchestrator: answer question %s (stored, not delivered): %w", requestID, sessErr)
	}
	return sessErr
}

// SetMode switches the task's interaction mode, live when it runs, and
// stores it for the next session.
func (o *Orchestrator) SetMode(ctx context.Context, taskID string, mode agent.InteractionMode) error {
	if !mode.Valid() {
		return fmt.Errorf("orchestrator: mode %q: %w", mode, ErrInvalid)
	}
	unlock := o.lock(taskID)
	defer unlock()
	// Commit, then act: a mode that cannot be stored is not sent.
	if err := o.db.Tx(ctx, func(tx *txT) error {
		return store.SetTaskMode(ctx, tx, taskID, string(mode), store.Now())
	}); err != nil {
		return fmt.Errorf("orchestrator: store mode of task %s (not sent): %w", taskID, err)
	}
	o.emitTask(ctx, taskID)
	if r := o.getRun(taskID); r != nil {
		if err := r.sess.SetMode(ctx, mode); err != nil {
			return fmt.Errorf("orchestrator: set mode of task %s (stored, not applied to the running agent): %w", taskID, err)
		}
	}
	return nil
}

// SetModel switches the task's model, live when the backend can. The model
// is stored first (commit, then act); a model that could read as a flag is
// refused.
func (o *Orchestrator) SetModel(ctx context.Context, taskID, model string) error {
	if err := agent.ValidModel(model); err != nil {
		return fmt.Errorf("orchestrator: %w: %w", ErrInvalid, err)
	}
	unlock := o.lock(taskID)
	defer unlock()
	r := o.getRun(taskID)
	var ms agent.ModelSetter
	if r != nil {
		var ok bool
		if ms, ok = r.sess.(agent.ModelSetter); !ok {
			return fmt.Errorf("orchestrator: set model of task %s: %w", taskID, agent.ErrUnsupported)
		}
	}
	if err := o.db.Tx(ctx, func(tx *txT) error {
		return store.SetTaskModel(ctx, tx, taskID, model, store.Now())
	}); err != nil {
		return fmt.Errorf("orchestrator: store model of task %s (not sent): %w", taskID, err)
	}
	o.emitTask(ctx, taskID)
	if ms != nil {
		if err := ms.SetModel(ctx, model); err != nil {
			return fmt.Errorf("orchestrator: set model of task %s (stored, not applied to the running agent): %w", taskID, err)
		}
	}
	return nil
}

// MarkRead clears the task's unread flag.
func (o *Orchestrator) MarkRead(ctx context.Context, taskID string) error {
	unlock := o.lock(taskID)
	defer unlock()
	if err := o.db.Tx(ctx, func(tx *txT) error {
		return store.SetTaskUnread(ctx, tx, taskID, false, store.Now())
	}); err != nil {
		return err
	}
	o.emitTask(ctx, taskID)
	return nil
}

// Messages returns the task's transcript; tool calls answered by a
// permission decision carry it in metadata.permissionDecisions[toolId].
func (o *Orchestrator) Messages(ctx context.Context, taskID string) ([]agent.Message, error) {
	msgs, err := store.Messages(ctx, o.db.R, taskID)
	if err != nil {
		return nil, err
	}
	return o.asShown(ctx, taskID, msgs)
}

// MaxPage is the most messages MessagesPage returns in one page (a page
// reaching back to a given message may hold more).
const MaxPage = 1000

// MessagesPage returns one page of the task's transcript (store.MessagesPage:
// up to limit messages before the cursor, the newest with before < 0,
// reaching back to messageID when given), as Messages shows them: the live
// versions of messages still streaming and the permission decisions.
func (o *Orchestrator) MessagesPage(ctx context.Context, taskID string, before int64, limit int, messageID string) (store.MessagePage, error) {
	if limit <= 0 || limit > MaxPage {
		limit = MaxPage
	}
	p, err := store.MessagesPage(ctx, o.db.R, taskID, before, limit, messageID)
	if err != nil {
		return store.MessagePage{}, err
	}
	p.Messages, err = o.asShown(ctx, taskID, p.Messages)
	return p, err
}

// asShown replaces in msgs the messages whose latest version is not in
// their row yet and adds the permission decisions to their tool calls.
func (o *Orchestrator) asShown(ctx context.Context, taskID string, msgs []agent.Message) ([]agent.Message, error) {
	ds, err := store.Decisions(ctx, o.db.R, taskID)
	if err != nil {
		return nil, err
	}
	byTool := map[string]store.PermissionDecision{}
	for _, d := range ds {
		if d.ToolID != "" {
			byTool[d.ToolID] = d
		}
	}
	live := o.liveVersions(taskID)
	for i := range msgs {
		if m, ok := live[msgs[i].ID]; ok {
			msgs[i] = m // its row waits for its next write (rowInterval)
		}
		msgs[i] = decorate(msgs[i], byTool)
	}
	return msgs, nil
}

// liveVersions returns the running task's messages whose latest version is
// not in their row yet, as their rows will hold them.
func (o *Orchestrator) liveVersions(taskID string) map[string]agent.Message {
	unlock := o.lock(taskID)
	defer unlock()
	r := o.getRun(taskID)
	if r == nil {
		return nil
	}
	var out map[string]agent.Message
	for id, lm := range r.live {
		if lm == nil || !lm.dirty {
			continue
		}
		if out == nil {
			out = map[string]agent.Message{}
		}
		out[id] = lm.asStored(store.Now())
	}
	return out
}

// reemitToolMessage emits again the stored message holding tool toolID, now
// carrying its permission decision in metadata. The caller holds the task
// lock.
func (o *Orchestrator) reemitToolMessage(ctx context.Context, taskID, toolID string, byTool map[string]store.PermissionDecision) {
	m, ok, err := store.MessageWithTool(ctx, o.db.R, taskID, toolID)
	if err != nil {
		o.log.Warn("orchestrator: find the tool's message", "task", taskID, "tool", toolID, "err", err)
	}
	if !ok {
		return
	}
	m = decorate(m, byTool)
	o.emitter(taskID).message(agent.Event{Type: agent.EventMessage, Message: &m}, time.Time{})
}

// decorate returns m with the decisions about its tool calls in metadata.
func decorate(m agent.Message, byTool map[string]store.PermissionDecision) agent.Message {
	if len(byTool) == 0 {
		return m
	}
	var found map[string]any
	for _, p := range m.Parts {
		if p.Type != agent.PartToolUse {
			continue
		}
		if d, ok := byTool[p.ToolID]; ok {
			if found == nil {
				found = map[string]any{}
			}
			found[p.ToolID] = d
		}
	}
	if found == nil {
		return m
	}
	md := make(map[string]any, len(m.Metadata)+1)
	for k, v := range m.Metadata {
		md[k] = v
	}
	md["permissionDecisions"] = found
	m.Metadata = md
	return m
}

// PendingRequests returns the task's pending permission requests and questions.
func (o *Orchestrator) PendingRequests(ctx context.Context, taskID string) ([]store.PendingRequest, error) {
	return store.ListPending(ctx, o.db.R, taskID)
}

// Decisions returns the task's permission decisions.
func (o *Orchestrator) Decisions(ctx context.Context, taskID string) ([]store.PermissionDecision, error) {
	return store.Decisions(ctx, o.db.R, taskID)
}

// QuestionAnswers returns the user's answers to the task's questions.
func (o *Orchestrator) QuestionAnswers(ctx context.Context, taskID string) ([]store.QuestionAnswer, error) {
	return store.QuestionAnswers(ctx, o.db.R, taskID)
}

// Queue returns the task's queued follow-ups.
func (o *Orchestrator) Queue(ctx context.Context, taskID string) ([]store.QueuedMessage, error) {
	return store.Queue(ctx, o.db.R, taskID)
}

// EditQueued changes a queued follow-up not yet sent.
func (o *Orchestrator) EditQueued(ctx context.Context, id, text string) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("orchestrator: empty message: %w", ErrInvalid)
	}
	taskID, err := store.QueuedTask(ctx, o.db.R, id)
	if err != nil {
		return err
	}
	unlock := o.lock(taskID)
	defer unlock()
	if err := o.db.Tx(ctx, func(tx *txT) error { return store.EditQueued(ctx, tx, id, text, store.Now()) }); err != nil {
		return err
	}
	o.emitQueue(ctx, taskID)
	return nil
}

// RemoveQueued deletes a queued follow-up not yet sent.
func (o *Orchestrator) RemoveQueued(ctx context.Context, id string) error {
	taskID, err := store.QueuedTask(ctx, o.db.R, id)
	if err != nil {
		return err
	}
	unlock := o.lock(taskID)
	defer unlock()
	if err := o.db.Tx(ctx, func(tx *txT) error { return store.RemoveQueued(ctx, tx, id) }); err != nil {
		return err
	}
	o.emitQueue(ctx, taskID)
	return nil
}

// SetWindowFocused tells the orchestrator whether the app window has focus;
// desktop notifications are only sent while it has not.
func (o *Orchestrator) SetWindowFocused(focused bool) { o.focused.Store(focused) }

// Running lists the tasks with a live session.
func (o *Orchestrator) Running() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]string, 0, len(o.runs))
	for id := range o.runs {
		out = append(out, id)
	}
	return out
}

// Close stops every live session (their tasks become interrupted with
// ReasonAppClosed), waits for their loops and flushes pending emits.
func (o *Orchestrator) Close(ctx context.Context) error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil
	}
	o.closed = true
	o.mu.Unlock()
	o.idle.close() // no trim while, or after, the sessions stop
	o.cancelStarts()
	o.endHostRetry() // before the runs are listed: it may adopt one
	o.mu.Lock()
	runs := make([]*run, 0, len(o.runs))
	for _, r := range o.runs {
		runs = append(runs, r)
	}
	o.mu.Unlock()
	restoreTimes := o.keepActivityTimes(ctx, runs)
	var wg sync.WaitGroup
	errs := make([]error, len(runs))
	for i, r := range runs {
		unlock := o.lock(r.taskID)
		r.stopping, r.stopReason = true, ReasonAppClosed
		unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if o.detachOnClose(ctx, r) {
				return
			}
			errs[i] = r.stop(ctx)
		}()
	}
	wg.Wait()
	o.keepServers(ctx)
	done := make(chan struct{})
	go func() { o.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		errs = append(errs, ctx.Err())
	}
	restoreTimes()
	o.cancel()
	o.mu.Lock()
	ems := make([]*taskEmitter, 0, len(o.emitters))
	for _, e := range o.emitters {
		ems = append(ems, e)
	}
	o.mu.Unlock()
	for _, e := range ems {
		e.flush()
	}
	o.writer.close()
	errs = append(errs, o.prep.Close())
	return errors.Join(errs...)
}

// pendingIDs are the ids of task taskID's pending requests (none when they
// cannot be read: an adopted session then withdraws none of them).
func (o *Orchestrator) pendingIDs(ctx context.Context, taskID string) []string {
	reqs, err := store.ListPending(ctx, o.db.R, taskID)
	if err != nil {
		o.log.Warn("orchestrator: pending requests", "task", taskID, "err", err)
		return nil
	}
	ids := make([]string, len(reqs))
	for i, r := range reqs {
		ids[i] = r.RequestID
	}
	return ids
}

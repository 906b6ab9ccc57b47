package orchestrator

// Tasks that outlive the app (docs/relay.md): with Options.Relays every
// agent runs behind a relay; Recover adopts the relays a previous app left
// (live ones continue live, dead ones give up their journal), and Close
// either stops the agents or leaves them running (Options.KeepOnQuit).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Reasons shown with a relayed task.
const (
	ReasonContinued = "continued after restart"
	ReasonKept      = "Jean-Claude was closed; the agent kept running under its relay"
)

// relayRecorder is the sessions' recorder when relays are on: it records
// direct children as before and puts agents behind relays.
type relayRecorder struct {
	*store.ProcessLog
	t   agent.Transport
	log *slog.Logger
}

var _ agent.TransportProvider = relayRecorder{}

type ctxKeyAdopt struct{}

// TransportFor implements agent.TransportProvider: an agent with stdio of a
// known task runs behind a relay (or attaches to the one being adopted);
// servers (OpenCode's) and processes without a task stay children.
func (r relayRecorder) TransportFor(ctx context.Context, spec agent.ProcSpec) agent.Transport {
	if t, ok := ctx.Value(ctxKeyAdopt{}).(agent.Transport); ok {
		return t
	}
	if agent.TaskIDFrom(ctx) == "" || !relayedRole(spec.Role) {
		return nil
	}
	if t, ok := ctx.Value(ctxKeyHost{}).(agent.Transport); ok {
		return t // the task's project lives on a host
	}
	if r.t == nil {
		return nil
	}
	return loggedTransport{t: r.t, log: r.log}
}

// loggedTransport says in the log when a relay cannot be launched (the
// agent then runs as the app's child: agent.ErrTransportUnavailable).
type loggedTransport struct {
	t   agent.Transport
	log *slog.Logger
}

func (l loggedTransport) Start(ctx context.Context, spec agent.ProcSpec) (agent.Remote, error) {
	r, err := l.t.Start(ctx, spec)
	if errors.Is(err, agent.ErrTransportUnavailable) {
		l.log.Warn("orchestrator: no relay; the agent runs as the app's child and will not outlive it",
			"task", agent.TaskIDFrom(ctx), "role", spec.Role, "err", err)
	}
	return r, err
}

// relayedRoles are the agents that run behind relays. Adoption starts the
// backend's session again over the replayed journal (agent.Adopting):
// Claude Code's handshake (one initialize control request) is repeated
// harmlessly; Codex's app-server and ACP agents do not repeat theirs and
// rebuild their JSON-RPC books from the journal. Gemini headless starts a
// process per turn (no session to adopt: a turn is short) and stays a
// direct child.
var relayedRoles = map[string]bool{
	"agent " + string(agent.BackendClaudeCode): true,
	"agent " + string(agent.BackendCodex):      true,
}

// relayedRole: Claude Code, Codex app-server and every ACP agent (role
// "agent acp.<provider>.<name>").
func relayedRole(role string) bool {
	return relayedRoles[role] || strings.HasPrefix(role, "agent acp.")
}

func (o *Orchestrator) recorder() agent.ProcessRecorder {
	if o.opt.Relays != nil {
		return relayRecorder{ProcessLog: o.procLog, t: o.opt.Relays, log: o.log}
	}
	if o.opt.Hosts != nil { // local tasks stay children (t nil)
		return relayRecorder{ProcessLog: o.procLog}
	}
	return o.procLog
}

// startCtx is the context a backend starts a session with: the app's, with
// the task id, and the adopting transport when Recover adopts a relay.
func (o *Orchestrator) startCtx(ctx context.Context, taskID string) context.Context {
	sc := agent.WithTaskID(o.ctx, taskID)
	if t, ok := ctx.Value(ctxKeyAdopt{}).(agent.Transport); ok {
		sc = agent.WithAdopting(context.WithValue(sc, ctxKeyAdopt{}, t))
	}
	if ctx.Value(ctxKeyAdoptSession{}) != nil {
		sc = agent.WithAdopting(sc)
	}
	if agent.IsOnHost(ctx) {
		sc = agent.OnHost(sc)
	}
	return sc
}

// ackStored tells the relays that bs are stored (acks are cumulative: the
// last one covers the rest).
func ackStored(bs []agent.Batch) {
	for i := len(bs) - 1; i >= 0; i-- {
		if bs[i].Acks() {
			bs[i].Ack()
			return
		}
	}
}

// SetKeepOnQuit sets what Close does to relayed agents: keep them running
// (true) or stop them (the "quitRunningTasks" setting, read at quit).
func (o *Orchestrator) SetKeepOnQuit(keep bool) {
	o.mu.Lock()
	o.opt.KeepOnQuit = keep
	o.mu.Unlock()
}

// detachOnClose leaves a relayed agent running when the app closes with
// "keep"; it reports whether it did.
func (o *Orchestrator) detachOnClose(ctx context.Context, r *run) bool {
	d, ok := r.sess.(agent.Detacher)
	o.mu.Lock()
	keep := o.opt.KeepOnQuit
	o.mu.Unlock()
	if !keep || !ok {
		return false
	}
	unlock := o.lock(r.taskID)
	if (r.serverHost != "" || r.onHost) && r.idle {
		// An idle session on a host (its own relay there, or a host's
		// shared server): nothing to continue, and the next app adopts on
		// hosts only the tasks at work (adoptHostRelays), so a relay kept
		// would wait there for no app until its idle stop. A follow-up
		// resumes the session on the host.
		unlock()
		return false
	}
	r.stopReason = ReasonKept
	unlock()
	did, err := d.Detach(ctx)
	if !did { // a direct child: it is stopped as before
		unlock := o.lock(r.taskID)
		r.stopReason = ReasonAppClosed
		unlock()
		return false
	}
	if err != nil {
		o.log.Warn("orchestrator: detach relay", "task", r.taskID, "err", err)
	}
	select {
	case <-r.done:
	case <-ctx.Done():
	}
	o.log.Info("orchestrator: relay kept running", "task", r.taskID)
	return true
}

// adoptRelays adopts every relay a previous app left: a live one continues
// live from the last stored frame; a dead one (its relay killed, or ended
// with nobody to take its journal) gives up every journaled frame, then
// the task ends (interrupted with the reason when the relay died).
func (o *Orchestrator) adoptRelays(ctx context.Context) map[string]bool {
	adopted := map[string]bool{}
	if o.opt.Relays == nil {
		return adopted
	}
	metas, err := relay.List(o.opt.Relays.Dir)
	if err != nil {
		o.log.Warn("orchestrator: list relays", "dir", o.opt.Relays.Dir, "err", err)
		return adopted
	}
	o.log.Info("orchestrator: relays found", "count", len(metas), "dir", o.opt.Relays.Dir)
	for _, m := range metas {
		if m.TaskID == "" { // a shared server (OpenCode's): its backend adopts it (adoptSessions)
			o.log.Info("orchestrator: relay left to its backend", "relay", m.ID, "role", m.Role)
			continue
		}
		if err := o.adoptRelay(ctx, m); err != nil {
			o.log.Warn("orchestrator: adopt relay", "relay", m.ID, "task", m.TaskID, "err", err)
			continue
		}
		adopted[m.TaskID] = true
	}
	return adopted
}

func (o *Orchestrator) adoptRelay(ctx context.Context, m relay.Meta) error {
	t, err := store.LoadTaskRun(ctx, o.db.R, m.TaskID)
	if err != nil {
		_ = m.KillAgent()
		m.Remove()
		o.log.Info("orchestrator: relay cleaned up (no such task)", "relay", m.ID, "task", m.TaskID)
		return nil
	}
	seq, err := store.RelayProgress(ctx, o.db.R, m.ID)
	if err != nil {
		return err
	}
	unlock := o.lock(t.ID)
	defer unlock()
	if o.getRun(t.ID) != nil {
		return fmt.Errorf("task %s already runs", t.ID)
	}
	alive := m.Alive()
	var tr agent.Transport = adoptTransport{m: m, stored: seq}
	reason := ReasonContinued
	if !alive {
		_ = m.KillAgent() // its relay is gone: nothing can reach it any more
		tr = &journalTransport{m: m, stored: seq}
		reason = fmt.Sprintf("its relay (pid %d) ended while Jean-Claude was away; every frame it journaled was kept", m.RelayPID)
	}
	actx := context.WithValue(ctx, ctxKeyAdopt{}, tr)
	if err := o.startLocked(actx, t, t.SessionID, ""); err != nil {
		return err
	}
	o.markAdopted(ctx, t.ID, reason, m, alive, endedStatus(t, alive))
	o.log.Info("orchestrator: relay adopted", "relay", m.ID, "task", t.ID, "alive", alive, "from", seq+1)
	return nil
}

type ctxKeyAdoptSession struct{}

// adoptSessions continues the tasks left running (or kept at quit) whose
// backend's shared server outlived the previous app behind a relay
// (agent.ServerKeeper: OpenCode's): the session is started again with
// agent.WithAdopting and its id, and catches up from the server.
func (o *Orchestrator) adoptSessions(ctx context.Context, adopted map[string]bool) {
	servers := o.adoptServers(ctx)
	if len(servers) == 0 {
		return
	}
	tasks, err := store.TasksWithStatus(ctx, o.db.R, store.StatusRunning, store.StatusWaiting, store.StatusInterrupted)
	if err != nil {
		o.log.Warn("orchestrator: tasks to adopt", "err", err)
		return
	}
	for _, t := range tasks {
		if adopted[t.ID] || t.SessionID == "" || !servers[string(t.AgentBackend)] ||
			t.Status == store.StatusInterrupted && t.StatusReason != ReasonKept || o.onHost(ctx, t) {
			continue // (a host's server and its sessions: adoptHostSession)
		}
		if err := o.adoptSession(ctx, t); err != nil {
			o.log.Warn("orchestrator: adopt session", "task", t.ID, "err", err)
			continue
		}
		adopted[t.ID] = true
		o.log.Info("orchestrator: session adopted on its server", "task", t.ID, "backend", t.AgentBackend)
	}
}

// adoptServers has every backend with a shared server adopt the one a
// previous app left behind a relay (agent.ServerKeeper; a server nobody
// needs then serves the next sessions) and returns the backends that did.
func (o *Orchestrator) adoptServers(ctx context.Context) map[string]bool {
	out := map[string]bool{}
	names, ok := o.backends.(interface{ Names() []string }) // the app's registry
	if o.opt.Relays == nil || !ok {
		return out
	}
	for _, name := range names.Names() {
		b, err := o.backends.Get(agent.BackendType(name))
		if k, ok := b.(agent.ServerKeeper); err == nil && ok && k.AdoptServer(ctx) {
			out[name] = true
			o.log.Info("orchestrator: server adopted", "backend", name)
		}
	}
	return out
}

func (o *Orchestrator) adoptSession(ctx context.Context, t store.TaskRun) error {
	unlock := o.lock(t.ID)
	defer unlock()
	if o.getRun(t.ID) != nil {
		return fmt.Errorf("task %s already runs", t.ID)
	}
	if err := o.startLocked(context.WithValue(ctx, ctxKeyAdoptSession{}, true), t, t.SessionID, ""); err != nil {
		return err
	}
	o.markAdopted(ctx, t.ID, ReasonContinued, relay.Meta{}, true, "")
	return nil
}

// endedStatus is the status of a task whose agent waited for input when
// the previous app let go of it (quit with "keep" or crashed after the
// turn had ended): its last turn's end, stored then; "" while a turn
// runs (its status is running or waiting, or interrupted by the quit).
// The journal's stored frames are replayed only to rebuild the
// normalizer, so nothing else would tell the adopted session it is idle,
// and a follow-up would wait in the queue for a turn that already ended.
func endedStatus(t store.TaskRun, alive bool) store.TaskStatus {
	switch {
	case !alive, t.Status == store.StatusRunning, t.Status == store.StatusWaiting,
		t.Status == store.StatusInterrupted && t.StatusReason == ReasonKept:
		return ""
	}
	return t.Status
}

// keepServers leaves the backends' shared servers running when the app
// quits with "keep" (agent.ServerKeeper).
func (o *Orchestrator) keepServers(ctx context.Context) {
	o.mu.Lock()
	keep := o.opt.KeepOnQuit
	o.mu.Unlock()
	names, ok := o.backends.(interface{ Names() []string }) // the app's registry
	// (a host's server runs behind a relay there, whatever Relays says)
	if !keep || o.opt.Relays == nil && o.opt.Hosts == nil || !ok {
		return
	}
	for _, name := range names.Names() {
		b, err := o.backends.Get(agent.BackendType(name))
		if k, ok := b.(agent.ServerKeeper); err == nil && ok && k.KeepServer(ctx) {
			o.log.Info("orchestrator: server kept running", "backend", name)
		}
	}
}

// markAdopted shows why the task runs again; a task whose relay died ends
// interrupted with reason once its journal is stored. ended is the status
// of a task whose agent waits for input (endedStatus; "": a turn runs):
// the session is idle and the task keeps that status.
func (o *Orchestrator) markAdopted(ctx context.Context, taskID, reason string, m relay.Meta, alive bool, ended store.TaskStatus) {
	r := o.getRun(taskID)
	if r == nil {
		return
	}
	status := store.StatusRunning
	if ended != "" {
		status, r.status, r.idle = ended, ended, true
		o.idle.mark(taskID, false)
	}
	if !alive {
		r.stopping, r.stopReason = true, reason
		go func() { // every journaled frame is stored once the run ended
			<-r.done
			m.Remove()
			o.log.Info("orchestrator: relay cleaned up", "relay", m.ID, "task", taskID)
		}()
	}
	mctx := context.WithoutCancel(ctx) // adopted: recorded whatever the caller's context does now
	err := o.db.Tx(mctx, func(tx *txT) error {
		return store.SetTaskStatus(mctx, tx, taskID, status, reason, store.Now())
	})
	if err != nil {
		o.log.Warn("orchestrator: mark adopted", "task", taskID, "err", err)
	}
	o.emitTask(mctx, taskID)
}

// adoptTransport attaches to a live relay instead of starting a process.
// It replays the journal from its start, the frames already stored marked
// as such, so that the new session's normalizer continues the message the
// agent was writing.
type adoptTransport struct {
	m      relay.Meta
	stored uint64
}

func (a adoptTransport) Start(ctx context.Context, _ agent.ProcSpec) (agent.Remote, error) {
	return relay.AdoptReplaying(ctx, a.m, a.stored)
}

// journalTransport replays the journal of a relay that is gone. Writes to
// the agent are dropped (it is gone too); the files are removed once every
// frame is stored.
type journalTransport struct {
	m      relay.Meta
	stored uint64
}

func (j *journalTransport) Start(_ context.Context, _ agent.ProcSpec) (agent.Remote, error) {
	jr := &journalRemote{m: j.m, stored: j.stored, taken: make(chan struct{})}
	ex, err := relay.ReadJournal(j.m.Journal, 1, func(r relay.Record) error {
		jr.recs = append(jr.recs, r)
		return nil
	})
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	jr.exit = ex
	if len(jr.recs) == 0 && ex == nil {
		jr.m.Remove()
	}
	return jr, nil
}

type journalRemote struct {
	m      relay.Meta
	stored uint64
	recs   []relay.Record
	exit   *relay.Exit
	mu     sync.Mutex
	i      int
	// taken is closed once every record is stored: the link "breaks" only
	// then, so the backend's Start (Claude Code's initialize) does not race
	// the end of a replay from memory.
	taken     chan struct{}
	takenOnce sync.Once
}

// linkGrace bounds how long a dead relay's journal waits for its records
// to be stored before it reports the relay gone.
const linkGrace = 5 * time.Second

func (j *journalRemote) ID() string { return j.m.ID }
func (j *journalRemote) PID() int   { return j.m.AgentPID }

func (j *journalRemote) Next() (agent.RemoteFrame, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.i < len(j.recs) {
		r := j.recs[j.i]
		j.i++
		return agent.RemoteFrame{Seq: r.Seq, Line: r.Payload, TooLong: r.Kind == 'L', Replay: r.Seq <= j.stored}, nil
	}
	if j.exit != nil && j.i == len(j.recs) {
		j.i++
		ex := j.exit
		return agent.RemoteFrame{Exit: &agent.RemoteExit{Seq: ex.Seq, Code: ex.Code, Signal: ex.Signal, Err: ex.Err,
			Stderr: ex.Stderr, Stopped: ex.Stopped, Reason: ex.Reason}}, nil
	}
	j.mu.Unlock()
	select {
	case <-j.taken:
	case <-time.After(linkGrace):
	}
	j.mu.Lock()
	return agent.RemoteFrame{}, fmt.Errorf("relay pid %d is gone: %w", j.m.RelayPID, io.EOF)
}

func (j *journalRemote) WriteLine([]byte) error           { return nil }
func (j *journalRemote) CloseStdin() error                { return nil }
func (j *journalRemote) Signal(syscall.Signal) error      { return nil }
func (j *journalRemote) Stop(time.Duration, string) error { return nil }
func (j *journalRemote) Detach() error                    { return nil }

// Ack removes the relay's files once its last record is stored.
func (j *journalRemote) Ack(seq uint64) error {
	last := uint64(0)
	if n := len(j.recs); n > 0 {
		last = j.recs[n-1].Seq
	}
	if j.exit != nil {
		last = j.exit.Seq
	}
	if seq >= last {
		j.takenOnce.Do(func() { close(j.taken) })
		j.m.Remove()
	}
	return nil
}

package orchestrator

// Tasks of projects that live on a host (issue 21, docs/remote.md): their
// agent runs there behind a relay, through the transport Options.Hosts
// gives; everything else (storage, streaming, permissions, follow-ups,
// stop) is the local task's code path.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Hosts gives the transports of tasks whose project lives on a host
// (backend/remote.Tasks). down is called while the task's link is down
// (with the time it went down), up when it is back.
type Hosts interface {
	// TransportFor is the transport of a new session of a task of
	// projectID; ok false for a local project.
	TransportFor(ctx context.Context, projectID string, down func(taskID string, since time.Time, err error),
		up func(taskID string)) (t agent.Transport, ok bool, err error)
	// Adopt is the transport that attaches to the relay a previous app
	// left on the host for taskID (frames up to the stored sequence come
	// marked Replay); ok false when there is none (or a local project).
	Adopt(ctx context.Context, projectID, taskID string, stored func(relayID string) (uint64, error),
		down func(taskID string, since time.Time, err error), up func(taskID string)) (t agent.Transport, ok bool, err error)
}

type (
	ctxKeyHost        struct{}
	ctxKeyRemoteAdopt struct{}
)

// adoptingRemote: ctx adopts a relay on a host.
func (o *Orchestrator) adoptingRemote(ctx context.Context) bool {
	return ctx.Value(ctxKeyRemoteAdopt{}) != nil
}

// ReasonStopQueued is shown when Stop is asked while the host is
// unreachable: the stop is sent when the link is back.
const ReasonStopQueued = "stop requested while the host is unreachable: the agent will be stopped when it is reachable again"

// UnreachableReason is the task's status reason while its host's link is
// down: "host unreachable since 15:04:05: why", why in the user's words
// when err has them (remote.Explained: Error is the words, Detail the raw
// error), the raw error on a second line for whoever wants it.
func UnreachableReason(since time.Time, err error) string {
	return unreachableReason(since, err, "")
}

// unreachablePrefix begins every reason UnreachableReason words.
const unreachablePrefix = "host unreachable since "

// unreachableReason is UnreachableReason with more said on the first line.
func unreachableReason(since time.Time, err error, more string) string {
	s := unreachablePrefix + since.Format("15:04:05")
	words, detail := causeOf(err)
	if words != "" {
		s += ": " + words
	}
	if more != "" {
		s += "; " + more
	}
	if detail != "" && detail != words {
		s += "\n" + detail
	}
	return s
}

// causeOf is err's words and its raw detail (each one line, bounded).
func causeOf(err error) (words, detail string) {
	if err == nil {
		return "", ""
	}
	var d interface{ Detail() string }
	if errors.As(err, &d) {
		detail = firstLine(d.Detail())
	}
	return firstLine(err.Error()), detail
}

// hostTransport picks the host's transport for a session of t (nil: a
// local task). Only agents that can run behind a relay may run there.
func (o *Orchestrator) hostTransport(ctx context.Context, t store.TaskRun) (agent.Transport, error) {
	if o.opt.Hosts == nil {
		return nil, nil
	}
	var host atomic.Value // the host's name, once known
	down := func(id string, since time.Time, err error) {
		if id == "" { // the link of the host's shared server: its tasks'
			id, _ := host.Load().(string)
			o.serverLink(id, func(task string) { o.hostDown(task, since, err) })
			return
		}
		o.hostDown(id, since, err)
	}
	up := func(id string) {
		if id == "" {
			id, _ := host.Load().(string)
			o.serverLink(id, o.hostUp)
			return
		}
		o.hostUp(id)
	}
	tr, ok, err := o.opt.Hosts.TransportFor(ctx, t.ProjectID, down, up)
	if err != nil || !ok {
		return nil, err
	}
	if hn, ok := tr.(agent.HostNet); ok {
		host.Store(hn.HostKey())
	}
	if !onHostRole(t.AgentBackend, tr) {
		return nil, fmt.Errorf("%s cannot run on a remote host yet: only Claude Code, Codex, ACP agents, OpenCode and Gemini CLI do", t.AgentBackend)
	}
	return tr, nil
}

// onHostRole: the agents that run on a host. Those behind relays (the
// session's process through tr), Gemini CLI (each turn's process through
// tr: agent.HostTransport) and OpenCode (its server on the host through
// tr, reached over the host's connection: agent.HostNet).
func onHostRole(b agent.BackendType, tr agent.Transport) bool {
	switch {
	case relayedRole("agent " + string(b)), b == agent.BackendGemini:
		return true
	case b == agent.BackendOpenCode:
		_, ok := tr.(agent.HostNet)
		return ok
	}
	return false
}

// serverLink applies fn to the tasks whose sessions are on the shared
// server of host (OpenCode's): its link going down or up is theirs.
func (o *Orchestrator) serverLink(host string, fn func(taskID string)) {
	if host == "" {
		return
	}
	o.mu.Lock()
	var ids []string
	for id, r := range o.runs {
		if r.serverHost == host {
			ids = append(ids, id)
		}
	}
	o.mu.Unlock()
	for _, id := range ids {
		fn(id)
	}
}

// serverHostOf is the host whose shared server a session of backend b
// started with tr uses ("" for the others).
func serverHostOf(b agent.BackendType, tr agent.Transport) string {
	if hn, ok := tr.(agent.HostNet); ok && b == agent.BackendOpenCode {
		return hn.HostKey()
	}
	return ""
}

// onHost reports whether t's project lives on a host.
func (o *Orchestrator) onHost(ctx context.Context, t store.TaskRun) bool {
	if o.opt.Hosts == nil {
		return false
	}
	_, ok, _ := o.opt.Hosts.TransportFor(ctx, t.ProjectID, o.hostDown, o.hostUp)
	return ok
}

// hostDown shows "host unreachable since …" on the task: once per outage,
// again only when the cause changes (a dropped channel's "connection lost"
// becomes "authentication failed" on the next attempt).
func (o *Orchestrator) hostDown(taskID string, since time.Time, err error) {
	unlock := o.lock(taskID)
	r := o.getRun(taskID)
	if r == nil || !r.unreachable.IsZero() && sameCause(r.downErr, err) {
		unlock()
		return
	}
	first := r.unreachable.IsZero()
	r.unreachable, r.downErr = since, err
	status, more := r.status, ""
	if r.stopping && r.stopReason == ReasonStopQueued {
		more = ReasonStopQueued
	}
	unlock()
	o.setReason(taskID, status, unreachableReason(since, err, more))
	if first {
		o.log.Info("orchestrator: host unreachable", "task", taskID, "since", since, "err", err)
	}
}

func sameCause(a, b error) bool {
	wa, _ := causeOf(a)
	wb, _ := causeOf(b)
	return wa == wb
}

// hostUp clears the reason when the link is back.
func (o *Orchestrator) hostUp(taskID string) {
	unlock := o.lock(taskID)
	r := o.getRun(taskID)
	if r == nil || r.unreachable.IsZero() {
		unlock()
		return
	}
	r.unreachable, r.downErr = time.Time{}, nil
	status, reason := r.status, ""
	if r.stopping && r.stopReason == ReasonStopQueued {
		reason, r.stopReason = reasonStopping, ReasonStopped
	}
	unlock()
	if reason == "" && !o.showsUnreachable(taskID) {
		return // another reason took its place meanwhile ("continued after restart"): it stays
	}
	o.setReason(taskID, status, reason)
	o.log.Info("orchestrator: host reachable again", "task", taskID)
}

// showsUnreachable tells whether the task's stored reason is still the
// host's outage.
func (o *Orchestrator) showsUnreachable(taskID string) bool {
	t, err := store.LoadTaskRun(context.Background(), o.db.R, taskID)
	return err == nil && strings.HasPrefix(t.StatusReason, unreachablePrefix)
}

func (o *Orchestrator) setReason(taskID string, status store.TaskStatus, reason string) {
	ctx := context.Background()
	err := o.db.Tx(ctx, func(tx *txT) error {
		return store.SetTaskStatus(ctx, tx, taskID, status, reason, store.Now())
	})
	if err != nil {
		o.log.Warn("orchestrator: task reason", "task", taskID, "err", err)
		return
	}
	o.emitTask(ctx, taskID)
}

// stopUnreachable queues the stop of a task whose host is unreachable: the
// transport sends it on reconnect; Stop returns at once and the task says
// so. The caller holds the task lock (released here).
func (o *Orchestrator) stopUnreachable(r *run, unlock func()) error {
	r.stopping, r.stopReason = true, ReasonStopQueued
	since, cause, status := r.unreachable, r.downErr, r.status
	unlock()
	o.setReason(r.taskID, status, unreachableReason(since, cause, ReasonStopQueued))
	go func() {
		_ = r.sess.Stop(o.ctx) // returns once the agent ended (or the app closes)
		<-r.done
		o.clearStopReason(r.taskID)
	}()
	return nil
}

// clearStopReason removes the queued stop's words once the agent ended (a
// task stopped while idle keeps how its last turn ended, as locally).
func (o *Orchestrator) clearStopReason(taskID string) {
	unlock := o.lock(taskID)
	defer unlock()
	if o.getRun(taskID) != nil {
		return
	}
	t, err := store.LoadTaskRun(context.Background(), o.db.R, taskID)
	if err != nil || !strings.Contains(t.StatusReason, ReasonStopQueued) && t.StatusReason != reasonStopping {
		return
	}
	o.setReason(taskID, t.Status, "")
}

const reasonStopping = "stopping (the host is reachable again)"

// adoptHostRelay adopts the relay a previous app left on the host of t's
// project; false when there is none (the host answered without it). An
// *unlistedError: the host's relays could not be listed within bound.
func (o *Orchestrator) adoptHostRelay(ctx context.Context, t store.TaskRun, bound time.Duration) (bool, error) {
	if t.AgentBackend == agent.BackendOpenCode {
		return o.adoptHostSession(ctx, t, bound)
	}
	stored := func(id string) (uint64, error) { return store.RelayProgress(ctx, o.db.R, id) }
	lctx, cancel := context.WithTimeout(ctx, bound)
	tr, ok, err := o.opt.Hosts.Adopt(lctx, t.ProjectID, t.ID, stored, o.hostDown, o.hostUp)
	cancel()
	if err != nil {
		return false, &unlistedError{err}
	}
	if !ok {
		return false, nil
	}
	actx := context.WithValue(context.WithValue(ctx, ctxKeyAdopt{}, tr), ctxKeyRemoteAdopt{}, true)
	return o.startAdoptedOnHost(ctx, actx, t)
}

// adoptHostSession continues t, an OpenCode task, when its backend adopts
// the server a previous app left on the task's host (kept at quit, or left
// by a crash: agent.HostServerKeeper); false when there is none. The
// session then catches up from the server on what happened meanwhile.
func (o *Orchestrator) adoptHostSession(ctx context.Context, t store.TaskRun, bound time.Duration) (bool, error) {
	b, err := o.backends.Get(t.AgentBackend)
	k, ok := b.(agent.HostServerKeeper)
	if err != nil || !ok || t.SessionID == "" {
		return false, nil
	}
	lctx, cancel := context.WithTimeout(ctx, bound)
	tr, err := o.hostTransport(lctx, t)
	if err == nil && tr != nil {
		ok, err = k.AdoptHostServer(lctx, tr)
	}
	cancel()
	if err != nil {
		return false, &unlistedError{err}
	}
	if tr == nil || !ok {
		return false, nil
	}
	return o.startAdoptedOnHost(ctx, context.WithValue(context.WithValue(ctx, ctxKeyAdoptSession{}, true), ctxKeyRemoteAdopt{}, true), t)
}

// startAdoptedOnHost starts t's session with actx (adopting its agent or
// its server on its host) and shows it continued; a stop asked meanwhile
// is sent right after.
func (o *Orchestrator) startAdoptedOnHost(ctx, actx context.Context, t store.TaskRun) (bool, error) {
	unlock := o.lock(t.ID)
	defer unlock()
	if o.getRun(t.ID) != nil {
		return false, fmt.Errorf("task %s already runs", t.ID)
	}
	if err := o.startLocked(agent.OnHost(actx), t, t.SessionID, ""); err != nil {
		return false, err
	}
	w := o.takeHostWait(t.ID)
	// The session is adopted: record it even if the caller's context ends
	// now (Recover's bound at start, or the retry's).
	mctx := context.WithoutCancel(ctx)
	err := o.db.Tx(mctx, func(tx *txT) error {
		return store.SetTaskStatus(mctx, tx, t.ID, store.StatusRunning, ReasonContinued, store.Now())
	})
	if err != nil {
		o.log.Warn("orchestrator: mark adopted", "task", t.ID, "err", err)
	}
	o.emitTask(mctx, t.ID)
	if r := o.getRun(t.ID); r != nil && (w != nil && w.stop || o.takeStopPending(t.ID)) {
		o.stopAdopted(r)
	}
	return true, nil
}

// adoptHostRelays adopts the remote relays of the tasks that were running;
// the tasks whose host could not be asked wait for it (hostwait.go).
func (o *Orchestrator) adoptHostRelays(ctx context.Context, adopted map[string]bool) {
	if o.opt.Hosts == nil {
		return
	}
	pending := o.loadPendingStops(ctx)
	// Running after a crash, or left running with "keep", or stopped while
	// their host was unreachable (whatever the task says since).
	tasks, err := store.TasksWithStatus(ctx, o.db.R, store.StatusRunning, store.StatusWaiting, store.StatusInterrupted)
	if err != nil {
		o.log.Warn("orchestrator: tasks to adopt on hosts", "err", err)
		return
	}
	tasks = o.withStopped(ctx, tasks, pending)
	for _, t := range tasks {
		if adopted[t.ID] || t.Status == store.StatusInterrupted && t.StatusReason != ReasonKept && !o.stopPending(t.ID) {
			continue
		}
		if t.AgentBackend == agent.BackendGemini {
			// Gemini's turn on a host is not adopted: the task is
			// interrupted as a local one would be; a turn a crash left
			// running there is stopped. (OpenCode's server is adopted:
			// adoptHostSession.)
			if s, ok := o.stopUnadopted(ctx, t); ok {
				pending = append(pending, s)
			}
			continue
		}
		ok, err := o.adoptHostRelay(ctx, t, o.opt.HostRetry.withDefaults().AtStart)
		cause, down := unlisted(err)
		switch {
		case down:
			o.waitForHost(t, time.Now(), cause)
		case err != nil:
			o.log.Warn("orchestrator: adopt remote relay", "task", t.ID, "err", err)
		case ok:
			adopted[t.ID] = true
			o.log.Info("orchestrator: remote relay adopted", "task", t.ID)
		}
	}
	o.leftStops(pending, adopted)
	o.startHostRetry()
}

package orchestrator

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/store"
)

type txT = sql.Tx

// run is one live session of a task. Its fields are guarded by the task
// lock (Orchestrator.lock), except sess, done and the constants.
type run struct {
	o         *Orchestrator
	taskID    string
	projectID string
	sess      agent.Session
	done      chan struct{}

	nextSeq int64 // seq of the next raw frame
	// stored counts the batches stored, for a Stop that waits on a
	// backlog (awaitDone) from another goroutine.
	stored atomic.Int64
	// recent: the last recentFrames raw frames stored plain, by seq, so a
	// message's raw data can name them instead of copying them
	recent map[int64][]byte
	// groupFrames is the frames map of the run's last group, cleared and
	// taken by the next (groups run one at a time, under the task lock): a
	// new map grew step by step at every group under a flood.
	groupFrames map[int64][]byte
	// leads: the first frames of the messages whose raw data was lately
	// named from the start (a turn's prompt, Gemini's init line), by seq,
	// at most maxLeads: a turn's later steps start their raw data with the
	// same frame, long out of recent, and name it too instead of copying
	leads       [maxLeads]leadFrame // a zero seq is an empty slot
	status      store.TaskStatus    // the task's stored status
	idle        bool                // the turn completed; the session waits for input
	stopping    bool
	stopReason  string
	unreachable time.Time // the host's link is down since (remote tasks)
	downErr     error     // and why (the last failed attempt)
	// serverHost is the host whose shared server the session uses
	// (OpenCode's): that server's link going down is this task's.
	serverHost  string
	onHost      bool   // the agent runs on a host (its relay there)
	turnFatal   string // a fatal error of the current turn
	rateLimited bool
	// echo maps the text of a user message the orchestrator stored to its
	// id, so a backend that echoes it does not show it twice.
	echo map[string]string
	// decisions by tool id, to show on the tool's message.
	decisions map[string]store.PermissionDecision
	// created is the createdAt of messages stored during this run, by id.
	created map[string]int64
	// known holds the ids of the task's stored messages (loaded at the
	// start, then kept by the run, the only writer of a running task's
	// messages), so a new message costs no lookup; nil: look every id up.
	// It grows with the task: the idle trim drops it (knownDropped) and
	// the next message of a turn loads it again (reloadKnown).
	known        map[string]bool
	knownDropped bool
	// live are the messages that stream (see liveMsg), most recent last in
	// liveOrder; dirty says one waits for its row write.
	live      map[string]*liveMsg
	liveOrder []string
	dirty     bool
	// storeErr is why the last write failed while it is retried (shown as
	// the task's status, StatusStoreError); "" when writing works.
	storeErr atomic.Pointer[string]
	// redact removes the secrets the backend passed to the agent from
	// everything it writes, before it is stored (nil: none).
	redact *agent.Redactor
}

func (r *run) storeUserMessage(ctx context.Context, tx *txT, text string, now int64) (agent.Message, error) {
	m, err := store.UpsertMessage(ctx, tx, store.MessageWrite{
		TaskID: r.taskID, Message: userMessage(text), Format: UserMessageFormat, Version: r.o.version, Now: now,
	})
	if err == nil {
		r.echo[text] = m.ID
		if r.known != nil {
			r.known[m.ID] = true
		}
	}
	return m, err
}

// leaveWaiting moves a waiting task back to running once nothing is pending.
func (r *run) leaveWaiting(ctx context.Context, tx *txT, _ store.TaskStatus, now int64) error {
	if r.status != store.StatusWaiting {
		return nil
	}
	left, err := store.ListPending(ctx, tx, r.taskID)
	if err != nil || len(left) > 0 {
		return err
	}
	if err := store.SetTaskStatus(ctx, tx, r.taskID, store.StatusRunning, "", now); err != nil {
		return err
	}
	r.status = store.StatusRunning
	return nil
}

// sendNextLocked starts the next turn of an idle session: the first queued
// message (text, when not empty, is queued behind it), else text. It stores
// the user message and the running status, emits them, and returns the
// function that sends the turn; call it after releasing the task lock.
func (r *run) sendNextLocked(ctx context.Context, text string) (func() error, error) {
	o := r.o
	now := store.Now()
	var msg agent.Message
	var queueChanged bool
	var next string
	err := o.db.Tx(ctx, func(tx *txT) error {
		q, err := store.Queue(ctx, tx, r.taskID)
		if err != nil {
			return err
		}
		next = text
		if len(q) > 0 {
			if text != "" {
				if _, err := store.Enqueue(ctx, tx, store.QueuedMessage{ID: "q-" + newID(), TaskID: r.taskID, Text: text, CreatedAt: now}); err != nil {
					return err
				}
			}
			m, _, err := store.PopQueued(ctx, tx, r.taskID)
			if err != nil {
				return err
			}
			next, queueChanged = m.Text, true
		}
		if next == "" {
			return nil
		}
		if err := store.SetTaskStatus(ctx, tx, r.taskID, store.StatusRunning, "", now); err != nil {
			return err
		}
		msg, err = r.storeUserMessage(ctx, tx, next, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if next == "" {
		return func() error { return nil }, nil
	}
	r.idle, r.turnFatal, r.status = false, "", store.StatusRunning
	o.idle.mark(r.taskID, true)
	o.emitter(r.taskID).message(agent.Event{Type: agent.EventMessage, Message: &msg}, time.Time{})
	if queueChanged {
		o.emitQueue(ctx, r.taskID)
	}
	o.emitTask(ctx, r.taskID)
	return func() error {
		if err := r.sess.SendMessage(o.ctx, next); err != nil {
			unlock := o.lock(r.taskID)
			defer unlock()
			o.log.Warn("orchestrator: send follow-up", "task", r.taskID, "err", err)
			if o.getRun(r.taskID) == r && !r.stopping {
				reason := "could not send the message: " + err.Error()
				if e := o.db.Tx(context.Background(), func(tx *txT) error {
					return store.SetTaskStatus(context.Background(), tx, r.taskID, store.StatusErrored, reason, store.Now())
				}); e == nil {
					r.status, r.idle = store.StatusErrored, true
					o.idle.mark(r.taskID, false)
					o.emitTask(context.Background(), r.taskID)
				}
			}
			return fmt.Errorf("orchestrator: send message to task %s: %w", r.taskID, err)
		}
		return nil
	}, nil
}

// loop consumes the session's batches until it ends. While it stores (or
// retries a failed store) it does not take batches: the session's bounded
// stream fills and the runtime stops reading the agent's stdout
// (backpressure), so nothing read is dropped and memory stays bounded.
func (r *run) loop() {
	defer r.o.wg.Done()
	events := r.sess.Events()
	// tick: rowInterval after a group left rows to write; it is not reset by
	// the batches that follow (a steady stream would delay it forever).
	var tick <-chan time.Time
	// buf: the batches' slice, kept from one group to the next (a new one
	// grew by doubling at every group under a flood: ~270 bytes a frame).
	var buf []agent.Batch
	for {
		switch {
		case !r.dirty:
			tick = nil
		case tick == nil:
			tick = time.After(rowInterval)
		}
		select {
		case b, ok := <-events:
			if !ok {
				r.storeRetrying(func() error { return r.flushLive() })
				r.finish(r.redact.Error(r.sess.Wait()))
				return
			}
			bs := r.redact.Batches(gather(append(buf[:0], b), events, maxGroup))
			if !r.storeRetrying(func() error { return r.handleBatches(&bs, events) }) {
				// The task is gone: keep draining so the session can end,
				// and let a relay forget what nobody keeps (else it waits
				// for the acks of its exit and keeps its files).
				ackStored(bs)
				for b := range events {
					ackStored([]agent.Batch{b})
				}
				r.finish(r.redact.Error(r.sess.Wait()))
				return
			}
			clear(bs) // stored: what they point to is not kept for the next group
			buf = bs[:0]
		case <-tick:
			tick = nil
			r.storeRetrying(func() error { return r.flushLive() })
		}
	}
}

// gather adds the batches already waiting (group commit: each whole and in
// order) until bs holds limit.
func gather(bs []agent.Batch, events <-chan agent.Batch, limit int) []agent.Batch {
	for len(bs) < limit {
		select {
		case nb, ok := <-events:
			if !ok {
				return bs
			}
			bs = append(bs, nb)
		default:
			return bs
		}
	}
	return bs
}

// stop ends the session and waits for its loop.
func (r *run) stop(parent context.Context) error {
	ctx, cancel := context.WithTimeout(parent, r.o.opt.StopTimeout)
	defer cancel()
	err := r.sess.Stop(ctx)
	if !r.awaitDone(parent, ctx) {
		return fmt.Errorf("orchestrator: stop task %s: %w", r.taskID, ctx.Err())
	}
	if err != nil && !(errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil) {
		return fmt.Errorf("orchestrator: stop task %s: %w", r.taskID, err)
	}
	return nil // ended (a session's own wait that timed out on a backlog included)
}

const (
	// stopProgressStep: past StopTimeout, Stop waits on while the run
	// stored a batch within each step of this length.
	stopProgressStep = time.Second
	// stopBacklogMax bounds that extra wait.
	stopBacklogMax = 2 * time.Minute
)

// awaitDone waits for the run's loop to end, until ctx ends; past that, for
// as long as the run keeps storing frames (up to stopBacklogMax, and while
// parent lasts). An agent adopted after it wrote a large backlog while no
// app was there is ended by Stop at once, but its relay delivers what it
// journaled before reporting the exit, and the app stores ~10k frames/s:
// a backlog of 100k frames took ~10 s, so StopTimeout alone made such a
// Stop fail with "context deadline exceeded" while the task went on
// storing, and ended by itself seconds later (TestRelayStopAdoptedWithBacklog).
func (r *run) awaitDone(parent, ctx context.Context) bool {
	select {
	case <-r.done:
		return true
	case <-ctx.Done():
	}
	limit := time.Now().Add(stopBacklogMax)
	for parent.Err() == nil && time.Now().Before(limit) {
		before := r.stored.Load()
		select {
		case <-r.done:
			return true
		case <-parent.Done():
			return false
		case <-time.After(stopProgressStep):
		}
		if r.stored.Load() == before {
			return false
		}
	}
	return false
}

// maxGroup bounds how many waiting batches one transaction stores.
const maxGroup = 256

// handleBatches stores batches in one transaction (see group): for each, in
// order, its raw frame first, then its events. After the commit it emits
// them; nothing is emitted if it fails, and the run's state is as before.
//
// The job first takes the batches that came while it waited for the writer
// (up to maxGroup in all): they go in this transaction instead of waiting
// for this one's commit and then a round of their own (the paced p99,
// docs/streaming.md fourteenth pass). *pbs grows by them, so a failed
// store is retried with them.
func (r *run) handleBatches(pbs *[]agent.Batch, events <-chan agent.Batch) error {
	o := r.o
	ctx := context.Background()
	focused := o.focused.Load()
	unlock := o.lock(r.taskID)
	var seq int64
	g := r.newGroup(ctx, nil, store.Now())
	pre, err := g.prehandle(*pbs, r.nextSeq) // outside the writer's round
	o.prehandled.Add(int64(pre))
	if err == nil {
		err = o.writer.do(func(sqlTx *txT) error {
			n := len(*pbs)
			*pbs = gather(*pbs, events, maxGroup)
			r.redact.Batches((*pbs)[n:]) // in place
			g.tx = o.prep.In(sqlTx)
			var err error
			seq, err = g.storeBatches(*pbs, r.nextSeq, pre)
			if err != nil {
				g.rollback()
			}
			return err
		})
	}
	if err != nil {
		g.rollback() // also when the commit itself failed
		unlock()
		return err
	}
	g.commitTo(r, seq)
	ackStored(*pbs) // a relay may now forget them
	r.stored.Add(int64(len(*pbs)))
	r.dirty = r.anyDirty()
	effects := g.emitLocked(ctx)
	unlock()
	effects(ctx, focused)
	return nil
}

// rollback restores the live messages the failed group changed.
func (g *group) rollback() {
	for i := len(g.snaps) - 1; i >= 0; i-- {
		g.snaps[i].restore()
	}
	g.snaps = nil
}

// emitLocked emits what the committed group stored (the caller holds the
// task lock) and returns what runs after the lock is released.
func (g *group) emitLocked(ctx context.Context) func(context.Context, bool) {
	r, o := g.r, g.r.o
	for _, e := range g.emits {
		e()
	}
	for _, d := range g.decided {
		o.reemitToolMessage(ctx, r.taskID, d.ToolID, r.decisions)
	}
	if g.reqDirty {
		o.emitRequests(ctx, r.taskID)
	}
	if g.taskDirty {
		o.emitTask(ctx, r.taskID)
	}
	after := g.after
	if g.drain {
		send, err := r.sendNextLocked(ctx, "")
		if err != nil {
			o.log.Error("orchestrator: send queued message", "task", r.taskID, "err", err)
		} else {
			after = append(after, func() { _ = send() })
		}
	}
	notes := g.notes
	return func(ctx context.Context, focused bool) {
		for _, n := range notes {
			o.sendNote(ctx, n, focused)
		}
		for _, f := range after {
			f()
		}
	}
}

// flushLive writes the rows of streaming messages whose deltas are not in
// them yet (at most every rowInterval, and before the session's end).
func (r *run) flushLive() error {
	o := r.o
	ctx := context.Background()
	unlock := o.lock(r.taskID)
	defer unlock()
	if !r.anyDirty() {
		r.dirty = false
		return nil
	}
	var g *group
	err := o.writer.do(func(sqlTx *txT) error {
		g = r.newGroup(ctx, o.prep.In(sqlTx), store.Now())
		err := g.flushAllLive()
		if err != nil {
			g.rollback()
		}
		return err
	})
	if err != nil {
		if g != nil {
			g.rollback()
		}
		return err
	}
	r.dirty = r.anyDirty()
	return nil
}

// applyRules answers a permission request by the task's mode or by a
// stored rule when one matches.
func (r *run) applyRules(ctx context.Context, tx store.SQLRunner, req agent.Request, now int64) (store.PermissionDecision, bool, error) {
	if d, ok, err := r.allowByMode(ctx, tx, req, now); ok || err != nil {
		return d, ok, err
	}
	rules, err := store.RulesFor(ctx, tx, r.projectID, r.taskID, req.ToolName)
	if err != nil {
		return store.PermissionDecision{}, false, err
	}
	for _, rule := range rules {
		if !Matches(rule, req) {
			continue
		}
		d, err := store.InsertDecision(ctx, tx, store.PermissionDecision{
			TaskID: r.taskID, RequestID: req.RequestID, ToolID: req.ToolID, ToolName: req.ToolName,
			Input: string(req.Input), Behavior: string(agent.Allow), Scope: rule.Scope, Source: "rule",
			RuleID: rule.ID, Label: "allowed by rule: " + RuleLabel(rule), CreatedAt: now,
		})
		return d, err == nil, err
	}
	return store.PermissionDecision{}, false, nil
}

// allowByMode allows every permission request of a task in bypass mode:
// bypass never asks the user, whatever the agent asks. Claude Code is
// always started with a rule that asks before every command (so that a
// switch to ask mode asks, claude.AskCommandsSettings) and asks under it
// in bypass mode too; the app answers those here. The mode is the stored
// one, the user's last choice.
func (r *run) allowByMode(ctx context.Context, tx store.SQLRunner, req agent.Request, now int64) (store.PermissionDecision, bool, error) {
	mode, err := store.TaskMode(ctx, tx, r.taskID)
	if err != nil || mode != agent.ModeBypass {
		return store.PermissionDecision{}, false, err
	}
	d, err := store.InsertDecision(ctx, tx, store.PermissionDecision{
		TaskID: r.taskID, RequestID: req.RequestID, ToolID: req.ToolID, ToolName: req.ToolName,
		Input: string(req.Input), Behavior: string(agent.Allow), Scope: store.ScopeOnce, Source: store.SourceMode,
		Label: "allowed: bypass mode", CreatedAt: now,
	})
	return d, err == nil, err
}

// finish records how the session ended.
func (r *run) finish(waitErr error) {
	o := r.o
	ctx := context.Background()
	focused := o.focused.Load()
	unlock := o.lock(r.taskID)
	now := store.Now()
	var newStatus store.TaskStatus
	var reason string
	busy := r.status == store.StatusRunning || r.status == store.StatusWaiting
	switch {
	case r.stopping && busy:
		newStatus, reason = store.StatusInterrupted, r.stopReason
	case r.stopping:
		// Stopped while idle (the turn had ended): the task keeps how
		// its last turn ended.
	case busy:
		if waitErr != nil {
			newStatus, reason = store.StatusErrored, waitErr.Error()
		} else {
			newStatus = store.StatusCompleted
		}
	}
	var resume bool
	record := func() (err error) {
		resume, err = r.recordEnd(ctx, newStatus, reason, waitErr, now)
		return err
	}
	err := record()
	for delay := storeRetryMin; err != nil && !o.isClosed() && !r.taskDeleted(); delay = min(2*delay, storeRetryMax) {
		// The end of the session is stored like its output: retried until
		// the store works again, the task showing why meanwhile.
		unlock()
		r.setStoreError(err)
		time.Sleep(delay)
		unlock = o.lock(r.taskID)
		err = record()
	}
	if err == nil {
		r.setStoreError(nil)
	}
	if err != nil {
		o.log.Error("orchestrator: record session end", "task", r.taskID, "err", err)
	}
	if newStatus != "" {
		r.status = newStatus
	}
	o.mu.Lock()
	delete(o.runs, r.taskID)
	closed := o.closed
	o.mu.Unlock()
	o.idle.mark(r.taskID, false)
	o.emitter(r.taskID).flush()
	o.emitRequests(ctx, r.taskID)
	o.emitTask(ctx, r.taskID)
	unlock()
	if newStatus == store.StatusErrored {
		o.sendNote(ctx, o.taskNote(r.taskID, notify.KindError, firstLine(reason)), focused)
	}
	if o.opt.Workspace != nil {
		o.opt.Workspace.RunEnded(ctx, r.taskID)
	}
	if o.opt.OnRunEnd != nil {
		o.opt.OnRunEnd(ctx, r.taskID)
	}
	close(r.done)
	if resume && !closed {
		if err := o.Resume(ctx, r.taskID); err != nil {
			o.log.Warn("orchestrator: resume with queued message", "task", r.taskID, "err", err)
		}
	}
}

// recordEnd stores the end of the session: pending requests cleared, the
// process forgotten, the new status (when not empty); resume says a queued
// follow-up waits for a new session.
func (r *run) recordEnd(ctx context.Context, newStatus store.TaskStatus, reason string, waitErr error, now int64) (resume bool, err error) {
	err = r.o.db.TxDeferIndex(ctx, func(tx *txT) error { // no message: the writer indexes in its pause
		resume = false
		if err := store.ClearPending(ctx, tx, r.taskID); err != nil {
			return err
		}
		if err := store.ForgetAgentProcess(ctx, tx, r.taskID); err != nil {
			return err
		}
		if newStatus != "" {
			if err := store.SetTaskStatus(ctx, tx, r.taskID, newStatus, reason, now); err != nil {
				return err
			}
			if err := store.SetTaskUnread(ctx, tx, r.taskID, true, now); err != nil {
				return err
			}
		}
		final := newStatus
		if final == "" {
			final = r.status
		}
		if waitErr == nil && !r.stopping && final == store.StatusCompleted {
			q, err := store.Queue(ctx, tx, r.taskID)
			if err != nil {
				return err
			}
			resume = len(q) > 0
		}
		return nil
	})
	return resume, err
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

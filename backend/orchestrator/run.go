package orchestrator

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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

	nextSeq     int64  // seq of the next raw frame
	status      string // the task's stored status
	idle        bool   // the turn completed; the session waits for input
	stopping    bool
	stopReason  string
	turnFatal   string // a fatal error of the current turn
	rateLimited bool
	// echo maps the text of a user message the orchestrator stored to its
	// id, so a backend that echoes it does not show it twice.
	echo map[string]string
	// decisions by tool id, to show on the tool's message.
	decisions map[string]store.PermissionDecision
	// created is the createdAt of messages stored during this run, by id.
	created map[string]int64
}

func (r *run) storeUserMessage(ctx context.Context, tx *txT, text string, now int64) (agent.Message, error) {
	m, err := store.UpsertMessage(ctx, tx, store.MessageWrite{
		TaskID: r.taskID, Message: userMessage(text), Format: UserMessageFormat, Version: r.o.version, Now: now,
	})
	if err == nil {
		r.echo[text] = m.ID
	}
	return m, err
}

// leaveWaiting moves a waiting task back to running once nothing is pending.
func (r *run) leaveWaiting(ctx context.Context, tx *txT, _ string, now int64) error {
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
					o.emitTask(context.Background(), r.taskID)
				}
			}
			return fmt.Errorf("orchestrator: send message to task %s: %w", r.taskID, err)
		}
		return nil
	}, nil
}

// loop consumes the session's batches until it ends.
func (r *run) loop() {
	defer r.o.wg.Done()
	events := r.sess.Events()
	for b := range events {
		// Group commit: what is already waiting goes in the same
		// transaction (each batch whole and in order).
		bs := append(make([]agent.Batch, 0, 8), b)
	more:
		for len(bs) < maxGroup {
			select {
			case nb, ok := <-events:
				if !ok {
					break more
				}
				bs = append(bs, nb)
			default:
				break more
			}
		}
		r.handleBatches(bs)
	}
	r.finish(r.sess.Wait())
}

// stop ends the session and waits for its loop.
func (r *run) stop(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.o.opt.StopTimeout)
	defer cancel()
	err := r.sess.Stop(ctx)
	select {
	case <-r.done:
	case <-ctx.Done():
		return fmt.Errorf("orchestrator: stop task %s: %w", r.taskID, ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("orchestrator: stop task %s: %w", r.taskID, err)
	}
	return nil
}

// emission is something to emit once the batch is committed.
type emission func()

// maxGroup bounds how many waiting batches one transaction stores.
const maxGroup = 256

// handleBatches stores batches in one transaction: for each, in order, its
// raw frame first, then its normalized messages and the state changes they
// cause. After the commit it emits them; nothing is emitted if it fails.
func (r *run) handleBatches(bs []agent.Batch) {
	o := r.o
	ctx := context.Background()
	focused := o.focused.Load()
	unlock := o.lock(r.taskID)
	now := store.Now()
	em := o.emitter(r.taskID)
	seq := r.nextSeq
	var (
		emits     []emission
		after     []func()
		notes     []notify.Notification
		newStatus = r.status
		reason    string
		setStatus bool
		taskDirty bool
		reqDirty  bool
		drain     bool
		idle      = r.idle
		turnFatal = r.turnFatal
		rateLim   = r.rateLimited
		decided   []store.PermissionDecision
	)
	status := func(s, why string) {
		newStatus, reason, setStatus, taskDirty = s, why, true, true
	}
	err := o.writer.do(func(sqlTx *txT) error {
		tx := o.prep.In(sqlTx)
		for _, b := range bs {
			received := b.ReceivedAt
			if received.IsZero() {
				received = time.UnixMilli(now)
			}
			if b.Frame != nil {
				if err := store.InsertRawFrame(ctx, tx, store.RawFrame{TaskID: r.taskID, Seq: seq, Format: b.Format,
					Data: b.Frame, ReceivedAt: received.UnixMilli()}); err != nil {
					return err
				}
				seq++
			}
			for _, ev := range b.Events {
				ev := ev
				if ev.Type != agent.EventMessage {
					data, _ := json.Marshal(ev)
					if err := store.InsertTaskEvent(ctx, tx, r.taskID, string(ev.Type), data, now); err != nil {
						return err
					}
				}
				switch ev.Type {
				case agent.EventMessage:
					if ev.Message == nil {
						continue
					}
					if ev.Message.Role == agent.RoleUser && len(ev.Message.Parts) == 1 && ev.Message.Parts[0].Type == agent.PartText {
						if id, ok := r.echo[ev.Message.Parts[0].Text]; ok && id != ev.Message.ID {
							if err := store.DeleteMessage(ctx, tx, r.taskID, id); err != nil {
								return err
							}
							delete(r.echo, ev.Message.Parts[0].Text)
							emits = append(emits, func() {
								em.agentEvent(agent.Event{Type: agent.EventMessageRemoved, MessageID: id}, time.Time{})
							})
						}
					}
					m, err := store.UpsertMessage(ctx, tx, store.MessageWrite{TaskID: r.taskID, Message: *ev.Message,
						Raw: ev.Raw, Format: b.Format, Version: o.version, Now: now})
					if err != nil {
						return err
					}
					if rateLim && newStatus == store.StatusRunning {
						rateLim = false
						status(store.StatusRunning, "")
					}
					emits = append(emits, func() {
						dm := decorate(m, r.decisions)
						em.message(agent.Event{Type: agent.EventMessage, Message: &dm}, received)
					})
				case agent.EventMessageRemoved:
					if err := store.DeleteMessage(ctx, tx, r.taskID, ev.MessageID); err != nil {
						return err
					}
					emits = append(emits, func() { em.agentEvent(ev, received) })
				case agent.EventSessionID:
					if ev.SessionID != "" {
						if err := store.SetTaskSessionID(ctx, tx, r.taskID, ev.SessionID, now); err != nil {
							return err
						}
						taskDirty = true
					}
				case agent.EventModeChange:
					if ev.Mode.Valid() {
						if err := store.SetTaskMode(ctx, tx, r.taskID, string(ev.Mode), now); err != nil {
							return err
						}
						taskDirty = true
					}
					emits = append(emits, func() { em.agentEvent(ev, received) })
				case agent.EventPermissionRequest, agent.EventQuestion:
					if ev.Request == nil {
						continue
					}
					if ev.Type == agent.EventPermissionRequest {
						d, ok, err := r.applyRules(ctx, tx, *ev.Request, now)
						if err != nil {
							return err
						}
						if ok {
							decided = append(decided, d)
							reqID := ev.Request.RequestID
							emits = append(emits, func() { em.decision(d) })
							after = append(after, func() {
								if err := r.sess.RespondToPermission(o.ctx, reqID, agent.PermissionResponse{Behavior: agent.Allow}); err != nil {
									o.log.Warn("orchestrator: auto-allow", "task", r.taskID, "request", reqID, "err", err)
								}
							})
							continue
						}
					}
					kind := store.RequestPermission
					if ev.Type == agent.EventQuestion {
						kind = store.RequestQuestion
					}
					if err := store.AddPending(ctx, tx, store.PendingRequest{TaskID: r.taskID, RequestID: ev.Request.RequestID,
						Kind: kind, Request: *ev.Request, CreatedAt: now}); err != nil {
						return err
					}
					reqDirty = true
					if newStatus != store.StatusWaiting {
						status(store.StatusWaiting, "")
					}
					notes = append(notes, r.o.requestNote(r.taskID, kind, *ev.Request))
					emits = append(emits, func() { em.agentEvent(ev, received) })
				case agent.EventComplete:
					if err := store.ClearPending(ctx, tx, r.taskID); err != nil {
						return err
					}
					reqDirty = true
					res := agent.Result{}
					if ev.Result != nil {
						res = *ev.Result
					}
					q, err := store.Queue(ctx, tx, r.taskID)
					if err != nil {
						return err
					}
					switch {
					case r.stopping || res.Interrupted:
						why := r.stopReason
						if why == "" {
							why = "Interrupted"
						}
						status(store.StatusInterrupted, why)
					case turnFatal != "":
						status(store.StatusErrored, turnFatal)
					case res.IsError:
						why := firstLine(res.Text)
						if why == "" {
							why = "the agent reported an error"
						}
						status(store.StatusErrored, why)
						notes = append(notes, r.o.taskNote(r.taskID, notify.KindError, why))
					case len(q) > 0:
						drain = true
					default:
						status(store.StatusCompleted, "")
						notes = append(notes, r.o.taskNote(r.taskID, notify.KindComplete, firstLine(res.Text)))
					}
					if !drain {
						if err := store.SetTaskUnread(ctx, tx, r.taskID, true, now); err != nil {
							return err
						}
					}
					idle, turnFatal = true, ""
					emits = append(emits, func() { em.agentEvent(ev, received) })
				case agent.EventError:
					if ev.Fatal {
						turnFatal = ev.Error
						status(store.StatusErrored, ev.Error)
						notes = append(notes, r.o.taskNote(r.taskID, notify.KindError, firstLine(ev.Error)))
					}
					emits = append(emits, func() { em.agentEvent(ev, received) })
				case agent.EventRateLimit:
					why := "Rate limited"
					if ev.RetryAfterMs != nil {
						why += fmt.Sprintf("; retrying in %s", (time.Duration(*ev.RetryAfterMs) * time.Millisecond).Round(time.Second))
					}
					if ev.MaxRetries > 0 {
						why += fmt.Sprintf(" (attempt %d of %d)", ev.Attempt, ev.MaxRetries)
					}
					if ev.Error != "" {
						why += ": " + firstLine(ev.Error)
					}
					if newStatus == store.StatusRunning || newStatus == store.StatusWaiting {
						status(newStatus, why)
						rateLim = true
					}
					emits = append(emits, func() { em.agentEvent(ev, received) })
				default: // session-updated, tool-state-update, and types added later
					emits = append(emits, func() { em.agentEvent(ev, received) })
				}
			}
		}
		if setStatus {
			if err := store.SetTaskStatus(ctx, tx, r.taskID, newStatus, reason, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		// Nothing of this batch is stored, so nothing is emitted.
		if _, lerr := store.LoadTaskRun(ctx, o.db.R, r.taskID); errors.Is(lerr, store.ErrNotFound) {
			// The task was deleted under a live session: end it.
			o.log.Info("orchestrator: task deleted while its agent ran; stopping it", "task", r.taskID)
			if !r.stopping {
				r.stopping, r.stopReason = true, ReasonStopped
				go func() { _ = r.stop(context.Background()) }()
			}
		} else {
			o.log.Error("orchestrator: store batches", "task", r.taskID, "seq", r.nextSeq, "batches", len(bs), "err", err)
		}
		unlock()
		return
	}
	r.nextSeq = seq
	r.status, r.idle, r.turnFatal, r.rateLimited = newStatus, idle, turnFatal, rateLim
	for _, d := range decided {
		if d.ToolID != "" {
			r.decisions[d.ToolID] = d
		}
	}
	for _, e := range emits {
		e()
	}
	for _, d := range decided {
		o.reemitToolMessage(ctx, r.taskID, d.ToolID, r.decisions)
	}
	if reqDirty {
		o.emitRequests(ctx, r.taskID)
	}
	if taskDirty {
		o.emitTask(ctx, r.taskID)
	}
	if drain {
		send, err := r.sendNextLocked(ctx, "")
		if err != nil {
			o.log.Error("orchestrator: send queued message", "task", r.taskID, "err", err)
		} else {
			after = append(after, func() { _ = send() })
		}
	}
	unlock()
	for _, n := range notes {
		o.sendNote(ctx, n, focused)
	}
	for _, f := range after {
		f()
	}
}

// applyRules answers a permission request by a stored rule when one matches.
func (r *run) applyRules(ctx context.Context, tx store.SQLRunner, req agent.Request, now int64) (store.PermissionDecision, bool, error) {
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

// finish records how the session ended.
func (r *run) finish(waitErr error) {
	o := r.o
	ctx := context.Background()
	focused := o.focused.Load()
	unlock := o.lock(r.taskID)
	now := store.Now()
	var newStatus, reason string
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
	err := o.db.Tx(ctx, func(tx *txT) error {
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
	o.emitter(r.taskID).flush()
	o.emitRequests(ctx, r.taskID)
	o.emitTask(ctx, r.taskID)
	unlock()
	if newStatus == store.StatusErrored {
		o.sendNote(ctx, o.taskNote(r.taskID, notify.KindError, firstLine(reason)), focused)
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

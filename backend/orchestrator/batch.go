package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/limits"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/store"
)

// group is one group commit of a run's batches: the handlers (one method per
// event kind) write inside the transaction and return their effects here;
// the run's own state changes only once the transaction committed
// (commitTo), and the effects (emits, notifications, follow-up sends) run
// after that, in order. Nothing is emitted when the transaction fails.
type group struct {
	r        *run
	ctx      context.Context
	tx       store.SQLRunner
	now      int64
	em       *taskEmitter
	received time.Time
	format   string
	seq      int64 // seq of the frame being handled (-1: a synthesized batch)

	// the run's state as the batches change it
	status      store.TaskStatus
	reason      string
	setStatus   bool
	idle        bool
	turnFatal   string
	rateLimited bool

	taskDirty, reqDirty, drain bool
	emits                      []func()
	after                      []func()
	notes                      []notify.Notification
	decided                    []store.PermissionDecision
	echoUsed                   []string
	live                       map[string]*liveMsg // messages this group touched (nil: removed)
	snaps                      []liveSnap          // their state before, restored if the group fails
	pending                    map[string]*pendingRow
	inserts                    []store.MessageWrite // new rows written at the flush's end (insertNew)
	pendingOrder               []string
	frames                     map[int64][]byte // the raw frames this group stored plain, by seq
	leads                      []leadFrame      // first frames of raw data named from the start (run.leads)
	maxSeq                     int64            // the last raw frame's seq
}

func (r *run) newGroup(ctx context.Context, tx store.SQLRunner, now int64) *group {
	if r.groupFrames == nil {
		r.groupFrames = map[int64][]byte{}
	}
	clear(r.groupFrames)
	return &group{r: r, ctx: ctx, tx: tx, now: now, em: r.o.emitter(r.taskID),
		status: r.status, idle: r.idle, turnFatal: r.turnFatal, rateLimited: r.rateLimited,
		live: map[string]*liveMsg{}, pending: map[string]*pendingRow{}, frames: r.groupFrames, maxSeq: r.nextSeq - 1}
}

func (g *group) setTaskStatus(s store.TaskStatus, why string) {
	g.status, g.reason, g.setStatus, g.taskDirty = s, why, true, true
}

func (g *group) emit(ev agent.Event) {
	received := g.received
	g.emits = append(g.emits, func() { g.em.agentEvent(ev, received) })
}

// prehandle handles, before the group's transaction, the batches at the
// head of bs whose events touch only what the run holds in memory (a
// message that streams or a new one, and their deltas: see inMemory). The
// single writer, which every task's transaction waits for, then only
// stores what they changed. Their frames get the seqs storeFrames gives
// them (frameSeqs). It returns how many batches it handled;
// storeBatches handles the others, in the transaction.
func (g *group) prehandle(bs []agent.Batch, seq int64) (int, error) {
	seqs, _ := frameSeqs(bs, seq)
	for i, b := range bs {
		if b.Replayed {
			continue // stored before the restart: no frame, nothing to handle
		}
		if !g.inMemory(b.Events) {
			return i, nil
		}
		if err := g.handleBatch(b, seqs[i]); err != nil {
			return i, err
		}
	}
	return len(bs), nil
}

// handleBatch handles b's events as if its frame (seq; -1: none) were the
// last one stored.
func (g *group) handleBatch(b agent.Batch, seq int64) error {
	g.received, g.format, g.seq = receivedAt(b, g.now), b.Format, seq
	if seq >= 0 {
		g.maxSeq = seq
		g.detectLimit(b)
	}
	for _, ev := range b.Events {
		if err := g.handle(ev); err != nil {
			return err
		}
	}
	return nil
}

// inMemory tells whether handling evs reads and writes nothing in the
// database: whole messages and deltas of messages the run holds in memory
// or knows are new (liveFor reads nothing for them), and no echo of the
// user's own message (its removal is a write).
func (g *group) inMemory(evs []agent.Event) bool {
	for _, ev := range evs {
		switch ev.Type {
		case agent.EventMessage:
			if ev.Message == nil {
				continue
			}
			if _, echo := echoOf(g.r.echo, *ev.Message); echo || !g.liveInMemory(ev.Message.ID) {
				return false
			}
		case agent.EventDelta:
			if ev.Delta != nil && ev.MessageID != "" && !g.liveInMemory(ev.MessageID) {
				return false
			}
		default:
			return false // stored as a task event, or it changes the task
		}
	}
	return true
}

// liveInMemory tells whether liveFor(id) reads nothing in the database (it
// mirrors liveFor's cases).
func (g *group) liveInMemory(id string) bool {
	lm, touched := g.live[id]
	if lm != nil || (!touched && g.r.live[id] != nil) {
		return true
	}
	if g.r.knownDropped {
		return false
	}
	return touched || (g.r.known != nil && !g.r.known[id])
}

// storeBatches stores bs in order: their raw frames first (several rows
// per statement), then each batch's events, handled as if its frame were
// the last one stored. The first pre batches were handled already
// (prehandle).
func (g *group) storeBatches(bs []agent.Batch, seq int64, pre int) (int64, error) {
	seqs, next, err := g.storeFrames(bs, seq)
	if err != nil {
		return seq, err
	}
	var relayID string
	var relaySeq uint64
	for i, b := range bs {
		if b.Replayed {
			continue // stored before the restart; it only rebuilt the normalizer
		}
		if b.RelayID != "" {
			relayID, relaySeq = b.RelayID, b.RelaySeq
		}
		if i < pre {
			continue
		}
		if err := g.handleBatch(b, seqs[i]); err != nil {
			return seq, err
		}
	}
	if relayID != "" { // in the same transaction as the frames: stored exactly once
		if err := store.SetRelayProgress(g.ctx, g.tx, relayID, g.r.taskID, relaySeq, g.now); err != nil {
			return seq, err
		}
	}
	if err := g.flushPending(false); err != nil {
		return seq, err
	}
	if g.setStatus {
		if err := store.SetTaskStatus(g.ctx, g.tx, g.r.taskID, g.status, g.reason, g.now); err != nil {
			return seq, err
		}
	}
	return next, nil
}

// storeFrames stores the raw frames of bs (replayed ones excepted) with
// consecutive seqs from seq and returns each batch's seq (-1: no frame)
// and the seq of the next frame.
func (g *group) storeFrames(bs []agent.Batch, seq int64) ([]int64, int64, error) {
	seqs, next := frameSeqs(bs, seq)
	rows := make([]store.RawFrame, 0, len(bs))
	for i, b := range bs {
		if seqs[i] < 0 {
			continue
		}
		rows = append(rows, store.RawFrame{TaskID: g.r.taskID, Seq: seqs[i], Format: b.Format,
			Data: b.Frame, ReceivedAt: receivedAt(b, g.now).UnixMilli()})
		if len(b.Frame) <= store.GzipThreshold {
			g.frames[seqs[i]] = b.Frame
		}
	}
	return seqs, next, store.InsertRawFrames(g.ctx, g.tx, rows)
}

// frameSeqs gives each batch of bs the seq of its raw frame, consecutive
// from seq (-1: a replayed batch, or one without a frame), and returns the
// seq of the next frame.
func frameSeqs(bs []agent.Batch, seq int64) ([]int64, int64) {
	seqs := make([]int64, len(bs))
	for i, b := range bs {
		seqs[i] = -1
		if !b.Replayed && b.Frame != nil {
			seqs[i], seq = seq, seq+1
		}
	}
	return seqs, seq
}

// receivedAt is when b was read (now for a synthesized batch).
func receivedAt(b agent.Batch, now int64) time.Time {
	if b.ReceivedAt.IsZero() {
		return time.UnixMilli(now)
	}
	return b.ReceivedAt
}

// detectLimit reports a usage limit with a reset time the frame carries
// (Options.OnLimit), once the group committed.
func (g *group) detectLimit(b agent.Batch) {
	on := g.r.o.opt.OnLimit
	if on == nil {
		return
	}
	if l, ok := limits.Detect(b.Format, b.Frame, g.received); ok {
		id := g.r.taskID
		g.after = append(g.after, func() { on(id, l) })
	}
}

// handle stores one event and records its effects.
func (g *group) handle(ev agent.Event) error {
	if ev.Type != agent.EventMessage && ev.Type != agent.EventDelta {
		data, _ := json.Marshal(ev)
		if err := store.InsertTaskEvent(g.ctx, g.tx, g.r.taskID, string(ev.Type), data, g.now); err != nil {
			return err
		}
	}
	switch ev.Type {
	case agent.EventMessage:
		return g.onMessage(ev)
	case agent.EventDelta:
		return g.onDelta(ev)
	case agent.EventMessageRemoved:
		return g.onRemoved(ev)
	case agent.EventSessionID:
		return g.onSessionID(ev)
	case agent.EventModeChange:
		return g.onModeChange(ev)
	case agent.EventPermissionRequest, agent.EventQuestion:
		return g.onRequest(ev)
	case agent.EventComplete:
		return g.onComplete(ev)
	case agent.EventError:
		g.onError(ev)
	case agent.EventRateLimit:
		g.onRateLimit(ev)
	case agent.EventRequestResolved:
		return g.onResolved(ev)
	default: // session-updated, tool-state-update, and types added later
		g.emit(ev)
	}
	return nil
}

// onMessage takes a whole message (a structural change: its row is written
// at the group's end, once, whatever number of versions the group saw).
func (g *group) onMessage(ev agent.Event) error {
	if ev.Message == nil {
		return nil
	}
	if id, ok := echoOf(g.r.echo, *ev.Message); ok {
		if err := store.DeleteMessage(g.ctx, g.tx, g.r.taskID, id); err != nil {
			return err
		}
		g.dropPending(id)
		g.live[id] = nil
		g.echoUsed = append(g.echoUsed, ev.Message.Parts[0].Text)
		g.emit(agent.Event{Type: agent.EventMessageRemoved, MessageID: id})
	}
	lm, err := g.liveFor(ev.Message.ID, false)
	if err != nil {
		return err
	}
	g.adoptRaw(lm, ev.Raw)
	lm.acc, lm.format = agent.NewAccumulator(*ev.Message), g.format
	m := lm.asStored(g.now)
	if g.rateLimited && g.status == store.StatusRunning {
		g.rateLimited = false
		g.setTaskStatus(store.StatusRunning, "")
	}
	received, decisions := g.received, g.r.decisions
	g.emits = append(g.emits, func() {
		dm := decorate(m, decisions)
		g.em.message(agent.Event{Type: agent.EventMessage, Message: &dm}, received)
	})
	return nil
}

// onDelta appends streamed text: the frame joins the message's raw chunk of
// this group (linear storage), the message row is rewritten at most every
// rowInterval (the loop flushes the rest), and the delta alone is emitted.
func (g *group) onDelta(ev agent.Event) error {
	if ev.Delta == nil || ev.MessageID == "" {
		return nil
	}
	lm, err := g.liveFor(ev.MessageID, true)
	if err != nil || lm == nil {
		return err // a delta for a message never stored: nothing to append to
	}
	if !lm.acc.Apply(*ev.Delta) {
		return nil
	}
	g.appendRaw(lm, ev.Raw, ev.MessageRaw)
	lm.dirty = true
	received := g.received
	g.emits = append(g.emits, func() { g.em.delta(ev, received) })
	return nil
}

func (g *group) onRemoved(ev agent.Event) error {
	if err := store.DeleteMessage(g.ctx, g.tx, g.r.taskID, ev.MessageID); err != nil {
		return err
	}
	g.live[ev.MessageID] = nil
	g.dropPending(ev.MessageID)
	g.emit(ev)
	return nil
}

func (g *group) onSessionID(ev agent.Event) error {
	if ev.SessionID == "" {
		return nil
	}
	g.taskDirty = true
	return store.SetTaskSessionID(g.ctx, g.tx, g.r.taskID, ev.SessionID, g.now)
}

func (g *group) onModeChange(ev agent.Event) error {
	if ev.Mode.Valid() {
		if err := store.SetTaskMode(g.ctx, g.tx, g.r.taskID, string(ev.Mode), g.now); err != nil {
			return err
		}
		g.taskDirty = true
	}
	g.emit(ev)
	return nil
}

// onRequest answers a permission request by a rule (auto-allow) or stores
// it as pending and makes the task wait.
func (g *group) onRequest(ev agent.Event) error {
	if ev.Request == nil {
		return nil
	}
	if ev.Type == agent.EventPermissionRequest {
		d, ok, err := g.r.applyRules(g.ctx, g.tx, *ev.Request, g.now)
		if err != nil {
			return err
		}
		if ok {
			g.autoAllow(d, ev.Request.RequestID)
			return nil
		}
	}
	kind := store.RequestPermission
	if ev.Type == agent.EventQuestion {
		kind = store.RequestQuestion
	}
	if err := store.AddPending(g.ctx, g.tx, store.PendingRequest{TaskID: g.r.taskID, RequestID: ev.Request.RequestID,
		Kind: kind, Request: *ev.Request, CreatedAt: g.now}); err != nil {
		return err
	}
	g.reqDirty = true
	if g.status != store.StatusWaiting {
		g.setTaskStatus(store.StatusWaiting, "")
	}
	g.notes = append(g.notes, g.r.o.requestNote(g.r.taskID, kind, *ev.Request))
	g.emit(ev)
	return nil
}

// onResolved drops a request the agent no longer has pending (answered in
// another client of the agent, or gone while the app was away); the echo
// of the app's own answer finds it dropped already.
func (g *group) onResolved(ev agent.Event) error {
	if ev.Request == nil || ev.Request.RequestID == "" {
		return nil
	}
	held, err := store.TakePending(g.ctx, g.tx, g.r.taskID, ev.Request.RequestID)
	if err != nil || !held {
		return err
	}
	g.r.o.log.Info("orchestrator: request answered outside the app", "task", g.r.taskID, "request", ev.Request.RequestID)
	g.reqDirty = true
	if g.status != store.StatusWaiting {
		return nil
	}
	left, err := store.ListPending(g.ctx, g.tx, g.r.taskID)
	if err != nil || len(left) > 0 {
		return err
	}
	g.setTaskStatus(store.StatusRunning, "")
	return nil
}

// autoAllow: a request a stored rule allows is answered by the app, after
// the decision is committed (commit, then act).
func (g *group) autoAllow(d store.PermissionDecision, reqID string) {
	r := g.r
	g.decided = append(g.decided, d)
	g.emits = append(g.emits, func() { g.em.decision(d) })
	g.after = append(g.after, func() {
		if err := r.sess.RespondToPermission(r.o.ctx, reqID, agent.PermissionResponse{Behavior: agent.Allow}); err != nil {
			r.o.log.Warn("orchestrator: auto-allow", "task", r.taskID, "request", reqID, "err", err)
		}
	})
}

// onComplete ends the turn: pending requests go, the task takes the turn's
// outcome, or the queue drains.
func (g *group) onComplete(ev agent.Event) error {
	if err := g.flushAllLive(); err != nil {
		return err
	}
	if err := store.ClearPending(g.ctx, g.tx, g.r.taskID); err != nil {
		return err
	}
	g.reqDirty = true
	res := agent.Result{}
	if ev.Result != nil {
		res = *ev.Result
	}
	q, err := store.Queue(g.ctx, g.tx, g.r.taskID)
	if err != nil {
		return err
	}
	st, why, note := turnOutcome(g.r.stopping, g.r.stopReason, g.turnFatal, res)
	switch {
	case st == "" && len(q) > 0:
		g.drain = true // queue draining: the next queued follow-up starts the next turn
	case st == "":
		g.setTaskStatus(store.StatusCompleted, "")
		g.notes = append(g.notes, g.r.o.taskNote(g.r.taskID, notify.KindComplete, firstLine(res.Text)))
	default:
		g.setTaskStatus(st, why)
		if note {
			g.notes = append(g.notes, g.r.o.taskNote(g.r.taskID, notify.KindError, why))
		}
	}
	if !g.drain {
		if err := store.SetTaskUnread(g.ctx, g.tx, g.r.taskID, true, g.now); err != nil {
			return err
		}
	}
	g.idle, g.turnFatal = true, ""
	g.emit(ev)
	return nil
}

// turnOutcome is the status a finished turn leaves (empty: completed, or
// drain the queue), why, and whether to notify an error.
func turnOutcome(stopping bool, stopReason, turnFatal string, res agent.Result) (store.TaskStatus, string, bool) {
	switch {
	case stopping || res.Interrupted:
		if stopReason == "" {
			stopReason = "Interrupted"
		}
		return store.StatusInterrupted, stopReason, false
	case turnFatal != "":
		return store.StatusErrored, turnFatal, false
	case res.IsError:
		why := firstLine(res.Text)
		if why == "" {
			why = "the agent reported an error"
		}
		return store.StatusErrored, why, true
	}
	return "", "", false
}

func (g *group) onError(ev agent.Event) {
	if ev.Fatal {
		g.turnFatal = ev.Error
		g.setTaskStatus(store.StatusErrored, ev.Error)
		g.notes = append(g.notes, g.r.o.taskNote(g.r.taskID, notify.KindError, firstLine(ev.Error)))
	}
	g.emit(ev)
}

func (g *group) onRateLimit(ev agent.Event) {
	if g.status == store.StatusRunning || g.status == store.StatusWaiting {
		g.setTaskStatus(g.status, rateLimitReason(ev))
		g.rateLimited = true
	}
	g.emit(ev)
}

func rateLimitReason(ev agent.Event) string {
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
	return why
}

// echoOf is echo de-duplication: a user message the backend echoes with
// exactly the text of one the orchestrator stored itself (under another
// id) replaces it; it returns the stored message's id.
func echoOf(echo map[string]string, m agent.Message) (string, bool) {
	if m.Role != agent.RoleUser || len(m.Parts) != 1 || m.Parts[0].Type != agent.PartText {
		return "", false
	}
	id, ok := echo[m.Parts[0].Text]
	return id, ok && id != m.ID
}

// commitTo applies the group's state to its run, once committed.
func (g *group) commitTo(r *run, seq int64) {
	r.nextSeq = seq
	if r.idle != g.idle {
		r.o.idle.mark(r.taskID, !g.idle) // a turn ended (or began)
	}
	r.status, r.idle, r.turnFatal, r.rateLimited = g.status, g.idle, g.turnFatal, g.rateLimited
	for _, text := range g.echoUsed {
		delete(r.echo, text)
	}
	r.keepRecent(g.frames, seq)
	r.keepLeads(g.leads)
	for _, d := range g.decided {
		if d.ToolID != "" {
			r.decisions[d.ToolID] = d
		}
	}
	for id, lm := range g.live {
		if lm == nil {
			delete(r.live, id)
			delete(r.known, id)
			continue
		}
		if lm.stored && r.known != nil {
			r.known[id] = true
		}
		r.live[id] = lm
		r.liveOrder = append(r.liveOrder, id)
	}
	r.evictLive()
}

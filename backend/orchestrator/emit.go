package orchestrator

import (
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Event names emitted to the frontend.
const (
	EventAgent       = "agent:event"
	EventTaskUpdated = "task:updated"
	EventQueue       = "queue:updated"
	EventRequests    = "requests:updated"
	EventDecision    = "permission:decided"
	EventAnswered    = "question:answered"
	EventRenormalize = "renormalize:progress"
)

// Emitter delivers named events to the frontend: the Wails runtime in the
// app, a recorder in tests. Emit must not block for long.
type Emitter interface {
	Emit(name string, payload any)
}

// EmitterFunc adapts a function to Emitter.
type EmitterFunc func(name string, payload any)

// Emit implements Emitter.
func (f EmitterFunc) Emit(name string, payload any) { f(name, payload) }

// AgentEventPayload is the "agent:event" payload: one stored agent event of a
// task, numbered by a per-task sequence the frontend can order by.
type AgentEventPayload struct {
	TaskID string      `json:"taskId"`
	Seq    int64       `json:"seq"`
	Event  agent.Event `json:"event"`
	// ReceivedAt is when the transport read the frame behind the event
	// (zero for events the orchestrator made); for latency measurements.
	ReceivedAt time.Time `json:"-"`
}

// QueuePayload is the "queue:updated" payload.
type QueuePayload struct {
	TaskID string                `json:"taskId"`
	Items  []store.QueuedMessage `json:"items"`
}

// RequestsPayload is the "requests:updated" payload: the task's pending
// permission requests and questions.
type RequestsPayload struct {
	TaskID   string                 `json:"taskId"`
	Requests []store.PendingRequest `json:"requests"`
}

// DecisionPayload is the "permission:decided" payload: a permission request
// answered, by the user or automatically by a rule (Decision.Label says
// which, e.g. "allowed by rule: Bash(npm test:*) for this project").
type DecisionPayload struct {
	TaskID   string                   `json:"taskId"`
	Seq      int64                    `json:"seq"`
	Decision store.PermissionDecision `json:"decision"`
}

// AnswerPayload is the "question:answered" payload: the user's answer to a
// question, as stored.
type AnswerPayload struct {
	TaskID string               `json:"taskId"`
	Answer store.QuestionAnswer `json:"answer"`
}

// ProgressPayload is the "renormalize:progress" payload.
type ProgressPayload struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// taskEmitter emits one task's events in order. Message and delta events
// may be coalesced for a short window: the latest version of a message wins,
// in the position of its first pending version, and drops the deltas of that
// message still pending (the whole message already holds their text);
// adjacent deltas to the same part of the same message go out as one event
// carrying their joined text. Every other event first flushes what is
// pending, then goes out at once. Fewer, larger events matter in the app:
// Wails v2 hands each event to the webview as a new script, and WebKit's
// memory grew with the number of events delivered (make soak).
type taskEmitter struct {
	out    Emitter
	taskID string
	window time.Duration

	mu      sync.Mutex
	seq     int64
	pending []AgentEventPayload
	index   map[string]int // message id -> position in pending
	deltas  map[string]int // message id -> deltas of it in pending
	timer   *time.Timer
	last    time.Time // when held-back events last went out (or the emitter was made)
}

func newTaskEmitter(out Emitter, taskID string, window time.Duration) *taskEmitter {
	return &taskEmitter{out: out, taskID: taskID, window: window, index: map[string]int{}, deltas: map[string]int{}, last: time.Now()}
}

// message emits a message event, coalesced.
func (e *taskEmitter) message(ev agent.Event, receivedAt time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.window <= 0 || ev.Message == nil {
		e.flushLocked()
		e.emitAgentLocked(ev, receivedAt)
		return
	}
	p := AgentEventPayload{TaskID: e.taskID, Event: ev, ReceivedAt: receivedAt}
	if e.deltas[ev.Message.ID] > 0 {
		e.dropDeltasLocked(ev.Message.ID)
	}
	if i, ok := e.index[ev.Message.ID]; ok {
		e.pending[i] = p
	} else {
		e.index[ev.Message.ID] = len(e.pending)
		e.pending = append(e.pending, p)
	}
	e.armLocked()
}

// delta emits a delta event, coalesced with the pending delta before it
// when both append to the same part of the same message.
func (e *taskEmitter) delta(ev agent.Event, receivedAt time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.window <= 0 || ev.Delta == nil {
		e.flushLocked()
		e.emitAgentLocked(ev, receivedAt)
		return
	}
	if n := len(e.pending); n > 0 {
		last := &e.pending[n-1].Event
		if d := last.Delta; last.Type == agent.EventDelta && d != nil && last.MessageID == ev.MessageID &&
			d.Part == ev.Delta.Part && d.Field == ev.Delta.Field {
			joined := *d
			joined.Text += ev.Delta.Text
			last.Delta = &joined
			return
		}
	}
	d := *ev.Delta
	ev.Delta = &d
	e.pending = append(e.pending, AgentEventPayload{TaskID: e.taskID, Event: ev, ReceivedAt: receivedAt})
	e.deltas[ev.MessageID]++
	e.armLocked()
}

// dropDeltasLocked removes the pending deltas of message id (a newer whole
// version of it supersedes them) and re-indexes what stays.
func (e *taskEmitter) dropDeltasLocked(id string) {
	kept := e.pending[:0]
	for _, p := range e.pending {
		if p.Event.Type == agent.EventDelta && p.Event.MessageID == id {
			continue
		}
		kept = append(kept, p)
	}
	e.pending = kept
	delete(e.deltas, id)
	clear(e.index)
	for i, p := range e.pending {
		if p.Event.Message != nil {
			e.index[p.Event.Message.ID] = i
		}
	}
}

// armLocked schedules the flush of what is pending: one window after the
// last flush, not after the first pending event (a throttle, not a delay).
// Flushes stay at least a window apart, which is what bounds the events
// the webview gets; but an event held up on its way (a slow commit, a busy
// machine) goes out as soon as its window has passed instead of waiting a
// whole window more: the emitter no longer adds its window on top of a
// stall (BenchmarkParallelTasks' paced p99, docs/streaming.md ninth pass).
func (e *taskEmitter) armLocked() {
	if e.timer == nil {
		e.timer = time.AfterFunc(max(e.window-time.Since(e.last), 0), e.flush)
	}
}

// agentEvent emits a non-message agent event at once.
func (e *taskEmitter) agentEvent(ev agent.Event, receivedAt time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.flushLocked()
	e.emitAgentLocked(ev, receivedAt)
}

// decision emits a permission decision at once.
func (e *taskEmitter) decision(d store.PermissionDecision) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.flushLocked()
	e.seq++
	e.out.Emit(EventDecision, DecisionPayload{TaskID: e.taskID, Seq: e.seq, Decision: d})
}

// other emits a named event at once, after what is pending.
func (e *taskEmitter) other(name string, payload any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.flushLocked()
	e.out.Emit(name, payload)
}

func (e *taskEmitter) flush() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.flushLocked()
}

func (e *taskEmitter) flushLocked() {
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	if len(e.pending) > 0 {
		e.last = time.Now()
	}
	for _, p := range e.pending {
		e.seq++
		p.Seq = e.seq
		e.out.Emit(EventAgent, p)
	}
	e.pending = e.pending[:0]
	clear(e.index)
	clear(e.deltas)
}

// release drops the coalescing buffers when nothing is pending (the idle
// trim): they are made again, small, by the next event.
func (e *taskEmitter) release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.pending) == 0 {
		e.pending, e.index, e.deltas = nil, map[string]int{}, map[string]int{}
	}
}

func (e *taskEmitter) emitAgentLocked(ev agent.Event, receivedAt time.Time) {
	e.seq++
	e.out.Emit(EventAgent, AgentEventPayload{TaskID: e.taskID, Seq: e.seq, Event: ev, ReceivedAt: receivedAt})
}

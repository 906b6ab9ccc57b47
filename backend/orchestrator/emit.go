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

// ProgressPayload is the "renormalize:progress" payload.
type ProgressPayload struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// taskEmitter emits one task's events in order. Message events may be
// coalesced for a short window (the latest version of a message wins, in
// the position of its first pending version); every other event first
// flushes what is pending, then goes out at once.
type taskEmitter struct {
	out    Emitter
	taskID string
	window time.Duration

	mu      sync.Mutex
	seq     int64
	pending []AgentEventPayload
	index   map[string]int // message id -> position in pending
	timer   *time.Timer
}

func newTaskEmitter(out Emitter, taskID string, window time.Duration) *taskEmitter {
	return &taskEmitter{out: out, taskID: taskID, window: window, index: map[string]int{}}
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
	if i, ok := e.index[ev.Message.ID]; ok {
		e.pending[i] = p
	} else {
		e.index[ev.Message.ID] = len(e.pending)
		e.pending = append(e.pending, p)
	}
	if e.timer == nil {
		e.timer = time.AfterFunc(e.window, e.flush)
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
	for _, p := range e.pending {
		e.seq++
		p.Seq = e.seq
		e.out.Emit(EventAgent, p)
	}
	e.pending = e.pending[:0]
	clear(e.index)
}

func (e *taskEmitter) emitAgentLocked(ev agent.Event, receivedAt time.Time) {
	e.seq++
	e.out.Emit(EventAgent, AgentEventPayload{TaskID: e.taskID, Seq: e.seq, Event: ev, ReceivedAt: receivedAt})
}

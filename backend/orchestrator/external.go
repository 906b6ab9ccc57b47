package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// AppMessageFormat is the rawFormat of messages the app adds to a task on
// its own (the MCP server's progress reports), not read from the agent.
const AppMessageFormat = "jean-claude-app"

// SubtypeProgress tags the system-status part of a progress report.
const SubtypeProgress = "progress"

// ErrUnanswered: a question the app asked was not answered (the session
// ended, or the caller gave up).
var ErrUnanswered = errors.New("question not answered")

// ProgressMessage is the message a progress report is stored as: a system
// message with one system-status part (subtype "progress"), which every
// view renders as a status line.
func ProgressMessage(text string) agent.Message {
	return agent.Message{
		ID:       "progress-" + newID(),
		Role:     agent.RoleSystem,
		Parts:    []agent.Part{{Type: agent.PartSystemStatus, Subtype: SubtypeProgress, Status: "info", Text: text}},
		Metadata: map[string]any{"source": "mcp"},
	}
}

// AddProgress stores a progress report on a task (see ProgressMessage)
// and emits it, after what the task already emitted.
func (o *Orchestrator) AddProgress(ctx context.Context, taskID, text string) (agent.Message, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return agent.Message{}, fmt.Errorf("orchestrator: empty progress report: %w", ErrInvalid)
	}
	unlock := o.lock(taskID)
	defer unlock()
	m, err := o.addAppMessage(ctx, taskID, ProgressMessage(text))
	if err != nil {
		return agent.Message{}, fmt.Errorf("orchestrator: store progress of task %s: %w", taskID, err)
	}
	return m, nil
}

// addAppMessage stores a message the app adds to a task on its own
// (AppMessageFormat), then emits it. Caller holds the task's lock.
func (o *Orchestrator) addAppMessage(ctx context.Context, taskID string, msg agent.Message) (agent.Message, error) {
	var m agent.Message
	err := o.db.Tx(ctx, func(tx *txT) error {
		var err error
		m, err = store.UpsertMessage(ctx, tx, store.MessageWrite{
			TaskID: taskID, Message: msg, Format: AppMessageFormat, Version: o.version, Now: store.Now(),
		})
		return err
	})
	if err != nil {
		return agent.Message{}, err
	}
	o.emitter(taskID).message(agent.Event{Type: agent.EventMessage, Message: &m}, time.Time{})
	return m, nil
}

// MCPLostMessage is the notice on a task whose agent outlived the previous
// app but cannot reach this app's MCP server (agent.MCPServer.Unreachable):
// a system-status line (subtype agent.MCPNotice) saying why and until when.
func MCPLostMessage(why string) agent.Message {
	return agent.Message{
		ID:   "mcp-lost-" + newID(),
		Role: agent.RoleSystem,
		Parts: []agent.Part{{Type: agent.PartSystemStatus, Subtype: agent.MCPNotice, Status: "warning",
			Text: "Jean-Claude's tools (progress, questions, sub-tasks) are not available to this agent until its next session: " + why + ". Stop the task, then send a message: it resumes with them."}},
	}
}

// noteMCPLost adds MCPLostMessage to a task whose session, started with
// cfg by backend b, adopted an agent that cannot reach the app's MCP
// server; a failure to store it is logged (the session runs on). Caller
// holds the task's lock.
func (o *Orchestrator) noteMCPLost(ctx context.Context, taskID string, b agent.Backend, cfg agent.Config) {
	if cfg.MCP == nil || cfg.MCP.Unreachable == "" {
		return
	}
	if m, ok := b.(agent.MCPAtEachStart); ok && m.MCPAtEachStart() {
		return
	}
	o.log.Warn("orchestrator: an adopted agent cannot reach the app's MCP server until its next session", "task", taskID, "why", cfg.MCP.Unreachable)
	if _, err := o.addAppMessage(ctx, taskID, MCPLostMessage(cfg.MCP.Unreachable)); err != nil {
		o.log.Warn("orchestrator: store the MCP notice", "task", taskID, "err", err)
	}
}

// AskUser puts a question to the user on a running task, asked by the app
// rather than the agent's own protocol (the MCP ask_user tool): it is
// stored as a pending question (the task waits and shows the question
// card), and AskUser blocks until RespondToQuestion answers it, the
// session ends, or ctx is done (then the question is withdrawn).
func (o *Orchestrator) AskUser(ctx context.Context, taskID string, req agent.Request) ([][]string, error) {
	req.RequestID = "ask-" + newID()
	ch, r, err := o.addQuestion(ctx, taskID, req)
	if err != nil {
		return nil, err
	}
	select {
	case ans := <-ch:
		return ans, nil
	case <-r.done:
		o.dropAsk(req.RequestID)
		return nil, fmt.Errorf("orchestrator: question of task %s: the session ended: %w", taskID, ErrUnanswered)
	case <-ctx.Done():
		o.dropAsk(req.RequestID)
		o.withdrawQuestion(taskID, req.RequestID)
		return nil, fmt.Errorf("orchestrator: question of task %s: %w: %w", taskID, ErrUnanswered, ctx.Err())
	}
}

// addQuestion stores the pending question and makes the task wait
// (commit, then show), and registers who waits for the answer.
func (o *Orchestrator) addQuestion(ctx context.Context, taskID string, req agent.Request) (chan [][]string, *run, error) {
	unlock := o.lock(taskID)
	defer unlock()
	r := o.getRun(taskID)
	if r == nil || r.stopping {
		return nil, nil, fmt.Errorf("orchestrator: ask on task %s: %w", taskID, ErrNotRunning)
	}
	err := o.db.Tx(ctx, func(tx *txT) error {
		now := store.Now()
		if err := store.AddPending(ctx, tx, store.PendingRequest{TaskID: taskID, RequestID: req.RequestID,
			Kind: store.RequestQuestion, Request: req, CreatedAt: now}); err != nil {
			return err
		}
		if r.status == store.StatusWaiting {
			return nil
		}
		return store.SetTaskStatus(ctx, tx, taskID, store.StatusWaiting, "", now)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("orchestrator: store question of task %s: %w", taskID, err)
	}
	r.status = store.StatusWaiting
	ch := make(chan [][]string, 1)
	o.mu.Lock()
	if o.asks == nil {
		o.asks = map[string]chan [][]string{}
	}
	o.asks[req.RequestID] = ch
	o.mu.Unlock()
	o.emitter(taskID).agentEvent(agent.Event{Type: agent.EventQuestion, Request: &req}, time.Time{})
	o.emitRequests(ctx, taskID)
	o.emitTask(ctx, taskID)
	o.sendNote(ctx, o.requestNote(taskID, store.RequestQuestion, req), o.focused.Load())
	return ch, r, nil
}

// takeAsk returns (and forgets) the waiter of an app-asked question; nil
// for a question the agent asked through its own protocol.
func (o *Orchestrator) takeAsk(requestID string) chan [][]string {
	o.mu.Lock()
	defer o.mu.Unlock()
	ch := o.asks[requestID]
	delete(o.asks, requestID)
	return ch
}

func (o *Orchestrator) dropAsk(requestID string) { o.takeAsk(requestID) }

// withdrawQuestion removes an unanswered app question whose asker gave up.
func (o *Orchestrator) withdrawQuestion(taskID, requestID string) {
	ctx := context.Background()
	unlock := o.lock(taskID)
	defer unlock()
	r := o.getRun(taskID)
	err := o.db.Tx(ctx, func(tx *txT) error {
		if err := store.RemovePending(ctx, tx, taskID, requestID); err != nil {
			return err
		}
		if r == nil {
			return nil
		}
		return r.leaveWaiting(ctx, tx, "", store.Now())
	})
	if err != nil {
		o.log.Warn("orchestrator: withdraw question", "task", taskID, "err", err)
		return
	}
	o.emitRequests(ctx, taskID)
	o.emitTask(ctx, taskID)
}

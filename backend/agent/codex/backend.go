// Package codex drives OpenAI's Codex CLI through `codex app-server`
// (JSON-RPC over stdio, with approvals), and normalizes both its traffic
// (format "codex-app-server") and `codex exec --json` output (format "codex").
//
// The client side of the app-server protocol is written here directly on
// JSON-RPC lines: every message in either direction is a raw frame the
// normalizer reads, so nothing sits between the wire and the store.
package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// Options configure the backend.
type Options struct {
	// Binary is the codex executable (default "codex" on PATH).
	Binary string
}

// Backend starts Codex app-server sessions.
type Backend struct {
	bin string

	mu       sync.Mutex
	sessions map[*session]struct{}
}

var _ agent.Backend = (*Backend)(nil)

// New returns a Codex backend.
func New(opt Options) *Backend {
	if opt.Binary == "" {
		opt.Binary = "codex"
	}
	return &Backend{bin: opt.Binary, sessions: map[*session]struct{}{}}
}

// Info implements agent.Backend.
func (b *Backend) Info() agent.Info {
	return agent.Info{
		Name:        agent.BackendCodex,
		DisplayName: "Codex",
		Capabilities: agent.Capabilities{
			Resume:      true,
			Interrupt:   true,
			SetMode:     true, // from the next turn on
			SetModel:    true, // from the next turn on
			Permissions: true,
		},
	}
}

// Dispose implements agent.Backend.
func (b *Backend) Dispose(ctx context.Context) error {
	b.mu.Lock()
	ss := make([]*session, 0, len(b.sessions))
	for s := range b.sessions {
		ss = append(ss, s)
	}
	b.mu.Unlock()
	var errs []error
	for _, s := range ss {
		errs = append(errs, s.Stop(ctx))
	}
	return errors.Join(errs...)
}

// Policy is how an interaction mode maps onto Codex's approval policy and
// sandbox.
type Policy struct {
	Approval      string         // untrusted | on-request | never
	Sandbox       string         // thread/start's sandbox mode
	SandboxPolicy map[string]any // turn/start's sandboxPolicy
}

// PolicyFor maps a mode: ask asks before anything not known safe, accept-edits
// lets the agent write in the workspace and asks to go further, plan is
// read-only, bypass asks nothing and may write anywhere.
func PolicyFor(mode agent.InteractionMode) Policy {
	switch mode {
	case agent.ModeAcceptEdits:
		return Policy{"on-request", "workspace-write", map[string]any{"type": "workspaceWrite"}}
	case agent.ModePlan:
		return Policy{"never", "read-only", map[string]any{"type": "readOnly"}}
	case agent.ModeBypass:
		return Policy{"never", "danger-full-access", map[string]any{"type": "dangerFullAccess"}}
	}
	return Policy{"untrusted", "workspace-write", map[string]any{"type": "workspaceWrite"}}
}

// Start implements agent.Backend: spawn `codex app-server`, initialize,
// start (or resume, with cfg.SessionID = the thread id) a thread, and send
// prompt as its first turn.
func (b *Backend) Start(ctx context.Context, cfg agent.Config, prompt string) (agent.Session, error) {
	path, err := exec.LookPath(b.bin)
	if err != nil {
		return nil, fmt.Errorf("Codex not found (%s): %w", b.bin, errors.Join(agent.ErrBinaryNotFound, err))
	}
	if st, err := os.Stat(cfg.Cwd); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("codex: working directory %q: %w", cfg.Cwd, errors.Join(os.ErrNotExist, err))
	}
	if cfg.Mode == "" {
		cfg.Mode = agent.ModeAsk
	}
	s := &session{
		b: b, cfg: cfg, mode: cfg.Mode, model: cfg.Model,
		norm:    NewAppServerNormalizer(),
		events:  make(chan agent.Batch, 1024),
		pending: map[string]chan rpcMessage{},
		perms:   map[string]json.RawMessage{},
		done:    make(chan struct{}),
		abort:   make(chan struct{}),
		stderr:  proc.NewTail(16 << 10),
	}
	if err := s.spawn(path); err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.sessions[s] = struct{}{}
	b.mu.Unlock()
	if err := s.handshake(ctx); err != nil {
		_ = s.Stop(context.Background())
		return nil, fmt.Errorf("codex: %w (stderr: %s)", err, s.stderr.String())
	}
	if prompt != "" {
		if err := s.SendMessage(ctx, prompt); err != nil {
			_ = s.Stop(context.Background())
			return nil, err
		}
	}
	return s, nil
}

type session struct {
	b   *Backend
	cfg agent.Config

	cmd   *exec.Cmd
	stdin io.WriteCloser

	writeMu sync.Mutex
	normMu  sync.Mutex // Feed + send, in frame order
	norm    *AppServerNormalizer
	events  chan agent.Batch
	closed  bool
	abort   chan struct{}

	mu       sync.Mutex
	nextID   int
	pending  map[string]chan rpcMessage
	perms    map[string]json.RawMessage // requestId (item id) → JSON-RPC id to answer
	threadID string
	turnID   string
	mode     agent.InteractionMode
	model    string
	stopping bool

	stderr   *proc.Tail
	done     chan struct{}
	waitErr  error
	stopOnce sync.Once
}

var (
	_ agent.Session      = (*session)(nil)
	_ agent.ModelSetter  = (*session)(nil)
	_ agent.ProcessOwner = (*session)(nil)
)

func (s *session) spawn(path string) error {
	cmd := exec.Command(path, append([]string{"app-server"}, s.cfg.ExtraArgs...)...)
	cmd.Dir = s.cfg.Cwd
	cmd.Env = os.Environ()
	for k, v := range s.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 3 * time.Second
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("codex: start %s app-server: %w", path, err)
	}
	s.cmd, s.stdin = cmd, stdin
	go s.readLoop(stdout)
	return nil
}

// deliver normalizes frame (nil: synthesized events) and sends the Batch.
func (s *session) deliver(frame []byte, synth []agent.Event) {
	s.normMu.Lock()
	defer s.normMu.Unlock()
	if s.closed {
		return
	}
	evs := synth
	if frame != nil {
		evs = s.norm.Feed(frame)
	}
	b := agent.Batch{Frame: frame, Format: AppServerFormatName, Events: evs, ReceivedAt: time.Now()}
	select {
	case s.events <- b:
	case <-s.abort:
	}
}

// write sends one JSON-RPC message; it becomes a Batch first.
func (s *session) write(msg any) error {
	line, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.deliver(line, nil)
	if _, err := s.stdin.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("codex: write: %w", errors.Join(agent.ErrSessionClosed, err))
	}
	return nil
}

// call sends a request and waits for its response.
func (s *session) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	ch := make(chan rpcMessage, 1)
	s.pending[strconv.Itoa(id)] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, strconv.Itoa(id))
		s.mu.Unlock()
	}()
	if err := s.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("codex: %s: %s (code %d)", method, errorText(m.Error.Message), m.Error.Code)
		}
		return m.Result, nil
	case <-s.done:
		return nil, fmt.Errorf("codex: %s: %w", method, agent.ErrSessionClosed)
	case <-ctx.Done():
		return nil, fmt.Errorf("codex: %s: %w", method, ctx.Err())
	}
}

func (s *session) readLoop(stdout io.Reader) {
	var readErr error
	for line, err := range agent.Lines(stdout) {
		if err != nil {
			readErr = err
			break
		}
		var m rpcMessage
		if json.Unmarshal(line, &m) == nil {
			s.register(&m) // before the Batch: the UI may answer at once
		}
		s.deliver(line, nil)
		s.dispatch(&m)
	}
	if readErr != nil {
		s.deliver(nil, []agent.Event{{Type: agent.EventError, Fatal: true, Error: "codex: reading app-server output: " + readErr.Error()}})
		_ = proc.KillGroup(s.cmd, syscall.SIGTERM)
	}
	err := s.cmd.Wait()
	_ = proc.KillGroup(s.cmd, syscall.SIGKILL)
	s.mu.Lock()
	stopping, turn := s.stopping, s.turnID
	s.mu.Unlock()
	if !stopping {
		s.waitErr = fmt.Errorf("codex app-server exited: %v; stderr: %s", err, s.stderr.String())
		if err == nil && turn == "" {
			s.waitErr = nil
		} else {
			s.deliver(nil, []agent.Event{{Type: agent.EventError, Fatal: true, Error: s.waitErr.Error()}})
		}
	}
	s.normMu.Lock()
	s.closed = true
	close(s.events)
	s.normMu.Unlock()
	s.b.mu.Lock()
	delete(s.b.sessions, s)
	s.b.mu.Unlock()
	close(s.done)
}

// dispatch routes a received message: responses to their caller, approval
// requests to the pending set, turn notifications to the turn state.
func (s *session) dispatch(m *rpcMessage) {
	switch {
	case m.Method == "" && len(m.ID) > 0:
		s.mu.Lock()
		ch := s.pending[string(m.ID)]
		s.mu.Unlock()
		if ch != nil {
			ch <- *m
		}
	case isApproval(m.Method):
		// registered before delivery
	case len(m.ID) > 0 && m.Method != "":
		// A server request this client does not serve (user input, MCP
		// elicitation, dynamic tools): refuse it so the turn goes on.
		_ = s.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "not supported by Jean-Claude: " + m.Method}})
	case m.Method == "turn/started":
		var p turnParams
		_ = json.Unmarshal(m.Params, &p)
		s.mu.Lock()
		s.turnID = p.Turn.ID
		s.mu.Unlock()
	case m.Method == "turn/completed":
		s.mu.Lock()
		s.turnID = ""
		s.mu.Unlock()
	}
}

func isApproval(method string) bool {
	return method == "item/commandExecution/requestApproval" || method == "item/fileChange/requestApproval"
}

// register records an approval request under the id the normalizer gives
// it (the item id), so RespondToPermission can answer it.
func (s *session) register(m *rpcMessage) {
	if !isApproval(m.Method) || len(m.ID) == 0 {
		return
	}
	var p approvalParams
	_ = json.Unmarshal(m.Params, &p)
	key := p.ItemID
	if key == "" {
		key = "rpc-" + string(bytes.Trim(m.ID, `"`))
	}
	s.mu.Lock()
	s.perms[key] = m.ID
	s.mu.Unlock()
}

func (s *session) handshake(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if _, err := s.call(ctx, "initialize", map[string]any{
		"clientInfo":   map[string]string{"name": "jean-claude", "title": "Jean-Claude", "version": "0.1.0"},
		"capabilities": map[string]any{"experimentalApi": true},
	}); err != nil {
		return err
	}
	if err := s.write(map[string]any{"jsonrpc": "2.0", "method": "initialized"}); err != nil {
		return err
	}
	pol := PolicyFor(s.mode)
	params := map[string]any{"cwd": s.cfg.Cwd, "approvalPolicy": pol.Approval, "sandbox": pol.Sandbox}
	if s.model != "" {
		params["model"] = s.model
	}
	method := "thread/start"
	if s.cfg.SessionID != "" {
		method = "thread/resume"
		params["threadId"] = s.cfg.SessionID
		params["excludeTurns"] = true
	}
	res, err := s.call(ctx, method, params)
	if err != nil {
		return err
	}
	var tr threadResult
	if err := json.Unmarshal(res, &tr); err != nil || tr.Thread == nil || tr.Thread.ID == "" {
		return fmt.Errorf("%s: no thread in %s", method, res)
	}
	s.mu.Lock()
	s.threadID = tr.Thread.ID
	s.mu.Unlock()
	return nil
}

// SendMessage implements agent.Session: turn/start, with the current mode's
// approval policy and sandbox and the current model.
func (s *session) SendMessage(ctx context.Context, text string) error {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return agent.ErrSessionClosed
	}
	pol := PolicyFor(s.mode)
	params := map[string]any{
		"threadId":       s.threadID,
		"input":          []map[string]any{{"type": "text", "text": text}},
		"approvalPolicy": pol.Approval,
		"sandboxPolicy":  pol.SandboxPolicy,
	}
	if s.model != "" {
		params["model"] = s.model
	}
	s.mu.Unlock()
	res, err := s.call(ctx, "turn/start", params)
	if err != nil {
		return err
	}
	var r struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	if json.Unmarshal(res, &r) == nil && r.Turn.ID != "" {
		s.mu.Lock()
		s.turnID = r.Turn.ID
		s.mu.Unlock()
	}
	return nil
}

// Decision is Codex's answer to an approval request for resp.
func Decision(resp agent.PermissionResponse) string {
	switch {
	case resp.Behavior == agent.Allow && resp.Always:
		return "acceptForSession"
	case resp.Behavior == agent.Allow:
		return "accept"
	case resp.Interrupt:
		return "cancel"
	}
	return "decline"
}

// RespondToPermission implements agent.Session.
func (s *session) RespondToPermission(ctx context.Context, requestID string, resp agent.PermissionResponse) error {
	s.mu.Lock()
	id, ok := s.perms[requestID]
	delete(s.perms, requestID)
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("codex: approval %s: %w", requestID, agent.ErrUnknownRequest)
	}
	return s.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]string{"decision": Decision(resp)}})
}

// RespondToQuestion implements agent.Session.
func (s *session) RespondToQuestion(context.Context, string, agent.QuestionAnswer) error {
	return fmt.Errorf("codex: questions: %w", agent.ErrUnsupported)
}

// SetMode implements agent.Session: the next turn/start carries the mode's
// approval policy and sandbox.
func (s *session) SetMode(ctx context.Context, mode agent.InteractionMode) error {
	if !mode.Valid() {
		return fmt.Errorf("codex: mode %q: %w", mode, agent.ErrUnsupported)
	}
	s.mu.Lock()
	s.mode = mode
	s.mu.Unlock()
	s.deliver(nil, []agent.Event{{Type: agent.EventModeChange, Mode: mode}})
	return nil
}

// SetModel implements agent.ModelSetter: the next turn uses model.
func (s *session) SetModel(ctx context.Context, model string) error {
	s.mu.Lock()
	s.model = model
	s.mu.Unlock()
	return nil
}

// Interrupt implements agent.Session: turn/interrupt; pending approvals are
// answered "cancel".
func (s *session) Interrupt(ctx context.Context) error {
	s.mu.Lock()
	thread, turn := s.threadID, s.turnID
	perms := s.perms
	s.perms = map[string]json.RawMessage{}
	s.mu.Unlock()
	for _, id := range perms {
		_ = s.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]string{"decision": "cancel"}})
	}
	if turn == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := s.call(ctx, "turn/interrupt", map[string]string{"threadId": thread, "turnId": turn})
	return err
}

// Stop implements agent.Session: interrupt the turn, close stdin, then
// SIGTERM and SIGKILL the process group.
func (s *session) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() {
		s.mu.Lock()
		turn := s.turnID
		s.mu.Unlock()
		if turn != "" {
			_ = s.Interrupt(ctx)
		}
		s.mu.Lock()
		s.stopping = true
		s.mu.Unlock()
		_ = s.stdin.Close()
		if !waitFor(ctx, s.done, 2*time.Second) {
			_ = proc.KillGroup(s.cmd, syscall.SIGTERM)
			if !waitFor(ctx, s.done, 3*time.Second) {
				_ = proc.KillGroup(s.cmd, syscall.SIGKILL)
				close(s.abort)
			}
		}
	})
	<-s.done
	return nil
}

func waitFor(ctx context.Context, ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// Events implements agent.Session.
func (s *session) Events() <-chan agent.Batch { return s.events }

// Wait implements agent.Session.
func (s *session) Wait() error {
	<-s.done
	return s.waitErr
}

// PID implements agent.ProcessOwner.
func (s *session) PID() int { return s.cmd.Process.Pid }

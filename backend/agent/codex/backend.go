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
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Options configure the backend.
type Options struct {
	// Binary is the codex executable (default "codex" on PATH).
	Binary string
}

// Backend starts Codex app-server sessions.
type Backend struct {
	bin string

	sessions agent.Live[*session]
}

var _ agent.Backend = (*Backend)(nil)

// New returns a Codex backend.
func New(opt Options) *Backend {
	if opt.Binary == "" {
		opt.Binary = "codex"
	}
	return &Backend{bin: opt.Binary}
}

// Info implements agent.Backend.
func (b *Backend) Info() agent.Info {
	return agent.Info{
		Name:        agent.BackendCodex,
		DisplayName: "Codex",
		Capabilities: agent.Capabilities{
			Resume:      true,
			Fork:        true, // thread/fork (from the end of a thread)
			Interrupt:   true,
			SetMode:     true, // from the next turn on
			SetModel:    true, // from the next turn on
			Permissions: true,
		},
	}
}

// Dispose implements agent.Backend.
func (b *Backend) Dispose(ctx context.Context) error {
	return b.sessions.StopAll(ctx)
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
	path, err := b.locate(ctx, cfg.Cwd)
	if err != nil {
		return nil, err
	}
	if cfg.Mode == "" {
		cfg.Mode = agent.ModeAsk
	}
	s := &session{
		b: b, cfg: cfg, mode: cfg.Mode, model: cfg.Model,
		stream:  agent.NewStream(AppServerFormatName, NewAppServerNormalizer()),
		pending: map[string]chan rpcMessage{},
		perms:   map[string]json.RawMessage{},
		done:    make(chan struct{}),
	}
	s.adopted = agent.Adopting(ctx)
	if err := s.spawn(ctx, path); err != nil {
		s.stream.Close()
		return nil, err
	}
	b.sessions.Add(s)
	if s.adopted {
		s.adopt()
		return s, nil
	}
	if err := s.handshake(ctx); err != nil {
		_ = s.Stop(context.Background())
		return nil, fmt.Errorf("codex: %w (stderr: %s)", err, s.proc.Stderr())
	}
	if prompt != "" {
		if err := s.SendMessage(ctx, prompt); err != nil {
			_ = s.Stop(context.Background())
			return nil, err
		}
	}
	return s, nil
}

// locate is the executable to run and checks the working folder. For a
// session on another host (agent.OnHost) neither is looked at here: the
// configured name is kept (the host's relay finds it by base name on the
// host's PATH and ~/.local/bin) and the folder exists only there.
func (b *Backend) locate(ctx context.Context, cwd string) (string, error) {
	if agent.IsOnHost(ctx) {
		return b.bin, nil
	}
	path, err := exec.LookPath(b.bin)
	if err != nil {
		return "", fmt.Errorf("Codex not found (%s): %w", b.bin, errors.Join(agent.ErrBinaryNotFound, err))
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return "", fmt.Errorf("codex: working directory %q: %w", cwd, errors.Join(os.ErrNotExist, err))
	}
	return path, nil
}

// session is one codex app-server process: the shared runtime runs the
// process and the frame pipeline; this type keeps the JSON-RPC books.
type session struct {
	b   *Backend
	cfg agent.Config

	proc   *agent.Process
	stream *agent.Stream

	mu       sync.Mutex
	nextID   int
	pending  map[string]chan rpcMessage
	perms    map[string]json.RawMessage // requestId (item id) → JSON-RPC id to answer
	threadID string
	turnID   string
	mode     agent.InteractionMode
	model    string
	stopping bool
	// adopted: the app-server runs behind a relay a previous app started;
	// its handshake is not repeated (adopt.go).
	adopted bool

	done     chan struct{}
	waitErr  error
	stopOnce sync.Once
}

var (
	_ agent.Session      = (*session)(nil)
	_ agent.ModelSetter  = (*session)(nil)
	_ agent.ProcessOwner = (*session)(nil)
)

func (s *session) spawn(ctx context.Context, path string) error {
	env := os.Environ()
	for _, k := range slices.Sorted(maps.Keys(s.cfg.Env)) {
		env = append(env, k+"="+s.cfg.Env[k])
	}
	if m := s.cfg.MCP; m != nil {
		env = append(env, MCPTokenEnv+"="+m.Token)
	}
	p, err := agent.StartProcess(ctx, agent.ProcSpec{
		Name: "codex", Path: path, Args: append([]string{"app-server"}, s.cfg.ExtraArgs...), Dir: s.cfg.Cwd,
		Env: env, Stdin: true, Role: "agent " + string(agent.BackendCodex), Recorder: s.cfg.Recorder,
		OnFrame: s.onFrame, Stream: s.stream,
	})
	if err != nil {
		return err
	}
	s.proc = p
	go s.finish()
	return nil
}

// write sends one JSON-RPC message; it becomes a Batch first (under the
// stdin lock, so the stored order is the order written).
func (s *session) write(msg any) error {
	line, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return s.proc.WithStdin(func(write func([]byte) error) error {
		s.stream.Local(line)
		return write(line)
	})
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
	case <-s.proc.Exited():
		return nil, fmt.Errorf("codex: %s: %w", method, agent.ErrSessionClosed)
	case <-ctx.Done():
		return nil, fmt.Errorf("codex: %s: %w", method, ctx.Err())
	}
}

// onFrame is the runtime's read callback: book-keeping, then the frame
// (which blocks while the stream is full), then routing.
func (s *session) onFrame(line []byte, at time.Time, err error) {
	if err != nil {
		s.stream.Synth(agent.Event{Type: agent.EventError, Error: "codex: " + err.Error(), Raw: line})
		return
	}
	var m rpcMessage
	if json.Unmarshal(line, &m) == nil {
		s.register(&m) // before the Batch: the UI may answer at once
	}
	replay := s.stream.Replaying()
	if s.adopted {
		s.adoptBooks(&m)
	}
	if m.Method == "" && len(m.ID) > 0 {
		// A response goes to its caller before the frame is queued: the
		// caller may be the consumer itself (a queued follow-up sent from
		// the orchestrator's loop), which must not wait on a full stream.
		s.dispatch(&m, replay)
		s.stream.Frame(line, at)
		return
	}
	s.stream.Frame(line, at)
	s.dispatch(&m, replay)
}

// finish records how the process ended and closes the stream.
func (s *session) finish() {
	<-s.proc.Done()
	s.mu.Lock()
	stopping, turn := s.stopping, s.turnID
	s.mu.Unlock()
	if err := s.proc.ExitError(); !stopping && (err != nil || turn != "") {
		if err == nil {
			err = fmt.Errorf("exit status 0 during a turn; stderr: %s", s.proc.Stderr())
		}
		s.waitErr = fmt.Errorf("codex app-server exited: %w", err)
		s.stream.Synth(agent.Event{Type: agent.EventError, Fatal: true, Error: s.waitErr.Error()})
	}
	s.stream.Close()
	<-s.stream.Done()
	s.b.sessions.Remove(s)
	close(s.done)
}

// dispatch routes a received message: responses to their caller, approval
// requests to the pending set, turn notifications to the turn state. A
// replayed message (an adopted session catching up) was answered by the
// app that stored it: it only updates the books.
func (s *session) dispatch(m *rpcMessage, replay bool) {
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
	case len(m.ID) > 0 && m.Method != "" && replay:
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
	if c := MCPConfig(s.cfg.MCP); c != nil {
		params["config"] = c
	}
	method := "thread/start"
	switch {
	case s.cfg.SessionID != "" && s.cfg.ForkSession:
		// A native fork: the app-server copies the thread and answers
		// with the copy, whose id the task owns from then on.
		method = "thread/fork"
		params["threadId"] = s.cfg.SessionID
		if s.cfg.ForkPoint != "" { // the last turn the copy keeps
			params["lastTurnId"] = s.cfg.ForkPoint
		}
	case s.cfg.SessionID != "":
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
	s.stream.Synth(agent.Event{Type: agent.EventModeChange, Mode: mode})
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
// SIGTERM and SIGKILL the process group (agent.Process.Stop).
func (s *session) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() {
		s.mu.Lock()
		turn := s.turnID
		s.mu.Unlock()
		if turn != "" {
			ictx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_ = s.Interrupt(ictx)
			cancel()
		}
		s.mu.Lock()
		s.stopping = true
		s.mu.Unlock()
		_ = s.proc.Stop(ctx, 2*time.Second)
	})
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Events implements agent.Session.
func (s *session) Events() <-chan agent.Batch { return s.stream.Events() }

// Wait implements agent.Session.
func (s *session) Wait() error {
	<-s.done
	return s.waitErr
}

// PID implements agent.ProcessOwner.
func (s *session) PID() int { return s.proc.PID() }

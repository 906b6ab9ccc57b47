package claude

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Options configure the Claude Code backend.
type Options struct {
	// Binary is the claude executable: a path, or a name looked up on
	// PATH. Empty means "claude".
	Binary string
	// Env is added to every agent process's environment ("K=V").
	Env []string
	// GracePeriod is how long Stop waits for the process to exit after
	// closing its stdin before it sends SIGTERM to the process group
	// (default 400ms).
	GracePeriod time.Duration
	// WaitDelay is how long after SIGTERM the group gets SIGKILL
	// (default 400ms).
	WaitDelay time.Duration
	// InterruptTimeout bounds the interrupt Stop sends first (default
	// 400ms).
	//
	// The defaults keep Stop under 2 s even for an agent that floods its
	// stdout and ignores the interrupt, stdin's end and SIGTERM: SIGKILL
	// after 1.2 s, then what was already read is stored
	// (orchestrator.TestStopFloodingStubbornAgentWithDefaults; with the
	// former 2 s + 3 s + 3 s it took 6.5 s). A cooperative Claude Code
	// answers the interrupt and exits at stdin's end well within them.
	InterruptTimeout time.Duration
}

// Backend starts Claude Code sessions. Construct it with New.
type Backend struct {
	opt Options

	sessions agent.Live[*Session]
}

var (
	_ agent.Backend      = (*Backend)(nil)
	_ agent.Session      = (*Session)(nil)
	_ agent.ModelSetter  = (*Session)(nil)
	_ agent.ProcessOwner = (*Session)(nil)
)

// stopStep is the default of each of Stop's three waits (interrupt, stdin's
// end, SIGTERM): Stop reaches SIGKILL within 3 × stopStep (1.2 s).
const stopStep = 400 * time.Millisecond

// New returns a Claude Code backend.
func New(opt Options) *Backend {
	if opt.Binary == "" {
		opt.Binary = "claude"
	}
	if opt.GracePeriod <= 0 {
		opt.GracePeriod = stopStep
	}
	if opt.WaitDelay <= 0 {
		opt.WaitDelay = stopStep
	}
	if opt.InterruptTimeout <= 0 {
		opt.InterruptTimeout = stopStep
	}
	return &Backend{opt: opt}
}

// Info implements agent.Backend.
func (b *Backend) Info() agent.Info {
	return agent.Info{
		Name:        agent.BackendClaudeCode,
		DisplayName: "Claude Code",
		Capabilities: agent.Capabilities{
			Resume:      true,
			Fork:        true, // --resume ID --fork-session (from the end of a session)
			Interrupt:   true,
			SetMode:     true,
			SetModel:    true,
			Compaction:  true,
			Questions:   true,
			Permissions: true,
		},
	}
}

// Dispose implements agent.Backend: it stops every live session.
func (b *Backend) Dispose(ctx context.Context) error {
	return b.sessions.StopAll(ctx)
}

// AskCommandsSettings are the settings (`--settings=<json>`, a constant:
// no user value) given to every session, in every mode: a permission rule
// that asks before every Bash command. Without it Claude Code runs the
// commands of its read-only allowlist (`ls`, `cat`, `git status`, …)
// unasked, and Ask must ask before any command (issue #13). Flags are
// fixed for the process's life, so the rule is there from the start even
// in bypass mode: a session started in bypass and switched to ask by
// set_permission_mode then asks before every command. Claude Code 2.1.330
// asks under that rule in bypass mode too (the request's
// decision_reason_rule_source is "flagSettings"); the orchestrator allows
// every request of a task in bypass mode itself (allowByMode), so bypass
// still never asks the user. In accept-edits and plan every command asks
// too (edits stay Claude Code's business there). The app's own "always
// allow" rules answer requests in the orchestrator, so they still work.
// The read tools (Read, Glob, Grep, LS) are not commands and stay unasked.
const AskCommandsSettings = `{"permissions":{"ask":["Bash"]}}`

// Args returns the claude command line (without the binary) for cfg.
func Args(cfg agent.Config) ([]string, error) {
	mode, ok := PermissionMode(cfg.Mode)
	if !ok {
		return nil, fmt.Errorf("claude-code: unknown interaction mode %q", cfg.Mode)
	}
	args := []string{
		"--output-format", "stream-json", "--verbose", "--include-partial-messages",
		"--input-format", "stream-json",
		"--permission-prompt-tool", "stdio",
		"--permission-mode", mode,
	}
	args = append(args, "--settings="+AskCommandsSettings)
	// User values are joined to their flag (--model=VALUE): a model named
	// "--dangerously-skip-permissions" stays a model name.
	if cfg.Model != "" {
		args = append(args, "--model="+cfg.Model)
	}
	if cfg.SessionID != "" {
		args = append(args, "--resume="+cfg.SessionID)
		if cfg.ForkSession {
			args = append(args, "--fork-session")
		}
	}
	if len(cfg.SessionAllowedTools) > 0 {
		args = append(args, "--allowedTools="+strings.Join(cfg.SessionAllowedTools, ","))
	}
	return append(args, cfg.ExtraArgs...), nil
}

// Start implements agent.Backend: it spawns claude in cfg.Cwd, sends the
// initialize control request, then prompt as the first user turn (none
// when prompt is empty). ctx bounds the start only; the session lives
// until Stop or until the process exits.
func (b *Backend) Start(ctx context.Context, cfg agent.Config, prompt string) (agent.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bin, err := exec.LookPath(b.opt.Binary)
	if err != nil && agent.IsOnHost(ctx) {
		bin, err = b.opt.Binary, nil // looked up by name on the host
	}
	if err != nil {
		return nil, fmt.Errorf("Claude Code not found: %q is not an executable on PATH or at that path (%v): %w",
			b.opt.Binary, errors.Unwrap(err), agent.ErrBinaryNotFound)
	}
	mcpDir, cfg, err := withMCP(cfg)
	if err != nil {
		return nil, err
	}
	args, err := Args(cfg)
	if err != nil {
		mcpDir.Remove()
		return nil, err
	}
	if mcpDir != nil {
		args = append(args, "--mcp-config="+filepath.Join(mcpDir.Path, mcpFile))
	}
	if cfg.Cwd != "" && !agent.IsOnHost(ctx) { // on a host the folder exists only there
		st, err := os.Stat(cfg.Cwd)
		if err != nil {
			mcpDir.Remove()
			return nil, fmt.Errorf("claude-code: working directory: %w", err)
		}
		if !st.IsDir() {
			mcpDir.Remove()
			return nil, fmt.Errorf("claude-code: working directory %q is not a directory", cfg.Cwd)
		}
	}
	s := &Session{
		mcpDir:  mcpDir,
		b:       b,
		stream:  agent.NewStream(FormatName, NewNormalizer()),
		pending: map[string]*pendingControl{},
		perms:   map[string]*permRequest{},
		done:    make(chan struct{}),
	}
	s.proc, err = agent.StartProcess(ctx, agent.ProcSpec{
		Name: "claude-code", Path: bin, Args: args, Dir: cfg.Cwd, Env: b.env(cfg), Stdin: true,
		Role: "agent " + string(agent.BackendClaudeCode), Recorder: cfg.Recorder,
		WaitDelay: b.opt.WaitDelay, StderrTail: 8 << 10, OnFrame: s.onFrame,
	})
	if err != nil {
		s.stream.Close()
		mcpDir.Remove()
		return nil, err
	}
	s.stream.Bind(s.proc) // behind a relay: a frame is acknowledged once stored
	b.sessions.Add(s)
	go s.finish()

	// initialize first; its answer is not awaited (the CLI handles stdin in
	// order), so Start does not block on the CLI's startup.
	if _, err := s.sendControl("initialize", nil); err != nil {
		return nil, fmt.Errorf("claude-code: initialize: %w", errors.Join(err, s.abandon()))
	}
	if prompt != "" {
		if err := s.SendMessage(ctx, prompt); err != nil {
			return nil, errors.Join(err, s.abandon())
		}
	}
	return s, nil
}

// Detach implements agent.Detacher: behind a relay, the agent keeps running.
func (s *Session) Detach(ctx context.Context) (bool, error) {
	if !s.proc.Relayed() {
		return false, nil
	}
	return true, s.proc.Detach(ctx)
}

// abandon ends a session Start could not hand out: nobody will read its
// events, so they are drained here.
func (s *Session) abandon() error {
	go func() {
		for range s.Events() {
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), s.b.opt.GracePeriod+2*s.b.opt.WaitDelay+s.b.opt.InterruptTimeout)
	defer cancel()
	_ = s.Stop(ctx)
	return s.Wait()
}

func (b *Backend) env(cfg agent.Config) []string {
	env := append(os.Environ(), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	if cfg.Mode == agent.ModeBypass && os.Geteuid() == 0 {
		env = append(env, "IS_SANDBOX=1")
	}
	if cfg.MCP != nil {
		// ask_user and create_subtask wait on a person or another agent:
		// far longer than an MCP client's usual per-call timeout. Before
		// the settings' Env, so the user's own value wins.
		env = append(env, "MCP_TOOL_TIMEOUT="+MCPToolTimeout)
	}
	env = append(env, b.opt.Env...)
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		env = append(env, k+"="+cfg.Env[k])
	}
	return env
}

// Session is one running claude process. It implements agent.Session,
// agent.ModelSetter and agent.ProcessOwner. Process handling and the frame
// pipeline are the shared runtime's (agent.Process, agent.Stream); this
// type keeps only the control protocol's books.
type Session struct {
	b      *Backend
	proc   *agent.Process
	stream *agent.Stream
	mcpDir *agent.PrivateDir // the --mcp-config file's dir; removed at the end

	mu      sync.Mutex
	nextReq int
	pending map[string]*pendingControl // our control requests, by request_id
	perms   map[string]*permRequest    // the CLI's can_use_tool requests

	stopOnce sync.Once
	done     chan struct{} // Events is closed, Wait may return
	waitErr  error
}

type pendingControl struct {
	subtype string
	mode    agent.InteractionMode
	ch      chan controlResult
}

type controlResult struct {
	resp json.RawMessage
	err  error
}

type permRequest struct {
	toolName    string
	input       json.RawMessage
	suggestions json.RawMessage
}

// ErrControl is a control request the CLI answered with an error.
var ErrControl = errors.New("claude-code: control request failed")

// Events implements agent.Session.
func (s *Session) Events() <-chan agent.Batch { return s.stream.Events() }

// PID implements agent.ProcessOwner: the process (and process group) id.
func (s *Session) PID() int { return s.proc.PID() }

// Wait implements agent.Session. It returns nil when claude exited with
// status 0 or was ended by Stop, else the exit status and stderr tail.
func (s *Session) Wait() error {
	<-s.done
	return s.waitErr
}

// finish waits for the process and its output, then fails what still
// waits on it and closes the stream.
func (s *Session) finish() {
	<-s.proc.Done()
	s.waitErr = s.proc.ExitError()
	s.mu.Lock()
	for id, p := range s.pending {
		p.ch <- controlResult{err: agent.ErrSessionClosed}
		delete(s.pending, id)
	}
	clear(s.perms)
	s.mu.Unlock()
	s.stream.Close()
	<-s.stream.Done()
	s.b.sessions.Remove(s)
	s.mcpDir.Remove()
	close(s.done)
}

// onFrame is the runtime's read loop callback: one batch per stdout line,
// and the control protocol's books. It blocks while the stream is full.
func (s *Session) onFrame(line []byte, at time.Time, err error) {
	if err != nil {
		// A too-long line (skipped, reading goes on) or a read error.
		s.stream.Synth(agent.Event{Type: agent.EventError, Error: "claude-code: stdout: " + err.Error(), Raw: line})
		return
	}
	var h head
	if bytes.Contains(line, []byte("control_")) { // else no control message: no need to scan its head
		h, _ = scanHead(line)
	}
	switch string(h.typ) {
	case "control_request":
		s.incomingRequest(line) // registered before anyone sees the event
		s.stream.Frame(line, at)
	case "control_response":
		s.stream.Frame(line, at)
		s.incomingResponse(line)
	case "control_cancel_request":
		var c struct {
			RequestID string `json:"request_id"`
		}
		if json.Unmarshal(line, &c) == nil {
			s.mu.Lock()
			delete(s.perms, c.RequestID)
			s.mu.Unlock()
		}
		s.stream.Frame(line, at)
	default:
		s.stream.Frame(line, at)
	}
}

func (s *Session) incomingRequest(line []byte) {
	var w wireControl
	if json.Unmarshal(line, &w) != nil || w.Request == nil {
		return
	}
	if w.Request.Subtype == "can_use_tool" {
		s.mu.Lock()
		s.perms[w.RequestID] = &permRequest{
			toolName:    w.Request.ToolName,
			input:       w.Request.Input,
			suggestions: w.Request.PermissionSuggestion,
		}
		s.mu.Unlock()
		return
	}
	// Hook callbacks, SDK MCP messages ...: the app registers none, so
	// say so rather than leave the CLI waiting.
	_ = s.writeJSON(map[string]any{
		"type": "control_response",
		"response": map[string]any{
			"subtype":    "error",
			"request_id": w.RequestID,
			"error":      "unsupported control request subtype: " + w.Request.Subtype,
		},
	})
}

func (s *Session) incomingResponse(line []byte) {
	var w struct {
		Response struct {
			Subtype   string          `json:"subtype"`
			RequestID string          `json:"request_id"`
			Response  json.RawMessage `json:"response"`
			Error     string          `json:"error"`
		} `json:"response"`
	}
	if json.Unmarshal(line, &w) != nil {
		return
	}
	s.mu.Lock()
	p := s.pending[w.Response.RequestID]
	delete(s.pending, w.Response.RequestID)
	s.mu.Unlock()
	if p == nil {
		return
	}
	if w.Response.Subtype == "error" {
		err := fmt.Errorf("%w: %s: %s", ErrControl, p.subtype, w.Response.Error)
		if p.subtype == "initialize" {
			// Nobody waits on initialize: say it in the stream.
			s.stream.Synth(agent.Event{Type: agent.EventError, Error: err.Error()})
		}
		p.ch <- controlResult{err: err}
		return
	}
	if p.subtype == "set_permission_mode" {
		s.stream.Synth(agent.Event{Type: agent.EventModeChange, Mode: p.mode})
	}
	p.ch <- controlResult{resp: w.Response.Response}
}

func (s *Session) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.proc.WriteLine(b)
}

// sendControl writes a control request and returns its pending entry.
func (s *Session) sendControl(subtype string, fields map[string]any) (*pendingControl, error) {
	select {
	case <-s.proc.Exited():
		return nil, agent.ErrSessionClosed
	default:
	}
	req := map[string]any{"subtype": subtype}
	maps.Copy(req, fields)
	s.mu.Lock()
	s.nextReq++
	id := fmt.Sprintf("req_%d_%s", s.nextReq, randHex(4))
	p := &pendingControl{subtype: subtype, ch: make(chan controlResult, 1)}
	if m, ok := fields["jcMode"].(agent.InteractionMode); ok {
		p.mode = m
		delete(req, "jcMode")
	}
	s.pending[id] = p
	s.mu.Unlock()
	if err := s.writeJSON(map[string]any{"type": "control_request", "request_id": id, "request": req}); err != nil {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		return nil, err
	}
	return p, nil
}

// control sends a control request and waits for its answer.
func (s *Session) control(ctx context.Context, subtype string, fields map[string]any) (json.RawMessage, error) {
	p, err := s.sendControl(subtype, fields)
	if err != nil {
		return nil, err
	}
	select {
	case r := <-p.ch:
		return r.resp, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("claude-code: %s: %w", subtype, ctx.Err())
	case <-s.proc.Exited():
		return nil, fmt.Errorf("claude-code: %s: %w", subtype, agent.ErrSessionClosed)
	}
}

// SendMessage implements agent.Session: it writes a user turn on stdin.
// The turn is also delivered as a batch (Frame = the line written) so the
// prompt is stored raw and normalized like every other message.
func (s *Session) SendMessage(ctx context.Context, text string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-s.proc.Exited():
		return agent.ErrSessionClosed
	default:
	}
	line, err := json.Marshal(map[string]any{
		"type":       "user",
		"session_id": "",
		"uuid":       newUUID(),
		"message": map[string]any{
			"role":    "user",
			"content": []map[string]any{{"type": "text", "text": text}},
		},
		"parent_tool_use_id": nil,
	})
	if err != nil {
		return err
	}
	// Queued and written under the stdin lock: the turn is stored in the
	// order the CLI reads it.
	return s.proc.WithStdin(func(write func([]byte) error) error {
		s.stream.Local(line)
		if err := write(line); err != nil {
			return fmt.Errorf("claude-code: send message: %w", err)
		}
		return nil
	})
}

func (s *Session) takePerm(id string) (*permRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.perms[id]
	if p == nil {
		return nil, fmt.Errorf("claude-code: request %q: %w", id, agent.ErrUnknownRequest)
	}
	delete(s.perms, id)
	return p, nil
}

func (s *Session) putPerm(id string, p *permRequest) {
	s.mu.Lock()
	s.perms[id] = p
	s.mu.Unlock()
}

func (s *Session) answer(id string, resp map[string]any) error {
	return s.writeJSON(map[string]any{
		"type": "control_response",
		"response": map[string]any{
			"subtype":    "success",
			"request_id": id,
			"response":   resp,
		},
	})
}

// RespondToPermission implements agent.Session. Allow sends the original
// input back (or resp.UpdatedInput); Always adds the request's
// permission_suggestions as updatedPermissions; Deny sends the message and
// interrupt flag.
func (s *Session) RespondToPermission(ctx context.Context, requestID string, resp agent.PermissionResponse) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := s.takePerm(requestID)
	if err != nil {
		return err
	}
	var out map[string]any
	switch resp.Behavior {
	case agent.Allow:
		input := p.input
		if len(resp.UpdatedInput) > 0 {
			input = resp.UpdatedInput
		}
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		out = map[string]any{"behavior": "allow", "updatedInput": input}
		if resp.Always && !isNull(p.suggestions) {
			out["updatedPermissions"] = p.suggestions
		}
	case agent.Deny:
		msg := resp.Message
		if msg == "" {
			msg = "The user denied this tool call."
		}
		out = map[string]any{"behavior": "deny", "message": msg}
		if resp.Interrupt {
			out["interrupt"] = true
		}
	default:
		s.putPerm(requestID, p)
		return fmt.Errorf("claude-code: unknown permission behavior %q", resp.Behavior)
	}
	if err := s.answer(requestID, out); err != nil {
		s.putPerm(requestID, p)
		return err
	}
	return nil
}

// RespondToQuestion implements agent.Session for AskUserQuestion: it allows
// the tool with the original input plus "answers": {question: answer}
// (several choices joined with ", ").
func (s *Session) RespondToQuestion(ctx context.Context, requestID string, answer agent.QuestionAnswer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := s.takePerm(requestID)
	if err != nil {
		return err
	}
	if p.toolName != "AskUserQuestion" {
		s.putPerm(requestID, p)
		return fmt.Errorf("claude-code: request %q is a %s permission, not a question: %w", requestID, p.toolName, agent.ErrUnknownRequest)
	}
	input := map[string]any{}
	_ = json.Unmarshal(p.input, &input)
	var ask wireAskInput
	_ = json.Unmarshal(p.input, &ask)
	answers := map[string]string{}
	for i, q := range ask.Questions {
		if i < len(answer.Answers) {
			answers[q.Question] = strings.Join(answer.Answers[i], ", ")
		}
	}
	input["answers"] = answers
	if err := s.answer(requestID, map[string]any{"behavior": "allow", "updatedInput": input}); err != nil {
		s.putPerm(requestID, p)
		return err
	}
	return nil
}

// SetMode implements agent.Session: set_permission_mode; a mode-change
// event follows the CLI's acknowledgement.
func (s *Session) SetMode(ctx context.Context, mode agent.InteractionMode) error {
	native, ok := PermissionMode(mode)
	if !ok || mode == "" {
		return fmt.Errorf("claude-code: unknown interaction mode %q", mode)
	}
	_, err := s.control(ctx, "set_permission_mode", map[string]any{"mode": native, "jcMode": mode})
	return err
}

// SetModel implements agent.ModelSetter: set_model.
func (s *Session) SetModel(ctx context.Context, model string) error {
	_, err := s.control(ctx, "set_model", map[string]any{"model": model})
	return err
}

// Interrupt implements agent.Session: the interrupt control request. The
// turn then ends with an interrupted result; the session stays usable.
func (s *Session) Interrupt(ctx context.Context) error {
	_, err := s.control(ctx, "interrupt", nil)
	return err
}

// Stop implements agent.Session: interrupt, close stdin, then SIGTERM the
// process group after the grace period and SIGKILL it after WaitDelay.
// It returns once Events is closed (or ctx is done).
func (s *Session) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() {
		select {
		case <-s.proc.Exited():
			return
		default:
		}
		ictx, cancel := context.WithTimeout(ctx, s.b.opt.InterruptTimeout)
		_ = s.Interrupt(ictx)
		cancel()
		_ = s.proc.Stop(ctx, s.b.opt.GracePeriod)
	})
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

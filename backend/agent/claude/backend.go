package claude

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
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
	// (default 3s).
	GracePeriod time.Duration
	// WaitDelay is how long after SIGTERM the group gets SIGKILL
	// (default 3s).
	WaitDelay time.Duration
	// InterruptTimeout bounds the interrupt Stop sends first (default 2s).
	InterruptTimeout time.Duration
}

// Backend starts Claude Code sessions. Construct it with New.
type Backend struct {
	opt Options

	mu       sync.Mutex
	sessions map[*Session]struct{}
}

var (
	_ agent.Backend      = (*Backend)(nil)
	_ agent.Session      = (*Session)(nil)
	_ agent.ModelSetter  = (*Session)(nil)
	_ agent.ProcessOwner = (*Session)(nil)
)

// New returns a Claude Code backend.
func New(opt Options) *Backend {
	if opt.Binary == "" {
		opt.Binary = "claude"
	}
	if opt.GracePeriod <= 0 {
		opt.GracePeriod = 3 * time.Second
	}
	if opt.WaitDelay <= 0 {
		opt.WaitDelay = 3 * time.Second
	}
	if opt.InterruptTimeout <= 0 {
		opt.InterruptTimeout = 2 * time.Second
	}
	return &Backend{opt: opt, sessions: map[*Session]struct{}{}}
}

// Info implements agent.Backend.
func (b *Backend) Info() agent.Info {
	return agent.Info{
		Name:        agent.BackendClaudeCode,
		DisplayName: "Claude Code",
		Capabilities: agent.Capabilities{
			Resume:      true,
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
	b.mu.Lock()
	ss := slices.Collect(maps.Keys(b.sessions))
	b.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(ss))
	for i, s := range ss {
		wg.Go(func() { errs[i] = s.Stop(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

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
	if cfg.Model != "" {
		args = append(args, "--model", cfg.Model)
	}
	if cfg.SessionID != "" {
		args = append(args, "--resume", cfg.SessionID)
	}
	if len(cfg.SessionAllowedTools) > 0 {
		args = append(args, "--allowedTools", strings.Join(cfg.SessionAllowedTools, ","))
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
	if err != nil {
		return nil, fmt.Errorf("Claude Code not found: %q is not an executable on PATH or at that path (%v): %w",
			b.opt.Binary, errors.Unwrap(err), agent.ErrBinaryNotFound)
	}
	args, err := Args(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Cwd != "" {
		st, err := os.Stat(cfg.Cwd)
		if err != nil {
			return nil, fmt.Errorf("claude-code: working directory: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("claude-code: working directory %q is not a directory", cfg.Cwd)
		}
	}

	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	cmd := exec.CommandContext(sctx, bin, args...)
	cmd.Dir = cfg.Cwd
	cmd.Env = b.env(cfg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// Graceful first: SIGTERM to the whole group; exec sends SIGKILL
		// to the leader after WaitDelay, and we kill the group after exit.
		return signalGroup(cmd, syscall.SIGTERM)
	}
	cmd.WaitDelay = b.opt.WaitDelay

	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("claude-code: stdin: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("claude-code: stdout: %w", err)
	}
	cmd.Stdout = outW
	tail := proc.NewTail(8 << 10)
	cmd.Stderr = tail

	if err := cmd.Start(); err != nil {
		cancel()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("claude-code: start %s: %w", bin, err)
	}
	outW.Close()

	s := &Session{
		b:       b,
		cmd:     cmd,
		cancel:  cancel,
		stdin:   stdin,
		stderr:  tail,
		em:      newEmitter(),
		pending: map[string]*pendingControl{},
		perms:   map[string]*permRequest{},
		exited:  make(chan struct{}),
		done:    make(chan struct{}),
	}
	b.mu.Lock()
	b.sessions[s] = struct{}{}
	b.mu.Unlock()

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		s.readLoop(outR)
	}()
	go func() {
		err := cmd.Wait()
		// Leftovers of the group (grandchildren) go with the process.
		_ = signalGroup(cmd, syscall.SIGKILL)
		s.exitErr = err
		close(s.exited)
		// A process outside the group still holding stdout must not keep
		// the session open forever.
		select {
		case <-readDone:
		case <-time.After(b.opt.WaitDelay):
			outR.Close()
			<-readDone
		}
		outR.Close()
		s.finish()
	}()

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
	env = append(env, b.opt.Env...)
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		env = append(env, k+"="+cfg.Env[k])
	}
	return env
}

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Session is one running claude process. It implements agent.Session,
// agent.ModelSetter and agent.ProcessOwner.
type Session struct {
	b      *Backend
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stderr *proc.Tail
	em     *emitter

	writeMu     sync.Mutex
	stdin       io.WriteCloser
	stdinClosed bool

	mu      sync.Mutex
	nextReq int
	pending map[string]*pendingControl // our control requests, by request_id
	perms   map[string]*permRequest    // the CLI's can_use_tool requests

	stopping atomic.Bool
	stopOnce sync.Once
	exited   chan struct{} // the process has exited
	exitErr  error
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
func (s *Session) Events() <-chan agent.Batch { return s.em.out }

// PID implements agent.ProcessOwner: the process (and process group) id.
func (s *Session) PID() int { return s.cmd.Process.Pid }

// Wait implements agent.Session. It returns nil when claude exited with
// status 0 or was ended by Stop, else the exit status and stderr tail.
func (s *Session) Wait() error {
	<-s.done
	return s.waitErr
}

func (s *Session) finish() {
	err := s.exitErr
	if err != nil && s.stopping.Load() {
		var ee *exec.ExitError
		if errors.As(err, &ee) && !ee.Exited() {
			err = nil // killed by our own Stop
		}
	}
	if err != nil {
		if t := strings.TrimSpace(s.stderr.String()); t != "" {
			err = fmt.Errorf("claude-code: %w; stderr: %s", err, t)
		} else {
			err = fmt.Errorf("claude-code: %w", err)
		}
	}
	s.waitErr = err
	s.mu.Lock()
	for id, p := range s.pending {
		p.ch <- controlResult{err: agent.ErrSessionClosed}
		delete(s.pending, id)
	}
	clear(s.perms)
	s.mu.Unlock()
	s.cancel()
	s.em.close()
	<-s.em.done
	s.b.mu.Lock()
	delete(s.b.sessions, s)
	s.b.mu.Unlock()
	close(s.done)
}

// readLoop delivers one batch per stdout line and keeps the control
// protocol's books.
func (s *Session) readLoop(r io.Reader) {
	for line, err := range readLines(r, agent.MaxFrameBytes) {
		if errors.Is(err, agent.ErrFrameTooLong) {
			// Keep reading: a stalled pipe would block the CLI forever.
			s.em.synth(agent.Event{Type: agent.EventError, Error: "claude-code: stdout: " + err.Error(), Raw: line})
			continue
		}
		if err != nil {
			if !errors.Is(err, os.ErrClosed) {
				s.em.synth(agent.Event{Type: agent.EventError, Error: "claude-code: reading stdout: " + err.Error()})
			}
			return
		}
		at := time.Now()
		h, _ := scanHead(line)
		switch string(h.typ) {
		case "control_request":
			s.incomingRequest(line) // registered before anyone sees the event
			s.em.frame(line, at)
		case "control_response":
			s.em.frame(line, at)
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
			s.em.frame(line, at)
		default:
			s.em.frame(line, at)
		}
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
			s.em.synth(agent.Event{Type: agent.EventError, Error: err.Error()})
		}
		p.ch <- controlResult{err: err}
		return
	}
	if p.subtype == "set_permission_mode" {
		s.em.synth(agent.Event{Type: agent.EventModeChange, Mode: p.mode})
	}
	p.ch <- controlResult{resp: w.Response.Response}
}

func (s *Session) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.writeLine(b)
}

func (s *Session) writeLine(b []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.stdinClosed {
		return agent.ErrSessionClosed
	}
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("claude-code: write stdin: %w (%w)", err, agent.ErrSessionClosed)
	}
	return nil
}

func (s *Session) closeStdin() {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if !s.stdinClosed {
		s.stdinClosed = true
		s.stdin.Close()
	}
}

// sendControl writes a control request and returns its pending entry.
func (s *Session) sendControl(subtype string, fields map[string]any) (*pendingControl, error) {
	select {
	case <-s.exited:
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
	case <-s.exited:
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
	case <-s.exited:
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
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.stdinClosed {
		return agent.ErrSessionClosed
	}
	s.em.frame(line, time.Now())
	if _, err := s.stdin.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("claude-code: send message: %w (%w)", err, agent.ErrSessionClosed)
	}
	return nil
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
		s.stopping.Store(true)
		select {
		case <-s.exited:
			return
		default:
		}
		ictx, cancel := context.WithTimeout(ctx, s.b.opt.InterruptTimeout)
		_ = s.Interrupt(ictx)
		cancel()
		s.closeStdin()
		select {
		case <-s.exited:
			return
		case <-time.After(s.b.opt.GracePeriod):
		case <-ctx.Done():
		}
		s.cancel() // cmd.Cancel: SIGTERM to the group
		select {
		case <-s.exited:
			return
		case <-time.After(s.b.opt.WaitDelay):
		case <-ctx.Done():
		}
		_ = signalGroup(s.cmd, syscall.SIGKILL)
	})
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// emitter delivers batches in order without ever blocking a producer: the
// read loop and SendMessage enqueue (normalizing under the lock, so the
// normalizer sees frames in delivery order) and one goroutine sends.
type emitter struct {
	mu     sync.Mutex
	cond   *sync.Cond
	q      []agent.Batch
	closed bool
	norm   *Normalizer
	out    chan agent.Batch
	done   chan struct{}
}

func newEmitter() *emitter {
	e := &emitter{norm: NewNormalizer(), out: make(chan agent.Batch, 64), done: make(chan struct{})}
	e.cond = sync.NewCond(&e.mu)
	go e.run()
	return e
}

func (e *emitter) frame(line []byte, at time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.q = append(e.q, agent.Batch{Frame: line, Format: FormatName, Events: e.norm.Feed(line), ReceivedAt: at})
	e.cond.Signal()
}

func (e *emitter) synth(evs ...agent.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.q = append(e.q, agent.Batch{Format: FormatName, Events: evs, ReceivedAt: time.Now()})
	e.cond.Signal()
}

func (e *emitter) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		if evs := e.norm.Flush(); len(evs) > 0 {
			e.q = append(e.q, agent.Batch{Format: FormatName, Events: evs, ReceivedAt: time.Now()})
		}
		e.closed = true
		e.cond.Signal()
	}
}

func (e *emitter) run() {
	defer close(e.done)
	defer close(e.out)
	for {
		e.mu.Lock()
		for len(e.q) == 0 && !e.closed {
			e.cond.Wait()
		}
		q := e.q
		e.q = nil
		closed := e.closed
		e.mu.Unlock()
		for _, b := range q {
			e.out <- b
		}
		if closed && len(q) == 0 {
			return
		}
	}
}

// readLines yields the non-empty lines of r like agent.Lines, but a line
// longer than max is skipped (its first KiB is yielded with an
// ErrFrameTooLong error) and reading goes on.
func readLines(r io.Reader, max int) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		br := bufio.NewReaderSize(r, 1<<20)
		var acc []byte
		tooLong := false
		for {
			chunk, err := br.ReadSlice('\n')
			if len(chunk) > 0 && !tooLong {
				if len(acc)+len(chunk) > max+1 {
					tooLong = true
					head := append(acc, chunk...)
					head = head[:min(len(head), 1024)]
					acc = nil
					if !yield(bytes.Clone(head), fmt.Errorf("%w (over %d bytes): line skipped", agent.ErrFrameTooLong, max)) {
						return
					}
				} else {
					acc = append(acc, chunk...)
				}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if !tooLong {
				line := bytes.TrimRight(acc, "\r\n")
				if len(bytes.TrimSpace(line)) > 0 && !yield(bytes.Clone(line), nil) {
					return
				}
			}
			acc, tooLong = acc[:0], false
			if err != nil {
				if err != io.EOF {
					yield(nil, err)
				}
				return
			}
		}
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

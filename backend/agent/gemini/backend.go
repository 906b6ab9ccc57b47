// Package gemini drives Gemini CLI headless: one `gemini -p ...
// --output-format stream-json` process per turn, follow-ups resuming the
// session with --resume, and normalizes its stream-json (and the
// single-object --output-format json) into agent events.
//
// Headless Gemini CLI cannot ask for permissions: a tool that needs approval
// in the current approval mode fails with tool_not_registered. Interactive
// permissions need the ACP agent "acp.google.gemini" (gemini --acp).
package gemini

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Options configure the backend.
type Options struct {
	// Binary is the gemini executable (default "gemini" on PATH).
	Binary string
}

// Backend starts Gemini CLI sessions.
type Backend struct {
	bin string

	sessions agent.Live[*session]
}

var _ agent.Backend = (*Backend)(nil)

// New returns a Gemini CLI backend.
func New(opt Options) *Backend {
	if opt.Binary == "" {
		opt.Binary = "gemini"
	}
	return &Backend{bin: opt.Binary}
}

// Notes is what the UI shows with the backend.
const Notes = "Headless Gemini CLI cannot ask for permissions: in ask mode, tools that need approval are refused. " +
	"Pick \"Gemini CLI (ACP)\" for interactive permissions."

// Info implements agent.Backend.
func (b *Backend) Info() agent.Info {
	return agent.Info{
		Name:        agent.BackendGemini,
		DisplayName: "Gemini CLI",
		Notes:       Notes,
		Capabilities: agent.Capabilities{
			Resume:    true,
			Interrupt: true,
			SetMode:   true, // from the next turn on
			SetModel:  true, // from the next turn on
		},
	}
}

// Dispose implements agent.Backend.
func (b *Backend) Dispose(ctx context.Context) error {
	return b.sessions.StopAll(ctx)
}

// Start implements agent.Backend: the first turn runs at once.
func (b *Backend) Start(ctx context.Context, cfg agent.Config, prompt string) (agent.Session, error) {
	host := agent.HostTransport(ctx)
	if host == nil && agent.IsOnHost(ctx) {
		return nil, errors.New("gemini: the task runs on a host, but no connection to it was given")
	}
	path, err := b.locate(host != nil, cfg.Cwd)
	if err != nil {
		return nil, err
	}
	mcpDir, mcpEnv, err := mcpSettings(cfg.MCP)
	if err != nil {
		return nil, err
	}
	s := &session{
		b: b, bin: path, cfg: cfg, sessionID: cfg.SessionID, mode: cfg.Mode, model: cfg.Model,
		host: host, taskID: agent.TaskIDFrom(ctx),
		stream: agent.NewStream(FormatName, NewNormalizer()),
		done:   make(chan struct{}), mcpDir: mcpDir, mcpEnv: mcpEnv,
	}
	b.sessions.Add(s)
	if prompt != "" {
		s.startTurn(prompt)
	}
	return s, nil
}

// locate finds the CLI and checks the task's folder on this machine; on a
// host (issue 21) neither is looked at here: each turn's relay there finds
// the CLI by its base name and runs it in the folder, which exists only
// there.
func (b *Backend) locate(onHost bool, cwd string) (string, error) {
	if onHost {
		return b.bin, nil
	}
	path, err := exec.LookPath(b.bin)
	if err != nil {
		return "", fmt.Errorf("Gemini CLI not found (%s): %w", b.bin, errors.Join(agent.ErrBinaryNotFound, err))
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return "", fmt.Errorf("gemini: working directory %q: %w", cwd, errors.Join(os.ErrNotExist, err))
	}
	return path, nil
}

// Args is the command line of one turn. The prompt is not on it: it goes
// to the CLI's stdin (Gemini CLI 0.61 runs headless when stdin is not a
// terminal and reads its input from it, up to 8 MiB), so a long prompt
// never hits the argument-size limit. Every user value is joined to its
// flag (--model=VALUE), so no value can become a flag.
func Args(mode agent.InteractionMode, model, resume string, extra []string) []string {
	args := []string{"--output-format=stream-json"}
	switch mode {
	case agent.ModeBypass:
		args = append(args, "--yolo")
	case agent.ModeAcceptEdits:
		args = append(args, "--approval-mode=auto_edit")
	case agent.ModePlan:
		args = append(args, "--approval-mode=plan")
	}
	if model != "" {
		args = append(args, "--model="+model)
	}
	if resume != "" {
		args = append(args, "--resume="+resume)
	}
	return append(args, extra...)
}

// session runs one gemini process per turn on the shared runtime
// (agent.StartProcess for each turn, one agent.Stream for the session).
type session struct {
	b   *Backend
	bin string
	cfg agent.Config
	// host runs each turn's process on the task's host behind a relay
	// there (nil: a child here); taskID names the turn's relay for it
	// (its "host unreachable" reports).
	host   agent.Transport
	taskID string

	mu        sync.Mutex
	sessionID string
	mode      agent.InteractionMode
	model     string
	proc      *agent.Process // the running turn's process, if any
	closed    bool
	pid       int

	turnMu sync.Mutex // one turn at a time
	turns  sync.WaitGroup

	stream   *agent.Stream
	done     chan struct{}
	stopOnce sync.Once

	mcpDir *agent.PrivateDir // the MCP settings file's dir, removed at the end
	mcpEnv []string          // points Gemini CLI at it
}

var (
	_ agent.Session      = (*session)(nil)
	_ agent.ModelSetter  = (*session)(nil)
	_ agent.ProcessOwner = (*session)(nil)
)

// frame queues one stdout line (blocking while the stream is full) and
// keeps the session id; it reports whether the turn completed.
func (s *session) frame(line []byte, at time.Time) bool {
	completed := false
	for _, ev := range s.stream.Frame(line, at) {
		switch ev.Type {
		case agent.EventSessionID:
			s.mu.Lock()
			s.sessionID = ev.SessionID
			s.mu.Unlock()
		case agent.EventComplete:
			completed = true
		}
	}
	return completed
}

func (s *session) startTurn(prompt string) {
	s.turns.Add(1)
	go func() {
		defer s.turns.Done()
		s.turnMu.Lock()
		defer s.turnMu.Unlock()
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		args := Args(s.mode, s.model, s.sessionID, s.cfg.ExtraArgs)
		s.mu.Unlock()
		s.runTurn(args, prompt)
	}()
}

// runTurn runs one gemini process to its end.
func (s *session) runTurn(args []string, prompt string) {
	env := os.Environ()
	for _, k := range slices.Sorted(maps.Keys(s.cfg.Env)) {
		env = append(env, k+"="+s.cfg.Env[k])
	}
	env = append(env, s.mcpEnv...)
	var completed atomic.Bool
	var readErr error
	p, err := agent.StartProcess(agent.WithTaskID(context.Background(), s.taskID), agent.ProcSpec{
		Name: "gemini", Path: s.bin, Args: args, Dir: s.cfg.Cwd, Env: env, StdinData: []byte(prompt),
		Role: "agent " + string(agent.BackendGemini), Recorder: s.cfg.Recorder, Transport: s.host,
		OnFrame: func(line []byte, at time.Time, err error) {
			if err != nil {
				readErr = err
				return
			}
			if s.frame(line, at) {
				completed.Store(true)
			}
		},
	})
	if err != nil {
		s.stream.Synth(agent.Event{Type: agent.EventError, Fatal: true, Error: fmt.Sprintf("gemini: start: %v", err)})
		return
	}
	s.mu.Lock()
	s.proc, s.pid = p, p.PID()
	s.mu.Unlock()
	<-p.Done()
	s.mu.Lock()
	s.proc = nil
	interrupted := s.closed
	s.mu.Unlock()
	s.turnEnd(p, completed.Load(), interrupted, readErr)
}

// turnEnd says how a turn's process ended when the stream did not.
func (s *session) turnEnd(p *agent.Process, completed, interrupted bool, readErr error) {
	if readErr != nil && !errors.Is(readErr, agent.ErrFrameTooLong) {
		s.stream.Synth(agent.Event{Type: agent.EventError, Fatal: true, Error: "gemini: reading output: " + readErr.Error()})
		return
	}
	if completed {
		return
	}
	code := p.ExitCode()
	if sig, ok := p.Signaled(); ok && (sig == syscall.SIGINT || sig == syscall.SIGTERM) {
		interrupted = true
	}
	if code == 130 {
		interrupted = true
	}
	if interrupted {
		s.stream.Synth(agent.Complete(&agent.Result{Interrupted: true, Reason: "interrupted"}))
		return
	}
	msg := ExitError(code, p.Stderr())
	evs := []agent.Event{}
	if code == 173 {
		evs = append(evs, agent.Event{Type: agent.EventRateLimit, Error: msg})
	}
	s.stream.Synth(append(evs, agent.Event{Type: agent.EventError, Fatal: true, Error: msg})...)
}

// ExitError explains a gemini exit code: Gemini CLI exits with the HTTP
// status & 255 on API errors (173 = 429 quota, 244 = 500) and with its own
// codes for fatal setup errors.
func ExitError(code int, stderr string) string {
	var why string
	switch code {
	case 173:
		why = "quota exhausted (HTTP 429)"
	case 244:
		why = "API server error (HTTP 500)"
	case 247:
		why = "API unavailable (HTTP 503)"
	case 144:
		why = "bad request (HTTP 400)"
	case 145:
		why = "unauthorized (HTTP 401)"
	case 147:
		why = "forbidden (HTTP 403)"
	case 41:
		why = "authentication failed"
	case 42:
		why = "invalid input"
	case 44:
		why = "sandbox error"
	case 52:
		why = "configuration error"
	case 53:
		why = "turn limit reached"
	case -1:
		why = "killed"
	default:
		why = "failed"
	}
	msg := fmt.Sprintf("Gemini CLI exited with code %d: %s", code, why)
	if stderr != "" {
		msg += "\n" + lastLines(stderr, 12)
	}
	return msg
}

func lastLines(s string, n int) string {
	lines := bytes.Split([]byte(s), []byte{'\n'})
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte{'\n'}))
}

// SendMessage implements agent.Session: a new process resumes the session
// once the current turn ended.
func (s *session) SendMessage(ctx context.Context, text string) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return agent.ErrSessionClosed
	}
	s.startTurn(text)
	return nil
}

// RespondToPermission implements agent.Session: headless Gemini never asks.
func (s *session) RespondToPermission(context.Context, string, agent.PermissionResponse) error {
	return fmt.Errorf("gemini: permissions (use the ACP agent): %w", agent.ErrUnsupported)
}

// RespondToQuestion implements agent.Session.
func (s *session) RespondToQuestion(context.Context, string, agent.QuestionAnswer) error {
	return fmt.Errorf("gemini: questions: %w", agent.ErrUnsupported)
}

// SetMode implements agent.Session: the next turn runs in mode.
func (s *session) SetMode(ctx context.Context, mode agent.InteractionMode) error {
	if !mode.Valid() {
		return fmt.Errorf("gemini: mode %q: %w", mode, agent.ErrUnsupported)
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

// Interrupt implements agent.Session: SIGINT to the running turn's group,
// SIGTERM if it is still there 3 seconds later.
func (s *session) Interrupt(ctx context.Context) error {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil {
		return nil
	}
	if err := p.Signal(syscall.SIGINT); err != nil {
		return err
	}
	go func() {
		select {
		case <-p.Exited():
		case <-time.After(3 * time.Second):
			_ = p.Signal(syscall.SIGTERM)
		}
	}()
	return nil
}

// Stop implements agent.Session: SIGINT to the turn, then (after 2 s)
// SIGTERM and SIGKILL its group if it lingers; Events is closed once what
// was read is delivered.
func (s *session) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		p := s.proc
		s.mu.Unlock()
		if p != nil {
			_ = p.Signal(syscall.SIGINT)
			ch := make(chan struct{})
			go func() { s.turns.Wait(); close(ch) }()
			select {
			case <-ch:
			case <-time.After(2 * time.Second):
				_ = p.Stop(ctx, 0)
			case <-ctx.Done():
			}
		}
		go func() {
			s.turns.Wait()
			s.stream.Close()
			<-s.stream.Done()
			s.b.sessions.Remove(s)
			s.mcpDir.Remove()
			close(s.done)
		}()
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

// Wait implements agent.Session: the session ends when it is stopped.
func (s *session) Wait() error {
	<-s.done
	return nil
}

// PID implements agent.ProcessOwner: the last turn's process.
func (s *session) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pid
}

package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/uuid"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// Config is one ACP agent: how to start it. Presets ship for the known
// agents; a user-added agent is just another Config (the Agents page keeps
// them under the settings key SettingsKey, as a JSON list of Config).
type Config struct {
	// Name is "acp.<provider>.<name>", e.g. "acp.google.gemini".
	Name        agent.BackendType `json:"name"`
	DisplayName string            `json:"displayName"`
	Command     string            `json:"command"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
}

// SettingsKey is the settings key under which user-added ACP agents are
// stored (a JSON array of Config).
const SettingsKey = "acpAgents"

var nameRE = regexp.MustCompile(`^acp\.[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9.-]*$`)

// ErrBadConfig: an ACP agent config is unusable.
var ErrBadConfig = errors.New("invalid ACP agent config")

// Validate checks the name and the command.
func (c Config) Validate() error {
	if !nameRE.MatchString(string(c.Name)) {
		return fmt.Errorf("%w: name %q is not acp.<provider>.<name>", ErrBadConfig, c.Name)
	}
	if c.Command == "" {
		return fmt.Errorf("%w: %s has no command", ErrBadConfig, c.Name)
	}
	return nil
}

// Presets are the ACP agents the app knows out of the box.
func Presets() []Config {
	return []Config{
		{Name: "acp.google.gemini", DisplayName: "Gemini CLI (ACP)", Command: "gemini", Args: []string{"--acp"}},
		{Name: "acp.openai.codex", DisplayName: "Codex (ACP)", Command: "codex-acp"},
		{Name: "acp.anthropic.claude-code", DisplayName: "Claude Code (ACP)", Command: "claude-code-acp"},
		{Name: "acp.sst.opencode", DisplayName: "OpenCode (ACP)", Command: "opencode", Args: []string{"acp"}},
		{Name: "acp.block.goose", DisplayName: "Goose (ACP)", Command: "goose", Args: []string{"acp"}},
	}
}

// ParseConfigs reads user-added agents as stored under SettingsKey.
func ParseConfigs(data []byte) ([]Config, error) {
	var cs []Config
	if err := json.Unmarshal(data, &cs); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	for _, c := range cs {
		if err := c.Validate(); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

// Backend runs one configured ACP agent.
type Backend struct {
	cfg Config

	mu       sync.Mutex
	sessions map[*session]struct{}
}

var _ agent.Backend = (*Backend)(nil)

// New returns a backend for the agent cfg describes.
func New(cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.DisplayName == "" {
		cfg.DisplayName = string(cfg.Name)
	}
	return &Backend{cfg: cfg, sessions: map[*session]struct{}{}}, nil
}

// Info implements agent.Backend.
func (b *Backend) Info() agent.Info {
	return agent.Info{
		Name:        b.cfg.Name,
		DisplayName: b.cfg.DisplayName,
		Notes:       "ACP agent: runs `" + strings.Join(append([]string{b.cfg.Command}, b.cfg.Args...), " ") + "`; modes are the agent's own.",
		Capabilities: agent.Capabilities{
			Resume:      true, // when the agent advertises loadSession
			Interrupt:   true,
			SetMode:     true,
			SetModel:    true, // session/set_model, when the agent has it
			Permissions: true,
		},
	}
}

// Dispose implements agent.Backend: it stops every session.
func (b *Backend) Dispose(ctx context.Context) error {
	b.mu.Lock()
	ss := make([]*session, 0, len(b.sessions))
	for s := range b.sessions {
		ss = append(ss, s)
	}
	b.mu.Unlock()
	var errs []error
	for _, s := range ss {
		if err := s.Stop(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Start implements agent.Backend: it spawns the agent, initializes the
// connection (offering fs read/write confined to cfg.Cwd), opens or loads
// the session, applies the mode and sends prompt as the first turn.
func (b *Backend) Start(ctx context.Context, cfg agent.Config, prompt string) (agent.Session, error) {
	path, err := exec.LookPath(b.cfg.Command)
	if err != nil {
		return nil, fmt.Errorf("%s not found (%s): %w", b.cfg.DisplayName, b.cfg.Command, errors.Join(agent.ErrBinaryNotFound, err))
	}
	root, err := resolveRoot(cfg.Cwd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.cfg.Name, err)
	}
	s := &session{
		b:      b,
		cfg:    cfg,
		root:   root,
		norm:   NewNormalizer(),
		events: make(chan agent.Batch, 1024),
		perms:  map[string]*pendingPerm{},
		done:   make(chan struct{}),
		abort:  make(chan struct{}),
		stderr: proc.NewTail(16 << 10),
	}
	if err := s.spawn(path, b.cfg); err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.sessions[s] = struct{}{}
	b.mu.Unlock()
	if err := s.handshake(ctx); err != nil {
		_ = s.Stop(context.Background())
		if werr := s.Wait(); werr != nil {
			err = fmt.Errorf("%w (%v)", err, werr)
		}
		return nil, fmt.Errorf("%s: %w", b.cfg.DisplayName, err)
	}
	if prompt != "" {
		s.startTurn(prompt)
	}
	return s, nil
}

// session is one running ACP agent process and its session.
type session struct {
	b    *Backend
	cfg  agent.Config
	root string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	cancel context.CancelFunc // ends the process (SIGTERM to its group)
	conn   *sdk.ClientSideConnection
	ctx    context.Context // lives as long as the session

	normMu sync.Mutex // serializes Feed and delivery, in frame order
	norm   *Normalizer
	events chan agent.Batch
	closed bool // events closed
	abort  chan struct{}

	mu          sync.Mutex
	sessionID   string
	modes       []string
	loadSession bool
	perms       map[string]*pendingPerm
	stopping    bool

	turnMu sync.Mutex // one prompt at a time
	turns  sync.WaitGroup

	stderr   *proc.Tail
	done     chan struct{}
	waitErr  error
	stopOnce sync.Once
	stopErr  error
}

var (
	_ agent.Session      = (*session)(nil)
	_ agent.ModelSetter  = (*session)(nil)
	_ agent.ProcessOwner = (*session)(nil)
)

// pendingPerm is a permission request waiting for the user. answer has
// room for the one answer it ever gets (answered guards it).
type pendingPerm struct {
	options  []agent.PermissionOption
	answer   chan sdk.RequestPermissionResponse
	answered bool
}

func (s *session) spawn(path string, c Config) error {
	pctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(pctx, path, append(append([]string{}, c.Args...), s.cfg.ExtraArgs...)...)
	cmd.Dir = s.root
	cmd.Env = os.Environ()
	for k, v := range c.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range s.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return proc.KillGroup(cmd, syscall.SIGTERM) }
	cmd.WaitDelay = 3 * time.Second
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return fmt.Errorf("%s: start %s: %w", c.Name, path, err)
	}
	s.cmd, s.stdin, s.cancel = cmd, stdin, cancel
	sctx, scancel := context.WithCancel(context.Background())
	s.ctx = sctx

	// The SDK reads a pipe we feed after each line became a Batch, and
	// writes through teeWriter, so both directions are normalized in order.
	pr, pw := io.Pipe()
	s.conn = sdk.NewClientSideConnection(&client{s: s}, &teeWriter{s: s}, pr)
	s.conn.SetLogger(slog.New(slog.DiscardHandler)) // every frame is kept raw already
	go func() {
		// If the SDK stops reading (a line over its 10 MiB limit), fail the
		// tee's writes instead of blocking it forever.
		<-s.conn.Done()
		_ = pr.CloseWithError(errors.New("ACP connection closed"))
	}()
	go func() {
		defer scancel()
		s.readLoop(stdout, pw)
	}()
	return nil
}

// readLoop delivers one Batch per line the agent writes, then hands the line
// to the SDK; at EOF it reaps the process and closes Events.
func (s *session) readLoop(stdout io.Reader, sdkIn *io.PipeWriter) {
	var readErr error
	for line, err := range agent.Lines(stdout) {
		if err != nil {
			readErr = err
			break
		}
		s.deliver(line, nil)
		if _, werr := sdkIn.Write(append(line, '\n')); werr != nil {
			readErr = werr
			break
		}
	}
	_ = sdkIn.Close()
	if readErr != nil {
		// A frame too long or a broken pipe: stop the agent, keep what came.
		s.deliver(nil, []agent.Event{{Type: agent.EventError, Fatal: true, Error: fmt.Sprintf("%s: reading agent output: %v", s.b.cfg.Name, readErr)}})
		s.cancel()
	}
	err := s.cmd.Wait()
	_ = proc.KillGroup(s.cmd, syscall.SIGKILL) // no orphans
	s.cancel()
	s.mu.Lock()
	stopping := s.stopping
	s.mu.Unlock()
	s.cancelPerms()
	if err != nil && !stopping {
		s.waitErr = fmt.Errorf("%s exited: %w; stderr: %s", s.b.cfg.DisplayName, err, s.stderr.String())
		s.deliver(nil, []agent.Event{{Type: agent.EventError, Fatal: true, Error: s.waitErr.Error()}})
	} else if err == nil && !stopping && s.turnRunning() {
		s.waitErr = fmt.Errorf("%s exited mid-turn; stderr: %s", s.b.cfg.DisplayName, s.stderr.String())
		s.deliver(nil, []agent.Event{{Type: agent.EventError, Fatal: true, Error: s.waitErr.Error()}})
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

func (s *session) turnRunning() bool {
	if s.turnMu.TryLock() {
		s.turnMu.Unlock()
		return false
	}
	return true
}

// deliver normalizes frame (nil for synthesized events) and sends the Batch.
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
	for _, ev := range evs {
		if ev.Type == agent.EventPermissionRequest && ev.Request != nil {
			s.mu.Lock()
			if _, ok := s.perms[ev.Request.RequestID]; !ok {
				s.perms[ev.Request.RequestID] = &pendingPerm{options: ev.Request.PermissionOptions, answer: make(chan sdk.RequestPermissionResponse, 1)}
			}
			s.mu.Unlock()
		}
	}
	b := agent.Batch{Frame: frame, Format: FormatName, Events: evs, ReceivedAt: time.Now()}
	select {
	case s.events <- b:
	case <-s.abort:
	}
}

// teeWriter is the SDK's way to the agent: each line it writes becomes a
// Batch first, so the normalizer sees a request before its response.
type teeWriter struct{ s *session }

func (w *teeWriter) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(p, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) > 0 {
			w.s.deliver(bytes.Clone(line), nil)
		}
	}
	return w.s.stdin.Write(p)
}

func (s *session) handshake(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	init, err := s.conn.Initialize(ctx, sdk.InitializeRequest{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		// No readTextFile: Gemini CLI 0.61.0 reads a file through the
		// client before writing it and takes the spec's "Resource not
		// found" error for a missing file as a failure (its check does
		// String(err) on the JSON-RPC error object), so it could never
		// create a file. Agents read the task folder themselves.
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: false, WriteTextFile: true}},
		ClientInfo:         &sdk.Implementation{Name: "jean-claude", Version: "0.1.0"},
	})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	s.loadSession = init.AgentCapabilities.LoadSession
	var modes *sdk.SessionModeState
	var models *sdk.SessionModelState
	if s.cfg.SessionID != "" && s.loadSession {
		r, err := s.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(s.cfg.SessionID), Cwd: s.root, McpServers: []sdk.McpServer{}})
		if err != nil {
			return fmt.Errorf("session/load %s: %w", s.cfg.SessionID, err)
		}
		s.sessionID, modes, models = s.cfg.SessionID, r.Modes, r.Models
	} else {
		if s.cfg.SessionID != "" {
			s.deliver(nil, []agent.Event{{Type: agent.EventError, Error: fmt.Sprintf("%s cannot load sessions: starting a new one instead of %s", s.b.cfg.DisplayName, s.cfg.SessionID)}})
		}
		r, err := s.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: s.root, McpServers: []sdk.McpServer{}})
		if err != nil {
			return fmt.Errorf("session/new: %w", err)
		}
		s.sessionID, modes, models = string(r.SessionId), r.Modes, r.Models
	}
	if models != nil && s.cfg.Model != "" && string(models.CurrentModelId) != s.cfg.Model {
		if err := s.SetModel(ctx, s.cfg.Model); err != nil {
			s.deliver(nil, []agent.Event{{Type: agent.EventError, Error: err.Error()}})
		}
	}
	if modes != nil {
		s.mu.Lock()
		for _, m := range modes.AvailableModes {
			s.modes = append(s.modes, string(m.Id))
		}
		s.mu.Unlock()
		if s.cfg.Mode != "" && ModeFromAgent(string(modes.CurrentModeId)) != s.cfg.Mode {
			err := s.SetMode(ctx, s.cfg.Mode)
			if errors.Is(err, agent.ErrUnsupported) {
				// Say so, and go on in the agent's own mode.
				s.deliver(nil, []agent.Event{{Type: agent.EventError, Error: err.Error()}})
			} else if err != nil {
				return err
			}
		}
	}
	return nil
}

// startTurn sends one prompt in the background; turns run one at a time.
func (s *session) startTurn(text string) {
	s.turns.Add(1)
	go func() {
		defer s.turns.Done()
		s.turnMu.Lock()
		defer s.turnMu.Unlock()
		id := uuid.NewString()
		_, err := s.conn.Prompt(s.ctx, sdk.PromptRequest{
			SessionId: sdk.SessionId(s.sessionID),
			MessageId: &id,
			Prompt:    []sdk.ContentBlock{sdk.TextBlock(text)},
		})
		var rerr *sdk.RequestError
		if err != nil && !errors.As(err, &rerr) && s.ctx.Err() == nil {
			// Not an answer from the agent (that one the normalizer
			// already turned into an error event): say what happened.
			s.deliver(nil, []agent.Event{{Type: agent.EventError, Fatal: true, Error: fmt.Sprintf("%s: prompt: %v", s.b.cfg.Name, err)}})
		}
	}()
}

// SendMessage implements agent.Session: the turn starts once the current one ended.
func (s *session) SendMessage(ctx context.Context, text string) error {
	if s.isDone() {
		return agent.ErrSessionClosed
	}
	s.startTurn(text)
	return nil
}

func (s *session) isDone() bool {
	select {
	case <-s.done:
		return true
	default:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopping
}

// RespondToPermission implements agent.Session: it picks the agent's own
// option matching the answer (allow/deny, once/always).
func (s *session) RespondToPermission(ctx context.Context, requestID string, resp agent.PermissionResponse) error {
	// The entry stays until the SDK's callback took the answer: the user
	// may answer before the callback even looked.
	s.mu.Lock()
	p, ok := s.perms[requestID]
	if ok && p.answered {
		ok = false
	}
	if ok {
		p.answered = true
	}
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s: permission %s: %w", s.b.cfg.Name, requestID, agent.ErrUnknownRequest)
	}
	p.answer <- permissionAnswer(p.options, resp)
	if resp.Behavior == agent.Deny && resp.Interrupt {
		return s.Interrupt(ctx)
	}
	return nil
}

// permissionAnswer maps an answer to the agent's options: the kind asked for,
// else its once/always sibling, else (deny with no reject option) cancelled.
func permissionAnswer(options []agent.PermissionOption, resp agent.PermissionResponse) sdk.RequestPermissionResponse {
	var prefs []string
	switch {
	case resp.Behavior == agent.Allow && resp.Always:
		prefs = []string{"allow_always", "allow_once"}
	case resp.Behavior == agent.Allow:
		prefs = []string{"allow_once", "allow_always"}
	case resp.Always:
		prefs = []string{"reject_always", "reject_once"}
	default:
		prefs = []string{"reject_once", "reject_always"}
	}
	for _, k := range prefs {
		for _, o := range options {
			if o.Kind == k {
				return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
					Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(o.ID), Outcome: "selected"},
				}}
			}
		}
	}
	return cancelledOutcome()
}

func cancelledOutcome() sdk.RequestPermissionResponse {
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}
}

// cancelPerms answers every pending permission request "cancelled", as ACP
// requires on session/cancel.
func (s *session) cancelPerms() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, p := range s.perms {
		if !p.answered {
			p.answered = true
			p.answer <- cancelledOutcome()
		}
		delete(s.perms, id)
	}
}

// RespondToQuestion implements agent.Session: ACP has no questions.
func (s *session) RespondToQuestion(context.Context, string, agent.QuestionAnswer) error {
	return fmt.Errorf("%s: questions: %w", s.b.cfg.Name, agent.ErrUnsupported)
}

// SetMode implements agent.Session with session/set_mode; mode is one of
// ours (mapped onto the agent's availableModes) or one of the agent's ids.
func (s *session) SetMode(ctx context.Context, mode agent.InteractionMode) error {
	if s.isDone() {
		return agent.ErrSessionClosed
	}
	s.mu.Lock()
	id, ok := AgentModeFor(s.modes, mode)
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s: mode %q (agent offers %v): %w", s.b.cfg.Name, mode, s.modes, agent.ErrUnsupported)
	}
	_, err := s.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sdk.SessionId(s.sessionID), ModeId: sdk.SessionModeId(id)})
	if err != nil {
		return fmt.Errorf("%s: session/set_mode %s: %w", s.b.cfg.Name, id, err)
	}
	return nil
}

// SetModel implements agent.ModelSetter with ACP's (unstable)
// session/set_model; agents that lack it answer with an error.
func (s *session) SetModel(ctx context.Context, model string) error {
	if s.isDone() {
		return agent.ErrSessionClosed
	}
	if _, err := s.conn.UnstableSetSessionModel(ctx, sdk.UnstableSetSessionModelRequest{SessionId: sdk.SessionId(s.sessionID), ModelId: sdk.UnstableModelId(model)}); err != nil {
		return fmt.Errorf("%s: session/set_model %s: %w", s.b.cfg.Name, model, err)
	}
	return nil
}

// Interrupt implements agent.Session: session/cancel, and every pending
// permission request is answered "cancelled".
func (s *session) Interrupt(ctx context.Context) error {
	select {
	case <-s.done:
		return agent.ErrSessionClosed
	default:
	}
	s.cancelPerms()
	if err := s.conn.Cancel(ctx, sdk.CancelNotification{SessionId: sdk.SessionId(s.sessionID)}); err != nil {
		return fmt.Errorf("%s: session/cancel: %w", s.b.cfg.Name, err)
	}
	return nil
}

// Stop implements agent.Session: cancel the turn, give it a moment to end,
// close stdin, then SIGTERM and finally SIGKILL the process group.
func (s *session) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() {
		if s.turnRunning() {
			_ = s.Interrupt(ctx)
			wait(ctx, s.turnsDone(), 2*time.Second)
		}
		s.mu.Lock()
		s.stopping = true
		s.mu.Unlock()
		_ = s.stdin.Close()
		if !wait(ctx, s.done, 2*time.Second) {
			_ = proc.KillGroup(s.cmd, syscall.SIGTERM)
			if !wait(ctx, s.done, 3*time.Second) {
				_ = proc.KillGroup(s.cmd, syscall.SIGKILL)
				close(s.abort) // nobody may be reading Events any more
				<-s.done
			}
		}
	})
	<-s.done
	return s.stopErr
}

func (s *session) turnsDone() <-chan struct{} {
	ch := make(chan struct{})
	go func() { s.turns.Wait(); close(ch) }()
	return ch
}

// wait waits for ch up to d (or ctx); it reports whether ch closed.
func wait(ctx context.Context, ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
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

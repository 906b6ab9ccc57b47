package opencode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/relay"
)

// Options configure the OpenCode backend.
type Options struct {
	// Binary is the opencode executable (default "opencode" on PATH).
	Binary string
	// BaseURL attaches to an already running server instead of spawning
	// one (then Username/Password are its credentials).
	BaseURL string
	// Username and Password are the basic-auth credentials; a spawned
	// server gets a random password when Password is empty.
	Username, Password string
	// Env adds environment variables to the spawned server.
	Env map[string]string
	// ReconnectMin/Max bound the SSE reconnect backoff (default 1 s … 30 s).
	ReconnectMin, ReconnectMax time.Duration
	// RestartMin/Max bound the server restart backoff (default 1 s … 30 s).
	RestartMin, RestartMax time.Duration
	// HealthTimeout bounds the wait for a new server (default 30 s).
	HealthTimeout time.Duration
	// Recorder records the server process (see agent.ProcessRecorder).
	Recorder agent.ProcessRecorder
	// ConnectTimeout bounds the wait for a session's event stream (default 30 s).
	ConnectTimeout time.Duration
	// Relays, when set, runs the server behind a relay so that it outlives
	// the app, and makes the backend adopt the one a previous app left
	// (keep.go, docs/relay.md).
	Relays *relay.Transport
	// HostServers, when set, is a folder of this machine (in the app's
	// data dir) where the port and password of each host's server are
	// recorded, so that it is kept at quit with "keep" and adopted at the
	// next start, also after a crash (hostkeep.go); empty: a host's server
	// is stopped at quit and never adopted.
	HostServers string
}

func (o Options) username() string {
	if o.Username == "" {
		return "opencode"
	}
	return o.Username
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func (o Options) reconnectMin() time.Duration  { return orDefault(o.ReconnectMin, time.Second) }
func (o Options) reconnectMax() time.Duration  { return orDefault(o.ReconnectMax, 30*time.Second) }
func (o Options) restartMin() time.Duration    { return orDefault(o.RestartMin, time.Second) }
func (o Options) restartMax() time.Duration    { return orDefault(o.RestartMax, 30*time.Second) }
func (o Options) healthTimeout() time.Duration { return orDefault(o.HealthTimeout, 30*time.Second) }
func (o Options) connectTimeout() time.Duration {
	return orDefault(o.ConnectTimeout, 30*time.Second)
}

// Backend runs OpenCode sessions on one shared `opencode serve`.
type Backend struct {
	opt Options
	srv *server

	hostMu sync.Mutex
	hosts  map[string]*server // one server per host, for remote projects (hostserver.go)

	sessions agent.Live[*Session]
	mcp      mcpOwners // which session holds the app's MCP server, per folder
}

var _ agent.Backend = (*Backend)(nil)

// New returns an OpenCode backend; nothing starts until the first session.
func New(opt Options) *Backend {
	return &Backend{opt: opt, srv: newServer(opt)}
}

// Info implements agent.Backend.
func (b *Backend) Info() agent.Info {
	return agent.Info{
		Name:        agent.BackendOpenCode,
		DisplayName: "OpenCode",
		Capabilities: agent.Capabilities{
			Resume:      true,
			Fork:        true, // POST /session/{id}/fork (from the end of a session)
			Interrupt:   true,
			SetMode:     true,
			SetModel:    true,
			Questions:   true,
			Permissions: true,
		},
	}
}

// ServerPID is the shared server's process id (0 when none runs).
func (b *Backend) ServerPID() int { return b.srv.PID() }

// Start implements agent.Backend: it creates (or, with cfg.SessionID,
// reattaches to) a session, connects its event stream, then sends prompt.
func (b *Backend) Start(ctx context.Context, cfg agent.Config, prompt string) (agent.Session, error) {
	if cfg.Mode == "" {
		cfg.Mode = agent.ModeAsk
	}
	if !cfg.Mode.Valid() {
		return nil, fmt.Errorf("opencode: unknown mode %q", cfg.Mode)
	}
	if cfg.Cwd == "" {
		// The shared server would use its own directory.
		return nil, errors.New("opencode: no working directory")
	}
	srv, err := b.serverFor(ctx)
	if err != nil {
		return nil, err
	}
	c, err := srv.client(ctx, cfg.Cwd)
	if err != nil {
		return nil, err
	}
	s := b.newSession(ctx, srv, cfg)
	if err := s.openSession(ctx, c); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.stream = agent.NewStream(FormatName, noFlush{s.norm})
	b.sessions.Add(s)
	go s.run(runCtx)
	if err := s.awaitFirstConnect(ctx); err != nil {
		return nil, err
	}
	s.addMCP(ctx, c)
	if prompt != "" {
		if err := s.SendMessage(ctx, prompt); err != nil {
			s.abandon()
			return nil, err
		}
	}
	return s, nil
}

// newSession is a session of cfg on srv, not opened yet.
func (b *Backend) newSession(ctx context.Context, srv *server, cfg agent.Config) *Session {
	s := &Session{
		b:        b,
		srv:      srv,
		cfg:      cfg,
		norm:     NewNormalizer(),
		children: map[string]bool{},
		open:     map[string]bool{},
		done:     make(chan struct{}),
		ready:    make(chan struct{}),
		upCh:     make(chan struct{}),
		mode:     cfg.Mode,
		// Continuing a session a previous app followed (its server
		// outlived it): the first connect delivers the session's events
		// (catch-up) instead of priming them as already stored.
		adopting: agent.Adopting(ctx) && cfg.SessionID != "" && !cfg.ForkSession,
	}
	if cfg.Model != "" {
		s.model = parseModel(cfg.Model)
	}
	for _, id := range cfg.PendingRequests {
		s.open[id] = true
	}
	return s
}

// openSession makes the server's session: a native fork of cfg.SessionID, that
// session again, or a new one, with the mode's permission rules.
func (s *Session) openSession(ctx context.Context, c *client) error {
	cfg := s.cfg
	switch {
	case cfg.SessionID != "" && cfg.ForkSession:
		// A native fork: continue a copy of the session, under its own id.
		raw, err := c.forkSession(ctx, cfg.SessionID, cfg.ForkPoint)
		if err != nil {
			return fmt.Errorf("opencode: fork session %s: %w", cfg.SessionID, err)
		}
		if err := s.adopt(raw); err != nil {
			return fmt.Errorf("opencode: fork session %s: %w", cfg.SessionID, err)
		}
		_ = c.updateSessionPermission(ctx, s.id, modeRules(cfg.Mode))
	case cfg.SessionID != "":
		if _, err := c.getSession(ctx, cfg.SessionID); err != nil {
			return fmt.Errorf("opencode: resume session %s: %w", cfg.SessionID, err)
		}
		s.id = cfg.SessionID
		// Best effort, like the create body's rules: a server without
		// per-session rules keeps the project's.
		_ = c.updateSessionPermission(ctx, s.id, modeRules(cfg.Mode))
	default:
		raw, err := c.createSession(ctx, modeRules(cfg.Mode))
		if err != nil {
			return fmt.Errorf("opencode: create session: %w", err)
		}
		if err := s.adopt(raw); err != nil {
			return fmt.Errorf("opencode: create session: %w", err)
		}
	}
	return nil
}

// awaitFirstConnect waits until the session's event stream first
// connected (ready); on a timeout or ctx's end it abandons the session and
// says why.
func (s *Session) awaitFirstConnect(ctx context.Context) error {
	t := time.NewTimer(s.b.opt.connectTimeout())
	defer t.Stop()
	select {
	case <-s.ready:
		return nil
	case <-ctx.Done():
		s.abandon()
		return ctx.Err()
	case <-t.C:
	}
	s.abandon()
	s.mu.Lock()
	last := s.lastErr
	s.mu.Unlock()
	if last == nil {
		last = errors.New("no answer")
	}
	return fmt.Errorf("opencode: event stream of session %s not connected after %s: %w", s.id, s.b.opt.connectTimeout(), last)
}

// Dispose implements agent.Backend: it stops every session, then the server
// and its whole process group.
func (b *Backend) Dispose(ctx context.Context) error {
	err := b.sessions.StopAll(ctx)
	b.srv.dispose()
	b.disposeHosts()
	return err
}

// parseModel maps "provider/model" to {providerID, modelID}; a bare name is
// a model of the default provider, so the server picks.
func parseModel(m string) *wireModelRef {
	p, id, ok := strings.Cut(m, "/")
	if !ok || p == "" || id == "" {
		return nil
	}
	return &wireModelRef{ProviderID: p, ModelID: id}
}

// modeRules are the session permission rules of a mode. OpenCode merges them
// with the project's own `permission` config.
func modeRules(m agent.InteractionMode) []wirePermissionRule {
	ask := func(p string) wirePermissionRule {
		return wirePermissionRule{Permission: p, Pattern: "*", Action: "ask"}
	}
	allow := func(p string) wirePermissionRule {
		return wirePermissionRule{Permission: p, Pattern: "*", Action: "allow"}
	}
	switch m {
	case agent.ModeBypass:
		return []wirePermissionRule{allow("*")}
	case agent.ModeAcceptEdits:
		return []wirePermissionRule{allow("edit"), ask("bash"), ask("webfetch"), ask("external_directory")}
	default: // ask, plan (the plan agent itself refuses edits)
		return []wirePermissionRule{ask("edit"), ask("bash"), ask("webfetch"), ask("external_directory")}
	}
}

// agentFor is the OpenCode agent a mode prompts.
func agentFor(m agent.InteractionMode) string {
	if m == agent.ModePlan {
		return "plan"
	}
	return "build"
}

// Session is one OpenCode session followed over the shared server.
type Session struct {
	b       *Backend
	srv     *server // this machine's, or its host's (hostserver.go)
	cfg     agent.Config
	id      string
	created []byte // synthesized session.created frame, delivered first

	// stream is the shared runtime's bounded frame pipeline: run feeds it
	// each payload of this session, and blocks while the consumer lags
	// (it then stops reading the SSE response: backpressure).
	stream   *agent.Stream
	norm     *Normalizer     // fed by run's goroutine only (directly by prime, else through stream)
	children map[string]bool // sub-agent session ids, owned by run
	// open: the permission requests and questions announced (or held by
	// the app when it adopted the session) and not replied to, owned by
	// run; a catch-up withdraws those the server no longer has.
	open   map[string]bool
	cancel context.CancelFunc
	ready  chan struct{} // closed once the event stream is connected
	done   chan struct{} // closed when run has returned and stream is closed

	adopting bool

	mu       sync.Mutex
	mode     agent.InteractionMode
	model    *wireModelRef
	stopped  bool
	waitErr  error
	lastErr  error         // why the event stream last broke
	up       bool          // the event stream is connected and caught up
	upCh     chan struct{} // closed while up
	readyOne sync.Once
}

var (
	_ agent.Session     = (*Session)(nil)
	_ agent.ModelSetter = (*Session)(nil)
)

// ID is OpenCode's session id.
func (s *Session) ID() string { return s.id }

// Events implements agent.Session.
func (s *Session) Events() <-chan agent.Batch { return s.stream.Events() }

// abandon ends a session Start could not hand out: nobody will read its
// events, so they are drained here.
func (s *Session) abandon() {
	go func() {
		for range s.stream.Events() {
		}
	}()
	_ = s.Stop(context.Background())
}

// noFlush is a normalizer whose end-of-stream flush emits nothing: when
// the session stops following OpenCode's session, the turn is not over on
// the server (it is aborted there, or goes on), so no turn end is made up.
type noFlush struct{ *Normalizer }

func (noFlush) Flush() []agent.Event { return nil }

func (s *Session) client(ctx context.Context) (*client, error) {
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if stopped {
		return nil, agent.ErrSessionClosed
	}
	return s.srv.client(ctx, s.cfg.Cwd)
}

// SendMessage implements agent.Session. It waits for the event stream
// when it is reconnecting (at most ConnectTimeout).
func (s *Session) SendMessage(ctx context.Context, text string) error {
	if err := s.waitConnected(ctx); err != nil {
		return err
	}
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	body := wirePromptBody{Model: s.model, Agent: agentFor(s.mode), Parts: []wireTextPartIn{{Type: "text", Text: text}}}
	s.mu.Unlock()
	if err := c.promptAsync(ctx, s.id, body); err != nil {
		return fmt.Errorf("opencode: prompt %s: %w", s.id, err)
	}
	return nil
}

// RespondToPermission implements agent.Session: allow → "once" (or
// "always"), deny → "reject" with the message; Interrupt also aborts.
func (s *Session) RespondToPermission(ctx context.Context, requestID string, resp agent.PermissionResponse) error {
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	reply, msg := "once", ""
	switch {
	case resp.Behavior == agent.Deny:
		reply, msg = "reject", resp.Message
	case resp.Always:
		reply = "always"
	}
	if err := c.replyPermission(ctx, requestID, reply, msg); err != nil {
		if errors.Is(err, errHTTPNotFound) {
			return fmt.Errorf("opencode: permission %s: %w", requestID, agent.ErrUnknownRequest)
		}
		return fmt.Errorf("opencode: permission %s: %w", requestID, err)
	}
	if resp.Behavior == agent.Deny && resp.Interrupt {
		return s.Interrupt(ctx)
	}
	return nil
}

// RespondToQuestion implements agent.Session.
func (s *Session) RespondToQuestion(ctx context.Context, requestID string, answer agent.QuestionAnswer) error {
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	if err := c.replyQuestion(ctx, requestID, answer.Answers); err != nil {
		if errors.Is(err, errHTTPNotFound) {
			return fmt.Errorf("opencode: question %s: %w", requestID, agent.ErrUnknownRequest)
		}
		return fmt.Errorf("opencode: question %s: %w", requestID, err)
	}
	return nil
}

// SetMode implements agent.Session: the session's permission rules change
// now (PATCH /session/{id}); plan mode prompts the "plan" agent from the
// next message on. A mode-change event is delivered.
func (s *Session) SetMode(ctx context.Context, mode agent.InteractionMode) error {
	if !mode.Valid() {
		return fmt.Errorf("opencode: unknown mode %q", mode)
	}
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	if err := c.updateSessionPermission(ctx, s.id, modeRules(mode)); err != nil {
		return fmt.Errorf("opencode: set mode %s: %w", mode, err)
	}
	s.mu.Lock()
	s.mode = mode
	s.mu.Unlock()
	s.deliverSynthetic([]agent.Event{{Type: agent.EventModeChange, Mode: mode}})
	return nil
}

// SetModel implements agent.ModelSetter: the next prompts use model.
func (s *Session) SetModel(ctx context.Context, model string) error {
	m := parseModel(model)
	if m == nil {
		return fmt.Errorf("opencode: model %q is not provider/model", model)
	}
	s.mu.Lock()
	s.model = m
	s.mu.Unlock()
	return nil
}

// Interrupt implements agent.Session.
func (s *Session) Interrupt(ctx context.Context) error {
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	if err := c.abort(ctx, s.id); err != nil {
		return fmt.Errorf("opencode: abort %s: %w", s.id, err)
	}
	return nil
}

// Stop implements agent.Session: it aborts the turn (without waiting for the
// server's answer), stops following the session and closes Events. The
// shared server keeps running.
func (s *Session) Stop(ctx context.Context) error {
	s.mu.Lock()
	already := s.stopped
	s.mu.Unlock()
	if !already {
		if c, ok := s.srv.running(s.cfg.Cwd); ok { // a dead server has no turn to abort
			// The server answers an abort once the turn has wound down,
			// seconds under load: send it, but do not wait for it.
			go s.srv.abortTurn(c, s.id)
			s.dropMCP(c)
		}
		s.mu.Lock()
		s.stopped = true
		s.mu.Unlock()
	}
	s.cancel()
	select {
	case <-s.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.b.sessions.Remove(s)
	return nil
}

// Wait implements agent.Session.
func (s *Session) Wait() error {
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waitErr
}

// deliverSynthetic queues events that have no frame (mode changes); it
// never blocks, so a caller that also reads Events never deadlocks. It is
// dropped when the session has ended.
func (s *Session) deliverSynthetic(evs []agent.Event) {
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if stopped {
		return
	}
	s.stream.Synth(evs...)
}

// adopt makes the new session raw (a Session, from a create or a fork) the
// session's. The stream connects after the session exists, so its
// session.created is rebuilt from the answer.
func (s *Session) adopt(raw json.RawMessage) error {
	var info wireSession
	if err := json.Unmarshal(raw, &info); err != nil || info.ID == "" {
		return fmt.Errorf("bad answer %.200s", raw)
	}
	s.id = info.ID
	s.created, _ = json.Marshal(map[string]any{"type": "session.created", "properties": map[string]any{"sessionID": info.ID, "info": raw}})
	return nil
}

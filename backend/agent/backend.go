package agent

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Config says how to start a session.
type Config struct {
	Backend BackendType     `json:"type"`
	Cwd     string          `json:"cwd"`
	Mode    InteractionMode `json:"interactionMode"`
	Model   string          `json:"model,omitempty"`
	// SessionID resumes that session (never "the latest one in this folder").
	SessionID string `json:"sessionId,omitempty"`
	// SessionAllowedTools are tools already allowed for this session.
	SessionAllowedTools []string `json:"sessionAllowedTools,omitempty"`
	// Env adds environment variables for the agent process.
	Env map[string]string `json:"env,omitempty"`
	// ExtraArgs are appended to the agent's command line.
	ExtraArgs []string `json:"extraArgs,omitempty"`
	// Transcript is a short plain-text summary of the task's conversation
	// so far, set with SessionID: a backend that cannot resume that session
	// may seed the new one with it (and says so).
	Transcript string `json:"-"`
	// ForkSession, with SessionID, continues a copy of that session under a
	// new session id (a native fork: Claude Code's --fork-session); the
	// session itself is left as it was. Only a backend whose Info says
	// Capabilities.Fork is given it.
	ForkSession bool `json:"forkSession,omitempty"`
	// ForkPoint, with ForkSession, says where the copy of the session
	// ends, in the backend's own ids ("" = the whole session): for
	// OpenCode the first message the copy leaves out (its fork's
	// messageID), for Codex the last turn it keeps (thread/fork
	// lastTurnId). history.Fork sets it (history.ForkAt).
	ForkPoint string `json:"forkPoint,omitempty"`
	// PendingRequests are the permission requests and questions the app
	// holds as pending for this session, set when it adopts the session
	// after a restart: a backend whose agent can answer them elsewhere
	// (OpenCode's shared server) reports those it no longer has as
	// EventRequestResolved.
	PendingRequests []string `json:"-"`
	// Recorder, when set, records every process the session starts (see
	// ProcessRecorder); the orchestrator sets it.
	Recorder ProcessRecorder `json:"-"`
	// MCP is the app's MCP server for this session (nil: none, or turned
	// off for this agent). Its Token is a secret: a backend hands it to
	// the agent in a 0600 file or its environment, never as a flag value.
	MCP *MCPServer `json:"-"`
}

// MCPServer is an MCP server reachable over streamable HTTP with a bearer
// token (the app's own, backend/mcpserver).
type MCPServer struct {
	Name  string // "jean-claude"
	URL   string // http://127.0.0.1:PORT/mcp
	Token string // never logged
	// Unreachable, for a session that adopts an agent which outlived the
	// previous app, says why that agent cannot reach this server with
	// what it read at its start (its URL or token is not valid here);
	// "" when it can.
	Unreachable string
}

// MCPAtEachStart is implemented by a backend that hands the app's MCP
// server to its agent at every session start, adoptions included
// (OpenCode registers it with its server): MCPServer.Unreachable does not
// concern its sessions.
type MCPAtEachStart interface {
	MCPAtEachStart() bool
}

// Header is the HTTP Authorization header value the agent sends.
func (s *MCPServer) Header() string { return "Bearer " + s.Token }

// String never shows the token.
func (s *MCPServer) String() string { return s.Name + " " + s.URL }

// Capabilities says what a backend can do, so the UI greys out the rest.
type Capabilities struct {
	Resume      bool `json:"resume"`
	Fork        bool `json:"fork"`
	Interrupt   bool `json:"interrupt"`
	SetMode     bool `json:"setMode"`
	SetModel    bool `json:"setModel"`
	Compaction  bool `json:"compaction"`
	Questions   bool `json:"questions"`
	Permissions bool `json:"permissions"` // asks before running tools
	// Modes the backend supports; empty means all of AllModes.
	Modes []InteractionMode `json:"modes,omitempty"`
}

// Info describes a backend to the UI.
type Info struct {
	Name         BackendType  `json:"name"`
	DisplayName  string       `json:"displayName"`
	Capabilities Capabilities `json:"capabilities"`
	// Notes is a short remark the UI shows where the backend is picked, e.g.
	// that it cannot ask for permissions in ask mode.
	Notes string `json:"notes,omitempty"`
}

// Backend starts sessions of one kind of agent.
type Backend interface {
	Info() Info
	// Start launches the agent in cfg.Cwd and sends prompt as the first
	// turn (an empty prompt with cfg.SessionID just reattaches).
	Start(ctx context.Context, cfg Config, prompt string) (Session, error)
	// Dispose stops every session and helper process the backend owns.
	Dispose(ctx context.Context) error
}

// Batch is what a session delivers for one raw frame: the frame exactly as
// received and the events the normalizer made of it. The orchestrator stores
// Frame and Events in one transaction before it emits anything.
type Batch struct {
	Frame      []byte    // raw bytes (one JSON line, one SSE data payload), the batch's own: never reused nor changed once delivered; nil for synthesized events
	Format     string    // raw format of Frame, e.g. "claude-code"
	Events     []Event   // normalized events, possibly none
	ReceivedAt time.Time // when the transport read the frame
	// RelayID and RelaySeq name the relay journal record of Frame
	// (Stream.Bind); the consumer calls Ack once the batch is stored.
	RelayID  string
	RelaySeq uint64
	acker    *remoteState // the relayed process to ack (no closure per frame)
	// Replayed: the app stored this frame and its events already (an
	// adopted relay replays them to rebuild the normalizer); skip it.
	Replayed bool
}

// Ack tells the relay of a frame from a relayed process (Stream.Bind) that
// the batch is stored; acks are cumulative. It does nothing for any other
// batch (Acks reports which).
func (b Batch) Ack() {
	if b.acker != nil {
		b.acker.ack(b.RelaySeq)
	}
}

// Acks reports whether Ack tells a relay anything.
func (b Batch) Acks() bool { return b.acker != nil }

// Session is one running conversation with an agent.
type Session interface {
	// Events delivers batches in order; it is closed when the session ends.
	Events() <-chan Batch
	// SendMessage sends a follow-up user turn.
	SendMessage(ctx context.Context, text string) error
	RespondToPermission(ctx context.Context, requestID string, resp PermissionResponse) error
	RespondToQuestion(ctx context.Context, requestID string, answer QuestionAnswer) error
	SetMode(ctx context.Context, mode InteractionMode) error
	// Interrupt stops the current turn; the session stays usable.
	Interrupt(ctx context.Context) error
	// Stop interrupts, then ends the agent process (group) gracefully, then
	// forcefully. Events is closed when it returns, provided the consumer
	// keeps reading Events: what the agent wrote is never dropped, so a
	// consumer that stopped reading holds Stop until ctx ends.
	Stop(ctx context.Context) error
	// Wait blocks until the session has ended and returns why: nil for a
	// clean end, else an error that includes the agent's stderr tail.
	Wait() error
}

// ModelSetter is a Session that can switch models mid-session.
type ModelSetter interface {
	SetModel(ctx context.Context, model string) error
}

// ProcessOwner is a Session backed by a process the app started.
type ProcessOwner interface {
	PID() int
}

// Errors callers branch on.
var (
	// ErrUnknownBackend: no backend registered under that name.
	ErrUnknownBackend = errors.New("unknown agent backend")
	// ErrBinaryNotFound: the agent's CLI is not installed.
	ErrBinaryNotFound = errors.New("agent binary not found")
	// ErrNotAvailable: the backend is registered but cannot start tasks yet.
	ErrNotAvailable = errors.New("agent backend not available")
	// ErrUnsupported: the backend cannot do that (see Capabilities).
	ErrUnsupported = errors.New("not supported by this agent backend")
	// ErrSessionClosed: the session has ended.
	ErrSessionClosed = errors.New("agent session closed")
	// ErrUnknownRequest: no pending permission request or question has that id.
	ErrUnknownRequest = errors.New("unknown request id")
)

// UnknownBackendError names the backend that was asked for.
type UnknownBackendError struct{ Name BackendType }

func (e *UnknownBackendError) Error() string {
	return fmt.Sprintf("%v: %q", ErrUnknownBackend, string(e.Name))
}

// Is makes errors.Is(err, ErrUnknownBackend) true.
func (e *UnknownBackendError) Is(target error) bool { return target == ErrUnknownBackend }

// Registry holds the backends the app knows, by name. It is a value the app
// constructs; there is no global registry.
type Registry struct {
	mu       sync.RWMutex
	backends map[BackendType]Backend
	order    []BackendType
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{backends: map[BackendType]Backend{}}
}

// Register adds b under b.Info().Name, replacing any backend of that name.
func (r *Registry) Register(b Backend) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := b.Info().Name
	if _, ok := r.backends[name]; !ok {
		r.order = append(r.order, name)
	}
	r.backends[name] = b
}

// Get returns the backend called name, or an *UnknownBackendError.
func (r *Registry) Get(name BackendType) (Backend, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	b, ok := r.backends[name]
	if !ok {
		return nil, &UnknownBackendError{Name: name}
	}
	return b, nil
}

// Has reports whether name is registered.
func (r *Registry) Has(name BackendType) bool {
	_, err := r.Get(name)
	return err == nil
}

// List returns every backend's Info in registration order.
func (r *Registry) List() []Info {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Info, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.backends[n].Info())
	}
	return out
}

// Names returns every backend's name in registration order.
func (r *Registry) Names() []string {
	infos := r.List()
	out := make([]string, len(infos))
	for i, in := range infos {
		out[i] = string(in.Name)
	}
	return out
}

// Dispose disposes every backend, returning the errors joined.
func (r *Registry) Dispose(ctx context.Context) error {
	r.mu.RLock()
	bs := make([]Backend, 0, len(r.order))
	for _, n := range r.order {
		bs = append(bs, r.backends[n])
	}
	r.mu.RUnlock()
	var errs []error
	for _, b := range bs {
		if err := b.Dispose(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", b.Info().Name, err))
		}
	}
	return errors.Join(errs...)
}

// Unavailable is a registered backend that cannot start tasks yet. It lets
// the UI list a backend before its implementation lands.
type Unavailable struct {
	Desc Info
}

// Info implements Backend.
func (u Unavailable) Info() Info { return u.Desc }

// Start implements Backend: it always fails with ErrNotAvailable.
func (u Unavailable) Start(context.Context, Config, string) (Session, error) {
	return nil, fmt.Errorf("%s: %w yet", u.Desc.DisplayName, ErrNotAvailable)
}

// Dispose implements Backend.
func (u Unavailable) Dispose(context.Context) error { return nil }

// SortedNames returns the names of infos, sorted; handy in messages.
func SortedNames(infos []Info) []string {
	out := make([]string, len(infos))
	for i, in := range infos {
		out[i] = string(in.Name)
	}
	sort.Strings(out)
	return out
}

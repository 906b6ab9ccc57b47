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
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/uuid"

	"github.com/jean-claude/jean-claude/backend/agent"
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
	// ModeArgs are arguments added when a session starts in that mode, for
	// agents whose own modes cannot express it: then no session/set_mode is
	// sent at start. Codex (ACP) asks before commands only with Codex's
	// "untrusted" approval policy, which none of its presets selects.
	ModeArgs map[agent.InteractionMode][]string `json:"modeArgs,omitempty"`
	// Note says what the user should know when picking this agent, shown
	// with the backend's notes (e.g. that Ask does not ask before commands).
	Note string `json:"note,omitempty"`
	// NoFileSystem: do not offer fs/read_text_file and fs/write_text_file
	// (the agent uses the disk itself).
	NoFileSystem bool `json:"noFileSystem,omitempty"`
	// MissingFileEmpty answers fs/read_text_file of a file that does not
	// exist (inside the task folder) with empty content instead of the
	// spec's "resource not found" error. Gemini CLI 0.61 reads a file
	// before creating it and takes that JSON-RPC error (a plain object, not
	// an Error with code ENOENT) for a failure, so it could never create a
	// file; it also reads through the client when fs is not offered.
	MissingFileEmpty bool `json:"missingFileEmpty,omitempty"`
	// SessionMeta is sent as the `_meta` of session/new and session/load,
	// in every mode (a mode change does not start a new session).
	SessionMeta map[string]any `json:"sessionMeta,omitempty"`
	// Files are written before each start and passed as Flag=<path>
	// (presets only: not read from a user's stored config).
	Files []ConfigFile `json:"-"`
}

// ClaudeAskCommandsMeta is claude-code-acp's SessionMeta: its
// `_meta.claudeCode.options` are the Claude Agent SDK's query options, and
// `extraArgs` become Claude Code flags, here `--settings <json>` (a
// constant: no user value) with a permission rule that asks before every
// Bash command. Without it Claude Code runs its read-only allowlist (`ls`,
// `cat`, …) unasked, and Ask must ask before any command (issue #13). In
// its bypassPermissions mode claude-code-acp allows every request itself,
// so bypass asks nothing while ask, accept-edits and plan ask before every
// command, also after a mode switch mid-session (checked on 0.16.2, whose
// Claude Agent SDK 0.2.44 runs Claude Code 2.1.44).
func ClaudeAskCommandsMeta() map[string]any {
	return map[string]any{"claudeCode": map[string]any{"options": map[string]any{
		"extraArgs": map[string]any{"settings": `{"permissions":{"ask":["Bash"]}}`},
	}}}
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
		{Name: "acp.google.gemini", DisplayName: "Gemini CLI (ACP)", Command: "gemini", Args: []string{"--acp"}, MissingFileEmpty: true,
			Files: []ConfigFile{{Name: "gemini-ask-commands.toml", Content: GeminiAskCommandsPolicy, Flag: "--policy"}}},
		// codex-acp 0.16.0 snapshots its shell's environment, the API
		// key passed to it included, under ~/.codex/shell_snapshots
		// unless told not to (TestRealCodexACPOnHost checks no file of
		// the host holds the key).
		{Name: "acp.openai.codex", DisplayName: "Codex (ACP)", Command: "codex-acp", Args: []string{"-c", "features.shell_snapshot=false"}, ModeArgs: map[agent.InteractionMode][]string{
			// Its "auto" mode runs in-project commands unasked and its
			// "read-only" runs them in a sandbox unasked.
			agent.ModeAsk: {"-c", `approval_policy="untrusted"`, "-c", `sandbox_mode="workspace-write"`},
		}, Note: "In Ask mode it asks before edits and commands, except commands Codex knows as safe (cat, ls, …), " +
			"which it runs without asking (codex-acp 0.16.0)."},
		{Name: "acp.anthropic.claude-code", DisplayName: "Claude Code (ACP)", Command: "claude-code-acp", SessionMeta: ClaudeAskCommandsMeta()},
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

// HandshakeTimeout bounds initialize plus session/new (or load): an agent
// that has not answered by then is stopped and the task fails, saying so.
const HandshakeTimeout = 2 * time.Minute

// Backend runs one configured ACP agent.
type Backend struct {
	cfg Config
	// handshakeTimeout is HandshakeTimeout (shorter in tests).
	handshakeTimeout time.Duration

	sessions agent.Live[*session]
	// forks: an agent of this backend advertised session/fork
	// (sessionCapabilities.fork) at a handshake of this process.
	forks atomic.Bool
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
	return &Backend{cfg: cfg, handshakeTimeout: HandshakeTimeout}, nil
}

// Info implements agent.Backend.
func (b *Backend) Info() agent.Info {
	return agent.Info{
		Name:        b.cfg.Name,
		DisplayName: b.cfg.DisplayName,
		Notes:       strings.TrimSpace("ACP agent: runs `" + strings.Join(append([]string{b.cfg.Command}, b.cfg.Args...), " ") + "`; modes are the agent's own. " + b.cfg.Note),
		Capabilities: agent.Capabilities{
			Resume:      true, // when the agent advertises loadSession
			Fork:        b.forks.Load(),
			Interrupt:   true,
			SetMode:     true,
			SetModel:    true, // session/set_model, when the agent has it
			Permissions: true,
		},
	}
}

// Dispose implements agent.Backend: it stops every session.
func (b *Backend) Dispose(ctx context.Context) error {
	return b.sessions.StopAll(ctx)
}

// Start implements agent.Backend: it spawns the agent and returns at once;
// in the background the session initializes the connection (offering fs
// read/write confined to cfg.Cwd), opens or loads the session, applies the
// mode and sends prompt as the first turn. Until then the task shows a
// "starting" notice and can be stopped; a handshake that fails ends the
// session with a fatal error carrying the agent's stderr.
func (b *Backend) Start(ctx context.Context, cfg agent.Config, prompt string) (agent.Session, error) {
	onHost := agent.IsOnHost(ctx)
	path, root, err := b.locate(cfg.Cwd, onHost)
	if err != nil {
		return nil, err
	}
	s := &session{
		b:      b,
		cfg:    cfg,
		root:   root,
		onHost: onHost,
		stream: agent.NewStream(FormatName, NewNormalizer()),
		perms:  map[string]*pendingPerm{},
		done:   make(chan struct{}),
		booted: make(chan struct{}),
	}
	if agent.Adopting(ctx) {
		s.adopt()
	}
	if err := s.spawn(ctx, path, b.cfg); err != nil {
		s.stream.Close()
		return nil, err
	}
	b.sessions.Add(s)
	if s.ids != nil {
		close(s.booted) // the agent had its handshake with the previous app
		return s, nil
	}
	go s.boot()
	if prompt != "" {
		s.startTurn(prompt) // waits for the handshake
	}
	return s, nil
}

// locate is the executable to run and the task folder (absolute, symlinks
// resolved). For a session on another host (agent.OnHost) nothing is looked
// up here: the configured command is kept (the host's relay finds it by
// base name on the host's PATH and ~/.local/bin) and the folder, which
// exists only there, is taken as given (it must be absolute).
func (b *Backend) locate(cwd string, onHost bool) (path, root string, err error) {
	if onHost {
		if !filepath.IsAbs(cwd) {
			return "", "", fmt.Errorf("%s: %w: working directory %q on the host is not absolute", b.cfg.Name, ErrOutsideRoot, cwd)
		}
		return b.cfg.Command, filepath.Clean(cwd), nil
	}
	path, err = exec.LookPath(b.cfg.Command)
	if err != nil {
		return "", "", fmt.Errorf("%s not found (%s): %w", b.cfg.DisplayName, b.cfg.Command, errors.Join(agent.ErrBinaryNotFound, err))
	}
	if root, err = resolveRoot(cwd); err != nil {
		return "", "", fmt.Errorf("%s: %w", b.cfg.Name, err)
	}
	return path, root, nil
}

// session is one running ACP agent process and its session.
type session struct {
	b    *Backend
	cfg  agent.Config
	root string
	// onHost: the agent runs on another host (agent.OnHost), where the
	// task folder is; the client offers no fs and serves no file.
	onHost bool

	p     *agent.Process // the shared session runtime's process
	conn  *sdk.ClientSideConnection
	ctx   context.Context // lives as long as the session
	sdkIn *io.PipeWriter  // what the SDK reads: the agent's lines, after the stream had them

	// stream normalizes every frame, both directions, in order, with
	// backpressure on the agent's stdout.
	stream *agent.Stream

	mu          sync.Mutex
	sessionID   string
	modes       []string
	loadSession bool
	forkable    bool // the agent has session/fork (unstable in ACP)
	mcpHTTP     bool // the agent takes HTTP MCP servers (mcpCapabilities.http)
	mcpNoticed  bool
	seed        string                  // the transcript the next prompt carries (a resume that failed)
	perms       map[string]*pendingPerm // by request id
	permSeq     int
	stopping    bool

	turnMu sync.Mutex // one prompt at a time
	turns  sync.WaitGroup

	booted  chan struct{} // the handshake ended (bootErr says how)
	bootErr error
	info    *sdk.Implementation // the agent's agentInfo, when it sent one

	done     chan struct{}
	waitErr  error
	stopOnce sync.Once
	stopErr  error

	// ids, on an adopted session, renumbers the SDK's requests (adopt.go).
	ids *idShift
}

var (
	_ agent.Session      = (*session)(nil)
	_ agent.ModelSetter  = (*session)(nil)
	_ agent.ProcessOwner = (*session)(nil)
)

// pendingPerm is a permission request waiting for the user. answer has
// room for the one answer it ever gets (answered guards it).
type pendingPerm struct {
	id       string // the normalizer's request id, unique per request
	toolID   string
	seq      int  // announcement order
	claimed  bool // the SDK's callback took it
	options  []agent.PermissionOption
	answer   chan sdk.RequestPermissionResponse
	answered bool
}

func (s *session) spawn(ctx context.Context, path string, c Config) error {
	env := os.Environ()
	for k, v := range c.Env {
		env = append(env, k+"="+v)
	}
	for k, v := range s.cfg.Env {
		env = append(env, k+"="+v)
	}
	files, err := configFileArgs(c.Files)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	args := append(append(append([]string{}, c.Args...), files...), c.ModeArgs[s.cfg.Mode]...)
	sctx, scancel := context.WithCancel(context.Background())
	s.ctx = sctx
	// The SDK reads a pipe we feed after each line went through the stream,
	// and writes through teeWriter, so both directions are normalized in order.
	pr, pw := io.Pipe()
	s.sdkIn = pw
	p, err := agent.StartProcess(ctx, agent.ProcSpec{
		Name: string(c.Name), Path: path, Args: append(args, s.cfg.ExtraArgs...), Dir: s.root, Env: env,
		Stdin: true, Role: "agent " + string(c.Name), Recorder: s.cfg.Recorder,
		OnFrame: s.onFrame, Stream: s.stream,
	})
	if err != nil {
		scancel()
		return err
	}
	s.p = p
	s.conn = sdk.NewClientSideConnection(&client{s: s}, &teeWriter{s: s}, pr)
	s.conn.SetLogger(slog.New(slog.DiscardHandler)) // every frame is kept raw already
	go func() {
		// If the SDK stops reading (a line over its 10 MiB limit), fail the
		// pipe's writes instead of blocking the read loop forever.
		<-s.conn.Done()
		_ = pr.CloseWithError(errors.New("ACP connection closed"))
	}()
	go func() {
		defer scancel()
		s.finish()
	}()
	return nil
}

// onFrame is the runtime's read loop handing over one line of the agent's
// stdout: normalized (waiting while the consumer lags), then given to the
// SDK.
func (s *session) onFrame(line []byte, at time.Time, err error) {
	if err != nil {
		s.stream.Synth(agent.Event{Type: agent.EventError, Error: fmt.Sprintf("%s: %v", s.b.cfg.Name, err)})
		return
	}
	if s.ids != nil {
		s.onAdoptedFrame(line, at)
		return
	}
	s.notePerms(s.stream.Frame(line, at))
	_, _ = s.sdkIn.Write(append(line, '\n'))
}

// finish waits for the process and its output, says why it ended when that
// was not asked for, and closes Events.
func (s *session) finish() {
	<-s.p.Done()
	_ = s.sdkIn.Close()
	<-s.booted // a failed handshake reports the exit itself
	s.mu.Lock()
	stopping := s.stopping || s.bootErr != nil
	s.mu.Unlock()
	s.cancelPerms()
	err := s.p.Wait()
	if err != nil && !stopping {
		s.waitErr = fmt.Errorf("%s exited: %w", s.b.cfg.DisplayName, err)
		s.stream.Synth(agent.Event{Type: agent.EventError, Fatal: true, Error: s.waitErr.Error()})
	} else if err == nil && !stopping && s.turnRunning() {
		s.waitErr = fmt.Errorf("%s exited mid-turn; stderr: %s", s.b.cfg.DisplayName, s.p.Stderr())
		s.stream.Synth(agent.Event{Type: agent.EventError, Fatal: true, Error: s.waitErr.Error()})
	}
	s.stream.Close() // flushes: tool calls left open end as interrupted
	s.b.sessions.Remove(s)
	close(s.done)
}

func (s *session) turnRunning() bool {
	if s.turnMu.TryLock() {
		s.turnMu.Unlock()
		return false
	}
	return true
}

// deliver queues events the app made (no raw frame).
func (s *session) deliver(_ []byte, synth []agent.Event) { s.stream.Synth(synth...) }

// notePerms records the permission requests the normalizer announced, for
// the SDK's callback and RespondToPermission.
func (s *session) notePerms(evs []agent.Event) {
	for _, ev := range evs {
		if ev.Type == agent.EventPermissionRequest && ev.Request != nil {
			s.mu.Lock()
			if _, ok := s.perms[ev.Request.RequestID]; !ok {
				s.permSeq++
				s.perms[ev.Request.RequestID] = &pendingPerm{id: ev.Request.RequestID, toolID: ev.Request.ToolID, seq: s.permSeq,
					options: ev.Request.PermissionOptions, answer: make(chan sdk.RequestPermissionResponse, 1)}
			}
			s.mu.Unlock()
		}
	}
}

// teeWriter is the SDK's way to the agent: each line it writes becomes a
// Batch first, so the normalizer sees a request before its response.
type teeWriter struct{ s *session }

func (w *teeWriter) Write(p []byte) (int, error) {
	err := w.s.p.WithStdin(func(write func([]byte) error) error {
		for _, line := range bytes.Split(p, []byte{'\n'}) {
			if len(bytes.TrimSpace(line)) > 0 {
				line = w.s.ids.out(line)
				w.s.stream.Local(w.s.redact(line))
				if err := write(line); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// boot runs the handshake in the background of Start. On failure it reports
// one fatal error (with the exit status when the agent exited, and its
// stderr) and ends the process; a Stop meanwhile reports nothing.
func (s *session) boot() {
	notice := "acp-starting-" + uuid.NewString()
	s.deliver(nil, []agent.Event{startingNotice(notice, "Starting "+s.b.cfg.DisplayName+"…")})
	ctx, cancel := context.WithTimeout(s.ctx, s.b.handshakeTimeout)
	defer cancel()
	go func() {
		select {
		case <-s.p.Exited():
			cancel()
		case <-ctx.Done():
		}
	}()
	step, err := s.handshake(ctx)
	if err == nil {
		s.deliver(nil, []agent.Event{startingNotice(notice, s.readyText())})
		close(s.booted)
		return
	}
	s.mu.Lock()
	stopping := s.stopping
	s.mu.Unlock()
	if !stopping {
		err = s.bootError(ctx, step, err)
		s.deliver(nil, []agent.Event{{Type: agent.EventError, Fatal: true, Error: err.Error()}})
	}
	s.mu.Lock()
	s.bootErr = err
	s.stopping = true
	s.mu.Unlock()
	close(s.booted)
	go func() { _ = s.p.Stop(context.Background(), 0) }() // SIGTERM now, SIGKILL after WaitDelay
}

// bootError says why the handshake failed at step: the agent exited (with
// its status), did not answer in time, or answered an error; with the tail
// of its stderr.
func (s *session) bootError(ctx context.Context, step string, err error) error {
	select {
	case <-s.p.Exited():
	case <-time.After(500 * time.Millisecond): // it may be exiting
	}
	name := s.b.cfg.DisplayName
	select {
	case <-s.p.Exited():
		status := fmt.Sprintf("exit status %d", s.p.ExitCode())
		if sig, ok := s.p.Signaled(); ok {
			status = "killed by " + sig.String()
		}
		err = fmt.Errorf("%s: the agent exited (%s) before answering %s", name, status, step)
	default:
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("%s: the agent did not answer %s within %s", name, step, s.b.handshakeTimeout)
		} else {
			err = fmt.Errorf("%s: %s failed: %s", name, step, errText(err))
		}
	}
	if tail := strings.TrimSpace(s.p.Stderr()); tail != "" {
		err = fmt.Errorf("%w; agent stderr: %s", err, tail)
	} else {
		err = fmt.Errorf("%w (the agent wrote nothing on stderr)", err)
	}
	return err
}

// startingNotice is the system line that shows the agent starting, then
// what answered.
func startingNotice(id, text string) agent.Event {
	return agent.Event{Type: agent.EventMessage, Message: &agent.Message{
		ID: id, Role: agent.RoleSystem,
		Parts: []agent.Part{{Type: agent.PartSystemStatus, Subtype: "starting", Text: text}},
	}}
}

func (s *session) readyText() string {
	t := s.b.cfg.DisplayName + " ready (ACP protocol " + strconv.Itoa(sdk.ProtocolVersionNumber)
	if s.info != nil {
		t += ", " + s.info.Name + " " + s.info.Version
	}
	return t + ")"
}

// ErrProtocolVersion: the agent answered initialize with a protocol version
// this client does not speak.
var ErrProtocolVersion = errors.New("unsupported ACP protocol version")

// AgentInfo is the agent's name and version from its initialize answer
// (nil until the handshake succeeded, or when it sent none).
func (s *session) AgentInfo() *sdk.Implementation {
	select {
	case <-s.booted:
		return s.info
	default:
		return nil
	}
}

// servesFiles: the client offers fs/read_text_file and fs/write_text_file
// (from this machine's disk): not when the agent runs on another host, nor
// for an agent configured without (NoFileSystem).
func (s *session) servesFiles() bool {
	return !s.b.cfg.NoFileSystem && !s.onHost
}

// handshake initializes, checks the protocol version and opens the session
// (loading cfg.SessionID when asked; when that fails, a new session). It
// returns the step that failed.
func (s *session) handshake(ctx context.Context) (string, error) {
	init, err := s.conn.Initialize(ctx, sdk.InitializeRequest{
		ProtocolVersion:    sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: s.servesFiles(), WriteTextFile: s.servesFiles()}},
		ClientInfo:         &sdk.Implementation{Name: "jean-claude", Version: "0.1.0"},
	})
	if err != nil {
		return "initialize", err
	}
	if init.ProtocolVersion != sdk.ProtocolVersionNumber {
		return "initialize", fmt.Errorf("%w: the agent speaks version %d, this app speaks version %d; update the agent or the app",
			ErrProtocolVersion, init.ProtocolVersion, sdk.ProtocolVersionNumber)
	}
	s.info = init.AgentInfo
	s.loadSession = init.AgentCapabilities.LoadSession
	if s.forkable = init.AgentCapabilities.SessionCapabilities.Fork != nil; s.forkable {
		s.b.forks.Store(true)
	}
	s.mcpHTTP = init.AgentCapabilities.McpCapabilities.Http
	modes, models, step, err := s.openSession(ctx)
	if err != nil {
		return step, err
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
		want, _ := AgentModeFor(s.modes, s.cfg.Mode)
		_, byArgs := s.b.cfg.ModeArgs[s.cfg.Mode]
		if s.cfg.Mode != "" && !byArgs && want != string(modes.CurrentModeId) {
			err := s.SetMode(ctx, s.cfg.Mode)
			if errors.Is(err, agent.ErrUnsupported) {
				// Say so, and go on in the agent's own mode.
				s.deliver(nil, []agent.Event{{Type: agent.EventError, Error: err.Error()}})
			} else if err != nil {
				return "session/set_mode", err
			}
		}
	}
	return "", nil
}

// openSession loads cfg.SessionID when the agent can, else (or when loading
// fails) opens a new session and says so: the user's message goes to the
// new session, which does not know the earlier conversation.
func (s *session) openSession(ctx context.Context) (*sdk.SessionModeState, *sdk.SessionModelState, string, error) {
	if s.cfg.SessionID != "" && s.cfg.ForkSession {
		if s.forkable {
			return s.forkSession(ctx)
		}
		// Never the parent's own session: a new one, said so.
		s.deliver(nil, []agent.Event{{Type: agent.EventError, Error: fmt.Sprintf(
			"%s cannot fork sessions (no session/fork): this task starts a new session, which does not see the earlier conversation", s.b.cfg.DisplayName)}})
	} else if s.cfg.SessionID != "" {
		why := "it cannot load sessions"
		if s.loadSession {
			r, err := s.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(s.cfg.SessionID), Cwd: s.root, McpServers: s.mcpServers(),
				Meta: s.b.cfg.SessionMeta})
			if err == nil {
				s.sessionID = s.cfg.SessionID
				return r.Modes, r.Models, "", nil
			}
			if ctx.Err() != nil {
				return nil, nil, "session/load", err
			}
			why = errText(err)
		}
		carried := "which does not see the earlier conversation (it stays in this task's history)"
		if s.cfg.Transcript != "" {
			s.seed = s.cfg.Transcript
			carried = "seeded with a text transcript of the earlier conversation (its messages, not its tool calls, files read or other state)"
		}
		s.deliver(nil, []agent.Event{{Type: agent.EventError, Error: fmt.Sprintf(
			"%s could not resume its session (%s): your message starts a new session, %s", s.b.cfg.DisplayName, why, carried)}})
	}
	r, err := s.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: s.root, McpServers: s.mcpServers(), Meta: s.b.cfg.SessionMeta})
	if err != nil {
		return nil, nil, "session/new", err
	}
	s.sessionID = string(r.SessionId)
	return r.Modes, r.Models, "", nil
}

// forkSession continues a copy of cfg.SessionID under the agent's new id
// (session/fork, unstable in ACP: the agent copies the whole session).
func (s *session) forkSession(ctx context.Context) (*sdk.SessionModeState, *sdk.SessionModelState, string, error) {
	var mcp []sdk.UnstableMcpServer // the same servers, in the unstable request's type
	if b, err := json.Marshal(s.mcpServers()); err == nil {
		_ = json.Unmarshal(b, &mcp)
	}
	r, err := s.conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: sdk.SessionId(s.cfg.SessionID), Cwd: s.root,
		McpServers: mcp, Meta: s.b.cfg.SessionMeta})
	if err != nil {
		return nil, nil, "session/fork", err
	}
	s.sessionID = string(r.SessionId)
	var models *sdk.SessionModelState
	if r.Models != nil {
		if b, err := json.Marshal(r.Models); err == nil && json.Unmarshal(b, &models) != nil {
			models = nil
		}
	}
	return r.Modes, models, "", nil
}

// errText is a JSON-RPC error's message and details.
func errText(err error) string {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		t := re.Message
		if re.Data != nil {
			if b, jerr := json.Marshal(re.Data); jerr == nil && string(b) != "null" {
				t += ": " + string(b)
			}
		}
		return t
	}
	return err.Error()
}

// startTurn sends one prompt in the background; turns run one at a time.
func (s *session) startTurn(text string) {
	s.turns.Add(1)
	go func() {
		defer s.turns.Done()
		<-s.booted
		if s.bootErr != nil {
			return
		}
		s.turnMu.Lock()
		defer s.turnMu.Unlock()
		s.mu.Lock()
		if s.seed != "" {
			text = "This conversation continues an earlier session that could not be resumed. " +
				"Transcript of the earlier conversation:\n<transcript>\n" + s.seed + "\n</transcript>\n\nNew message:\n" + text
			s.seed = ""
		}
		s.mu.Unlock()
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
			agent.WaitFor(ctx, s.turnsDone(), 2*time.Second)
		}
		s.mu.Lock()
		s.stopping = true
		s.mu.Unlock()
		grace := 2 * time.Second // stdin closed: time to exit by itself
		select {
		case <-s.booted:
		default: // still in the handshake: nothing to finish gracefully
			grace = 0
		}
		s.stopErr = s.p.Stop(ctx, grace)
		if !agent.WaitFor(ctx, s.done, 2*time.Second) {
			s.stream.Close() // nobody reads Events: stop waiting for them
			<-s.done
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

// Events implements agent.Session.
func (s *session) Events() <-chan agent.Batch { return s.stream.Events() }

// Wait implements agent.Session.
func (s *session) Wait() error {
	<-s.done
	return s.waitErr
}

// PID implements agent.ProcessOwner.
func (s *session) PID() int { return s.p.PID() }

// Package mcpserver is the app's own MCP server (issue 18): agents reach
// it over streamable HTTP on 127.0.0.1 with a bearer token the app grants
// per task session, and get workspace tools — report progress (a status
// line on the task), ask the user (a question card; the call returns the
// answer), create a sub-task on another agent and wait for its result,
// read another task's result and diff, and list the project's tasks.
//
// Built on the official Go SDK (github.com/modelcontextprotocol/go-sdk):
// its streamable HTTP handler, its bearer-token middleware (the token's
// task is the request's user: the tools act on that task) and its typed
// tools.
//
// Tokens are random (32 bytes), kept as SHA-256 hashes, never logged nor
// stored in clear; an agent gets its token in a config file (mode 0600) or
// its environment, never on its command line (see docs/mcp.md).
//
// Agents outlive the app behind relays (issue 15), and they read their MCP
// configuration once, at their start. So the server is stateless (no MCP
// session to lose with the app: each request stands alone, authenticated
// by its token), listens where the previous app listened (Options.StateFile
// keeps the address), and an adopted task's tokens from the previous app
// work again (Adopt; the file keeps their hashes, never a token).
package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Name is the server's name in the agents' MCP configuration: Claude Code
// calls its tools mcp__jean-claude__<tool>.
const Name = "jean-claude"

// Path is the MCP endpoint on the server.
const Path = "/mcp"

// Orchestrator is what the tools need of the session loop
// (*orchestrator.Orchestrator).
type Orchestrator interface {
	Start(ctx context.Context, taskID string) error
	AddProgress(ctx context.Context, taskID, text string) (agent.Message, error)
	AskUser(ctx context.Context, taskID string, req agent.Request) ([][]string, error)
}

// Options configure a Server.
type Options struct {
	DB           *store.DB
	Orchestrator Orchestrator
	// Diff returns a task's work against its base; nil: results carry no diff.
	Diff func(ctx context.Context, taskID string) (TaskDiff, error)
	// Backends are the agent names a sub-task may run on (for the tool's
	// description and validation); nil accepts any name.
	Backends func() []string
	Logger   *slog.Logger
	// Poll is how often a waited-for sub-task's status is read (default 250ms).
	Poll time.Duration
	// StateFile keeps, for the next app, the address this server listens on
	// and each task's token hashes (JSON, mode 0600). "" keeps nothing: a
	// random port, and agents that outlive the app lose the tools.
	StateFile string
}

// Server is the running MCP server.
type Server struct {
	opt  Options
	ln   net.Listener
	http *http.Server
	url  string

	mu      sync.Mutex
	tokens  map[string]string   // sha256(token) hex → task id
	byTask  map[string]string   // task id → its current token hash
	adopted map[string][]string // task id → its hashes from the previous app, valid again (Adopt)
	kept    map[string][]string // task id → its hashes from the previous app, not (yet) valid
	saveMu  sync.Mutex          // one write of the state file at a time
	// lost says why no agent that outlived the previous app can reach
	// this server ("" when those with a kept token can).
	lost string
}

// New listens on 127.0.0.1 (the previous app's port when StateFile names
// one and it is free, else a random one) and serves MCP until Close.
func New(opt Options) (*Server, error) {
	if opt.DB == nil || opt.Orchestrator == nil {
		return nil, errors.New("mcpserver: DB and Orchestrator are required")
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Poll <= 0 {
		opt.Poll = 250 * time.Millisecond
	}
	prev := loadState(opt.StateFile, opt.Logger)
	ln, err := listen(prev.Addr, opt.Logger)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: listen: %w", err)
	}
	s := &Server{opt: opt, ln: ln, url: "http://" + ln.Addr().String() + Path,
		tokens: map[string]string{}, byTask: map[string]string{}, adopted: map[string][]string{}, kept: map[string][]string{}}
	switch {
	case prev.Addr == ln.Addr().String():
		s.kept = prev.Tasks
	case prev.Addr != "":
		s.lost = "the address the previous app's server listened on (" + prev.Addr + ") was taken by another program"
	case prev.unreadable:
		s.lost = "the previous app's server state (" + opt.StateFile + ") was unreadable"
	}
	s.save()
	h := mcp.NewStreamableHTTPHandler(s.serverFor, &mcp.StreamableHTTPOptions{Logger: opt.Logger, Stateless: true})
	mux := http.NewServeMux()
	mux.Handle(Path, auth.RequireBearerToken(s.verify, nil)(h))
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			opt.Logger.Error("mcpserver: serve", "err", err)
		}
	}()
	return s, nil
}

// URL is the MCP endpoint, e.g. http://127.0.0.1:41234/mcp.
func (s *Server) URL() string { return s.url }

// Close stops the server; tool calls in flight are cancelled.
func (s *Server) Close(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		err = s.http.Close()
	}
	return err
}

// Grant returns the server for a session of task taskID with a new token;
// the task's previous token stops working.
func (s *Server) Grant(taskID string) (*agent.MCPServer, error) { return s.grant(taskID, false) }

// Adopt is Grant for a session the app adopts (its agent outlived the
// previous app): the task's tokens from the previous app work again, as
// the agent still holds one, and a new token is returned for what the
// backend hands over anew (e.g. OpenCode's registration). The task's next
// Grant ends them all.
func (s *Server) Adopt(taskID string) (*agent.MCPServer, error) { return s.grant(taskID, true) }

// For is the server for a session of task taskID starting with ctx: Adopt
// when the session adopts an agent that outlived the previous app
// (agent.Adopting), else Grant.
func (s *Server) For(ctx context.Context, taskID string) (*agent.MCPServer, error) {
	return s.grant(taskID, agent.Adopting(ctx))
}

// grant makes a new token for taskID, ending the task's others; adopt
// makes the task's tokens from the previous app valid again beside it.
func (s *Server) grant(taskID string, adopt bool) (*agent.MCPServer, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("mcpserver: token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	h := hashOf(token)
	s.mu.Lock()
	if old, ok := s.byTask[taskID]; ok {
		delete(s.tokens, old)
	}
	for _, old := range s.adopted[taskID] {
		delete(s.tokens, old)
	}
	delete(s.adopted, taskID)
	kept := s.kept[taskID]
	delete(s.kept, taskID)
	s.tokens[h], s.byTask[taskID] = taskID, h
	if adopt {
		for _, old := range kept {
			s.tokens[old] = taskID
		}
		s.adopted[taskID] = kept
	}
	s.mu.Unlock()
	s.save()
	m := &agent.MCPServer{Name: Name, URL: s.url, Token: token}
	if adopt && len(kept) == 0 {
		m.Unreachable = s.lost
		if m.Unreachable == "" {
			m.Unreachable = "the previous app kept no token of its server for this task"
		}
		s.opt.Logger.Warn("mcpserver: an adopted task's agent holds no token of this server: its Jean-Claude tools fail until its next session", "task", taskID, "why", m.Unreachable)
	}
	return m, nil
}

// ForgetKept drops the previous app's tokens of the tasks not adopted
// (call it once the adoption at startup is done).
func (s *Server) ForgetKept() {
	s.mu.Lock()
	clear(s.kept)
	s.mu.Unlock()
	s.save()
}

// Revoke ends every token of task taskID (its session's, those adopted
// from the previous app and those kept for an adoption) and forgets the
// task in the state file: a request with one of them is refused from now
// on, in this app and the next. The app calls it when a task is deleted.
func (s *Server) Revoke(taskID string) {
	s.mu.Lock()
	if h, ok := s.byTask[taskID]; ok {
		delete(s.tokens, h)
		delete(s.byTask, taskID)
	}
	for _, h := range s.adopted[taskID] {
		delete(s.tokens, h)
	}
	delete(s.adopted, taskID)
	delete(s.kept, taskID)
	s.mu.Unlock()
	s.save()
}

func hashOf(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// verify maps a bearer token to its task (the session's user id).
func (s *Server) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	// Only hashes are kept; the lookup is by the hash, so its timing says
	// nothing about the token.
	s.mu.Lock()
	taskID, ok := s.tokens[hashOf(token)]
	s.mu.Unlock()
	if ok {
		// Tokens live as long as the task's session; the SDK's
		// middleware wants an expiry, so it is a day away.
		return &auth.TokenInfo{UserID: taskID, Expiration: time.Now().Add(24 * time.Hour)}, nil
	}
	return nil, auth.ErrInvalidToken
}

// serverFor builds the MCP server of the task whose token opened the
// session: its tools act on that task.
func (s *Server) serverFor(r *http.Request) *mcp.Server {
	ti := auth.TokenInfoFromContext(r.Context())
	if ti == nil {
		return nil
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Jean-Claude", Version: "1"},
		&mcp.ServerOptions{Logger: s.opt.Logger, Instructions: instructions})
	s.addTools(srv, ti.UserID)
	return srv
}

const instructions = "Tools of Jean-Claude, the app running this task: report progress to the user, " +
	"ask the user a question and wait for the answer, delegate a sub-task to another agent and wait for its result, " +
	"read another task's result and diff, list the project's tasks."

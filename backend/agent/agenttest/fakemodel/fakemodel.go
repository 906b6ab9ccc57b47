// Package fakemodel is a scripted model server for driving the real agent
// CLIs in tests: it speaks just enough of
//
//   - the Anthropic Messages API (POST /v1/messages, streamed as SSE, and
//     /v1/messages/count_tokens) for Claude Code and claude-code-acp
//     (ANTHROPIC_BASE_URL=URL());
//   - the OpenAI chat-completions API (POST /v1/chat/completions, SSE, and
//     GET /v1/models) for OpenCode's openai-compatible provider;
//   - the OpenAI Responses API (POST /v1/responses, SSE) for Codex and
//     codex-acp (a model provider with wire_api = "responses" and
//     base_url = OpenAIBaseURL());
//   - the Gemini API (POST /v1beta/models/{model}:streamGenerateContent,
//     :generateContent, :countTokens) for Gemini CLI
//     (GOOGLE_GEMINI_BASE_URL=URL()); JSON-schema side requests (routing,
//     next-speaker checks) get a value of the schema.
//
// It listens on 127.0.0.1 only.
//
// # Scripts
//
// A Script is a list of Turns; a Turn is what the model answers to one
// request: optional thinking, text, and tool calls given abstractly (Write a
// file, run a Shell command) that the server maps onto the tools the
// calling CLI offers (Claude Code: Write, Bash; OpenCode: write, bash;
// Codex: apply_patch, exec_command; Gemini CLI: write_file,
// run_shell_command).
// Every tool-call id the server makes encodes its turn
// ("toolu_fake_<turn>_<n>", "call_fake_<turn>_<n>"), so the turn to play is
// found statelessly from the conversation the CLI sends back:
//
//   - walking back from the last message, a tool result whose id is ours
//     selects the turn after that id's turn (Gemini CLI may drop ids: then
//     the model's tool-call turns since the prompt are counted);
//   - a message carrying a new user text wins over tool results in it
//     (Claude Code sends a denied tool's result with the next prompt);
//   - a real user text (not only <system-reminder> blocks) starts turn 0 of
//     the script named by a "[scenario:NAME]" tag in that text (the default
//     script echoes the text when there is no tag or no such script);
//   - past the script's last turn the model says "Nothing more to do.".
//
// Requests that offer no tools (titles, summaries, side questions) get a
// short text answer and never advance a script. A Turn with Slow set
// streams "tick N. " text every Slow until the client goes away or
// SlowFor elapsed: for stop/interrupt tests.
//
// Every request is recorded (Requests) with the scenario and turn it
// played, so tests can assert what the CLI asked for.
package fakemodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ToolCall is an abstract tool call of a Turn. Exactly one of Write or
// Shell is set.
type ToolCall struct {
	// Write creates the file at Path (absolute, or relative to the
	// working directory the CLI's system prompt names) with Content.
	Write *WriteCall
	// Shell runs Command.
	Shell *ShellCall
	// Named calls a tool by its exact name with Input, on every API (an
	// MCP tool: Claude Code's mcp__<server>__<tool>, ...).
	Named *NamedCall
}

// NamedCall is a call of one named tool.
type NamedCall struct {
	Name  string
	Input map[string]any
}

// Named returns a ToolCall of the tool name with input.
func Named(name string, input map[string]any) ToolCall {
	return ToolCall{Named: &NamedCall{Name: name, Input: input}}
}

// WriteCall writes a file.
type WriteCall struct{ Path, Content string }

// ShellCall runs a shell command.
type ShellCall struct{ Command, Description string }

// Write returns a ToolCall writing content to path.
func Write(path, content string) ToolCall {
	return ToolCall{Write: &WriteCall{Path: path, Content: content}}
}

// Shell returns a ToolCall running command.
func Shell(command, description string) ToolCall {
	return ToolCall{Shell: &ShellCall{Command: command, Description: description}}
}

// Turn is one model answer.
type Turn struct {
	Thinking string
	Text     string
	Tools    []ToolCall
	// Slow, when set, streams "tick N. " every Slow after Text until the
	// client disconnects or SlowFor (default 60 s) elapsed.
	Slow    time.Duration
	SlowFor time.Duration
}

// Script is the turns of one scenario.
type Script []Turn

// Request is one recorded model call.
type Request struct {
	API      string // "anthropic" | "openai" | "responses" | "gemini"
	Path     string
	Model    string
	Scenario string // "" for side requests (no tools offered)
	Turn     int
	Tools    []string // tool names offered
	Stream   bool
	At       time.Time
	// Body is the request body (only with Options.KeepBodies).
	Body json.RawMessage
}

// Server is a running fake model server.
type Server struct {
	scripts map[string]Script
	ln      net.Listener
	srv     *http.Server
	// ChunkDelay is slept between SSE events (0: none).
	chunkDelay time.Duration
	keepBodies bool

	mu   sync.Mutex
	reqs []Request
}

// Options configure a Server.
type Options struct {
	// Scripts by scenario name (the "[scenario:NAME]" tag).
	Scripts map[string]Script
	// ChunkDelay is slept between SSE events.
	ChunkDelay time.Duration
	// KeepBodies records each request's body in Request.Body.
	KeepBodies bool
}

// Start listens on 127.0.0.1 (a free port) and serves until Close.
func Start(opt Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakemodel: listen: %w", err)
	}
	s := &Server{scripts: opt.Scripts, ln: ln, chunkDelay: opt.ChunkDelay, keepBodies: opt.KeepBodies}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 1234})
	})
	mux.HandleFunc("POST /v1/messages", s.anthropic)
	mux.HandleFunc("POST /v1/chat/completions", s.openaiChat)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("POST /v1/responses", s.responses)
	mux.HandleFunc("POST /v1beta/models/{call}", s.gemini)
	mux.HandleFunc("POST /v1/models/{call}", s.gemini)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]any{"type": "error", "error": map[string]any{
			"type": "not_found_error", "message": "fakemodel: no route " + r.Method + " " + r.URL.Path}})
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the server's base URL ("http://127.0.0.1:PORT"): Claude Code's
// ANTHROPIC_BASE_URL.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// OpenAIBaseURL is the base URL of the OpenAI-compatible API (URL()+"/v1").
func (s *Server) OpenAIBaseURL() string { return s.URL() + "/v1" }

// Close stops the server and ends open streams.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	return err
}

// Requests returns the recorded model calls so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) record(r Request) {
	r.At = time.Now()
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
}

// recordRaw records r with its body when bodies are kept.
func (s *Server) recordRaw(r Request, body json.RawMessage) {
	if s.keepBodies {
		r.Body = body
	}
	s.record(r)
}

// cwdOf finds the working directory a CLI's system prompt names.
func cwdOf(raw []byte) string {
	if m := cwdRE.FindSubmatch(raw); m != nil {
		return string(m[1])
	}
	return ""
}

var (
	tagRE    = regexp.MustCompile(`\[scenario:([A-Za-z0-9_-]+)\]`)
	ourIDRE  = regexp.MustCompile(`^(?:toolu|call)_fake_(\d+)_`)
	cwdRE    = regexp.MustCompile(`(?:Primary working directory|Working directory): *([^\s"\\<]+)`)
	reminder = "<system-reminder>"
)

// position is where a conversation stands: the scenario and the turn to
// play, plus the last real user text (for the echo script).
type position struct {
	scenario string
	turn     int
	text     string
}

// pick returns the turn to play for pos.
func (s *Server) pick(pos position) Turn {
	sc, ok := s.scripts[pos.scenario]
	if !ok {
		if pos.turn == 0 {
			return Turn{Text: "You said: " + strings.TrimSpace(pos.text)}
		}
		return Turn{Text: "Nothing more to do."}
	}
	if pos.turn >= len(sc) {
		return Turn{Text: "Nothing more to do."}
	}
	return sc[pos.turn]
}

func userPosition(text string) position {
	p := position{scenario: "default", text: text}
	// The last tag wins: a CLI may merge an unanswered prompt (a stopped
	// turn) with the next one into one message.
	if m := tagRE.FindAllStringSubmatch(text, -1); m != nil {
		p.scenario = m[len(m)-1][1]
	}
	return p
}

func turnOf(id string) (int, bool) {
	m := ourIDRE.FindStringSubmatch(id)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	data, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"type": "error", "error": map[string]any{
			"type": "invalid_request_error", "message": "fakemodel: bad JSON body: " + err.Error()}})
		return false
	}
	return true
}

// sse writes server-sent events and flushes each.
type sse struct {
	w     http.ResponseWriter
	f     http.Flusher
	ctx   context.Context
	delay time.Duration
}

func newSSE(w http.ResponseWriter, r *http.Request, delay time.Duration) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f, ctx: r.Context(), delay: delay}
}

// send writes one event (event may be empty) and reports whether the
// client is still there.
func (e *sse) send(event string, data any) bool {
	var b []byte
	switch d := data.(type) {
	case string:
		b = []byte(d)
	default:
		b, _ = json.Marshal(d)
	}
	var sb strings.Builder
	if event != "" {
		sb.WriteString("event: " + event + "\n")
	}
	sb.WriteString("data: ")
	sb.Write(b)
	sb.WriteString("\n\n")
	if _, err := io.WriteString(e.w, sb.String()); err != nil {
		return false
	}
	if e.f != nil {
		e.f.Flush()
	}
	if e.delay > 0 {
		return e.sleep(e.delay)
	}
	return e.ctx.Err() == nil
}

func (e *sse) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-e.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// pieces splits s into chunks of at most n bytes (at rune boundaries).
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i > 0 && !utf8Start(s[i]) {
			i--
		}
		if i == 0 {
			i = n
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// slowTicks streams ticks through emit until the client leaves or the
// turn's SlowFor elapsed.
func slowTicks(e *sse, t Turn, emit func(text string) bool) bool {
	if t.Slow <= 0 {
		return true
	}
	dur := t.SlowFor
	if dur <= 0 {
		dur = 60 * time.Second
	}
	end := time.Now().Add(dur)
	for i := 0; time.Now().Before(end); i++ {
		if !emit(fmt.Sprintf("tick %d. ", i)) || !e.sleep(t.Slow) {
			return false
		}
	}
	return true
}

func resolve(path, cwd string) string {
	if strings.HasPrefix(path, "/") || cwd == "" {
		return path
	}
	return strings.TrimRight(cwd, "/") + "/" + path
}

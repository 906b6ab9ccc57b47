// Command fakeclaude behaves like the `claude` CLI in bidirectional
// stream-json mode, for process-level tests: it answers control requests,
// replays a recording's stdout one turn per user message, and waits for the
// host's answer to every can_use_tool request. See package agenttest for
// its environment variables.
package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type config struct {
	script     string
	crashAfter int
	lineDelay  time.Duration
	hang       bool
	repeat     int
	shape      string // FAKE_CLAUDE_REPEAT_SHAPE
	stamp      bool   // FAKE_CLAUDE_STAMP: repeat text lines carry their write time
	spawnChild bool
	stubborn   bool
	argsFile   string
	mcp        string // FAKE_CLAUDE_MCP_PROGRESS: report it through the app's MCP server
	mcpWhen    string // FAKE_CLAUDE_MCP_WHEN: each turn whose prompt holds it reports (else the first turn)
}

func main() {
	cfg := config{
		script:     os.Getenv("FAKE_CLAUDE_SCRIPT"),
		hang:       os.Getenv("FAKE_CLAUDE_HANG") == "1",
		spawnChild: os.Getenv("FAKE_CLAUDE_SPAWN_CHILD") == "1",
		stubborn:   os.Getenv("FAKE_CLAUDE_STUBBORN") == "1",
		argsFile:   os.Getenv("FAKE_CLAUDE_ARGS_FILE"),
		mcp:        os.Getenv("FAKE_CLAUDE_MCP_PROGRESS"),
		mcpWhen:    os.Getenv("FAKE_CLAUDE_MCP_WHEN"),
		stamp:      os.Getenv("FAKE_CLAUDE_STAMP") == "1",
	}
	cfg.crashAfter, _ = strconv.Atoi(os.Getenv("FAKE_CLAUDE_CRASH_AFTER"))
	cfg.repeat, _ = strconv.Atoi(os.Getenv("FAKE_CLAUDE_REPEAT"))
	if cfg.mcp != "" {
		loadMCPConfig() // at the start, as Claude Code reads --mcp-config
	}
	cfg.shape = os.Getenv("FAKE_CLAUDE_REPEAT_SHAPE")
	if d := os.Getenv("FAKE_CLAUDE_LINE_DELAY"); d != "" {
		v, err := time.ParseDuration(d)
		if err != nil {
			fatal(2, "FAKE_CLAUDE_LINE_DELAY: %v", err)
		}
		cfg.lineDelay = v
	}
	if cfg.argsFile != "" {
		wd, _ := os.Getwd()
		b, _ := json.Marshal(map[string]any{
			"args": os.Args[1:],
			"cwd":  wd,
			"env": map[string]string{
				"IS_SANDBOX": os.Getenv("IS_SANDBOX"),
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": os.Getenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"),
			},
		})
		if err := os.WriteFile(cfg.argsFile, b, 0o644); err != nil {
			fatal(2, "args file: %v", err)
		}
	}
	mode := "default"
	args := strings.Join(os.Args[1:], " ")
	if !strings.Contains(args, "--input-format stream-json") || !strings.Contains(args, "--output-format stream-json") {
		fatal(2, "fakeclaude: only the bidirectional stream-json mode is faked (got %q)", args)
	}
	for i, a := range os.Args {
		if a == "--permission-mode" && i+1 < len(os.Args) {
			mode = os.Args[i+1]
		}
	}
	if cfg.stubborn {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	}
	if cfg.spawnChild {
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			fatal(2, "spawn child: %v", err)
		}
		fmt.Fprintf(os.Stderr, "fakeclaude: child pid %d\n", c.Process.Pid)
	}
	f := &fake{cfg: cfg, mode: mode, out: bufio.NewWriterSize(os.Stdout, 1<<16), session: fmt.Sprintf("fake-session-%d", os.Getpid())}
	if p := os.Getenv("FAKE_CLAUDE_OUT_LOG"); p != "" {
		f.outLog, _ = os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	if cfg.script != "" {
		b, err := os.ReadFile(cfg.script)
		if err != nil {
			fatal(2, "FAKE_CLAUDE_SCRIPT: %v", err)
		}
		f.turns, f.session = splitTurns(b, f.session)
	}
	f.run()
}

func fatal(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(code)
}

// splitTurns cuts a recording into turns, each ending with its result
// line. The recording's control_response lines (answers to the recording
// driver) are dropped: the fake answers control requests itself.
func splitTurns(b []byte, session string) ([][][]byte, string) {
	var turns [][][]byte
	var cur [][]byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var h struct {
			Type      string `json:"type"`
			SessionID string `json:"session_id"`
		}
		_ = json.Unmarshal(line, &h)
		if h.Type == "control_response" {
			continue
		}
		if h.SessionID != "" && strings.HasPrefix(session, "fake-session-") {
			session = h.SessionID
		}
		cur = append(cur, line)
		if h.Type == "result" {
			turns = append(turns, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		turns = append(turns, cur)
	}
	return turns, session
}

type fake struct {
	cfg     config
	mode    string
	model   string
	out     *bufio.Writer
	outLog  *os.File
	written int
	session string
	turns   [][][]byte
	next    int // next turn
	// neverAsks: the queued turn has no can_use_tool request (the repeat
	// turns), so step need not look for one in every line (that search was
	// a third of the fake's CPU in benchmarks).
	neverAsks bool
	turnNo    int // turns started
	seq       int // generated-line counter

	queue       [][]byte // lines of the active turn still to write
	waitingReq  string   // can_use_tool request awaiting the host's answer
	waitingTool string
	hanging     bool
	pending     [][]byte // user turns received while a turn is active
}

func (f *fake) run() {
	in := make(chan []byte, 16)
	go func() {
		var log *os.File
		if p := os.Getenv("FAKE_CLAUDE_STDIN_LOG"); p != "" {
			var err error
			if log, err = os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
				fatal(2, "FAKE_CLAUDE_STDIN_LOG: %v", err)
			}
		}
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if log != nil {
				log.Write(append(bytes.Clone(sc.Bytes()), '\n'))
			}
			in <- bytes.Clone(sc.Bytes())
		}
		close(in)
	}()
	for {
		if f.active() && f.waitingReq == "" && !f.hanging {
			var delay <-chan time.Time
			if f.cfg.lineDelay > 0 {
				delay = time.After(f.cfg.lineDelay)
			}
			select {
			case m, ok := <-in:
				if !ok {
					in = nil // EOF: finish the turn, then exit
					continue
				}
				f.handle(m)
				continue
			default:
			}
			if delay != nil {
				select {
				case m, ok := <-in:
					if !ok {
						in = nil
						continue
					}
					f.handle(m)
					continue
				case <-delay:
				}
			}
			f.step()
			continue
		}
		if !f.active() && len(f.pending) > 0 {
			p := f.pending[0]
			f.pending = f.pending[1:]
			f.startTurn(p)
			continue
		}
		if in == nil {
			if f.cfg.stubborn {
				for {
					time.Sleep(time.Hour) // ignore EOF; only SIGKILL ends it
				}
			}
			f.exit() // stdin closed and nothing left that can run
		}
		m, ok := <-in
		if !ok {
			in = nil
			continue
		}
		f.handle(m)
	}
}

func (f *fake) active() bool { return len(f.queue) > 0 || f.waitingReq != "" || f.hanging }

func (f *fake) exit() {
	f.out.Flush()
	os.Exit(0)
}

// emit writes one stdout line. Lines of a turn that follow at once are
// flushed together (the reader sees the same lines, in bigger reads);
// everything else is flushed immediately.
func (f *fake) emit(line []byte) {
	if f.cfg.stamp {
		stampLine(line)
	}
	if f.outLog != nil { // its own record of what it wrote (relay tests compare it with what was stored)
		f.outLog.Write(append(line[:len(line):len(line)], '\n'))
	}
	f.out.Write(line)
	f.out.WriteByte('\n')
	f.written++
	if f.cfg.crashAfter > 0 && f.written >= f.cfg.crashAfter {
		f.out.Flush()
		fmt.Fprintf(os.Stderr, "fakeclaude: simulated crash after %d lines\n", f.written)
		os.Exit(1)
	}
	if len(f.queue) == 0 || f.waitingReq != "" || f.cfg.lineDelay > 0 || f.hanging {
		f.out.Flush()
	}
}

// stampPlaceholder is where a repeat text line gets its write time
// (FAKE_CLAUDE_STAMP): "t=" and 19 digits of Unix nanoseconds.
const stampPlaceholder = "t=0000000000000000000"

// stampLine writes the time now into line's placeholder, if it has one.
func stampLine(line []byte) {
	if i := bytes.Index(line, []byte(stampPlaceholder)); i >= 0 {
		ns := strconv.FormatInt(time.Now().UnixNano(), 10)
		copy(line[i+len(stampPlaceholder)-len(ns):], ns)
	}
}

func (f *fake) emitJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fatal(2, "marshal: %v", err)
	}
	f.emit(b)
}

// step writes the next line of the active turn.
func (f *fake) step() {
	line := f.queue[0]
	f.queue = f.queue[1:]
	if f.neverAsks || !bytes.Contains(line, []byte(`"can_use_tool"`)) {
		f.emit(line)
		return
	}
	var h struct {
		Type      string `json:"type"`
		RequestID string `json:"request_id"`
		Request   struct {
			Subtype   string `json:"subtype"`
			ToolUseID string `json:"tool_use_id"`
		} `json:"request"`
	}
	_ = json.Unmarshal(line, &h)
	if h.Type == "control_request" && h.Request.Subtype == "can_use_tool" {
		f.waitingReq, f.waitingTool = h.RequestID, h.Request.ToolUseID
	}
	f.emit(line)
}

type message struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  struct {
		Subtype   string `json:"subtype"`
		RequestID string `json:"request_id"`
		Response  struct {
			Behavior  string `json:"behavior"`
			Message   string `json:"message"`
			Interrupt bool   `json:"interrupt"`
		} `json:"response"`
	} `json:"response"`
}

func (f *fake) handle(line []byte) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		fmt.Fprintf(os.Stderr, "fakeclaude: bad stdin line: %v\n", err)
		return
	}
	switch m.Type {
	case "user":
		if f.active() {
			f.pending = append(f.pending, line)
			return
		}
		f.startTurn(line)
	case "control_request":
		f.controlRequest(m)
	case "control_response":
		f.controlResponse(m)
	default:
		fmt.Fprintf(os.Stderr, "fakeclaude: unexpected stdin type %q\n", m.Type)
	}
}

func (f *fake) respond(id string, resp any) {
	f.emitJSON(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": resp}})
}

func (f *fake) controlRequest(m message) {
	var r struct {
		Subtype string `json:"subtype"`
		Mode    string `json:"mode"`
		Model   string `json:"model"`
	}
	_ = json.Unmarshal(m.Request, &r)
	switch r.Subtype {
	case "initialize":
		f.respond(m.RequestID, map[string]any{
			"commands": []any{}, "agents": []any{}, "output_style": "default",
			"models":                  []any{map[string]any{"value": "default", "displayName": "Default"}},
			"account":                 map[string]any{},
			"pid":                     os.Getpid(),
			"current_permission_mode": f.mode,
		})
	case "interrupt":
		f.respond(m.RequestID, map[string]any{"still_queued": []any{}})
		if f.active() && !f.cfg.stubborn {
			f.queue, f.waitingReq, f.hanging = nil, "", false
			f.emitJSON(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "[Request interrupted by user]"}}},
				"parent_tool_use_id": nil, "session_id": f.session, "uuid": f.uuid()})
			f.emit(f.result(true))
		}
	case "set_permission_mode":
		f.mode = r.Mode
		f.respond(m.RequestID, map[string]any{"mode": r.Mode})
		f.emitJSON(map[string]any{"type": "system", "subtype": "status", "status": nil, "permissionMode": r.Mode, "uuid": f.uuid(), "session_id": f.session})
	case "set_model":
		f.model = r.Model
		f.respond(m.RequestID, map[string]any{"model": r.Model})
	case "mcp_status":
		f.respond(m.RequestID, map[string]any{"mcpServers": []any{}})
	default:
		f.emitJSON(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "error", "request_id": m.RequestID, "error": "Unsupported control request subtype: " + r.Subtype}})
	}
}

// controlResponse takes the host's answer to the awaited can_use_tool.
func (f *fake) controlResponse(m message) {
	if m.Response.RequestID != f.waitingReq || f.waitingReq == "" {
		fmt.Fprintf(os.Stderr, "fakeclaude: answer to unknown request %q\n", m.Response.RequestID)
		return
	}
	tool := f.waitingTool
	f.waitingReq, f.waitingTool = "", ""
	if m.Response.Response.Behavior != "deny" {
		return
	}
	// The deny branch: the recording's tool_result for this tool becomes
	// an error (unless the recording already is a deny recording).
	msg := m.Response.Response.Message
	for i, line := range f.queue {
		if !bytes.Contains(line, []byte(`"tool_use_id":"`+tool+`"`)) || !bytes.Contains(line, []byte(`"tool_result"`)) {
			continue
		}
		if !bytes.Contains(line, []byte(`"is_error":true`)) {
			f.queue[i] = f.toolError(tool, msg)
		}
		if m.Response.Response.Interrupt {
			f.queue = append(f.queue[:i+1:i+1], f.result(true))
		}
		return
	}
}

func (f *fake) toolError(tool, msg string) []byte {
	b, _ := json.Marshal(map[string]any{
		"type":               "user",
		"message":            map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "content": msg, "is_error": true, "tool_use_id": tool}}},
		"parent_tool_use_id": nil, "session_id": f.session, "uuid": f.uuid(),
		"tool_use_result":  "Error: " + msg,
		"tool_result_meta": []any{map[string]any{"id": tool, "permission_decision": map[string]any{"decision": "reject", "source": "user_reject"}}},
	})
	return b
}

func (f *fake) startTurn(userLine []byte) {
	f.turnNo++
	f.neverAsks = false
	switch {
	case f.cfg.hang:
		f.emit(f.initLine())
		f.hanging = true
	case f.cfg.repeat > 0:
		f.queue = f.repeatTurn(f.cfg.repeat)
		f.neverAsks = true
	case f.cfg.mcp != "" && f.mcpCalls(userLine):
		f.next++
		f.queue = f.mcpTurn(f.cfg.mcp)
	case f.next < len(f.turns):
		f.queue = append([][]byte(nil), f.turns[f.next]...)
		f.next++
	default:
		var u struct {
			Message struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"message"`
		}
		_ = json.Unmarshal(userLine, &u)
		text := ""
		if len(u.Message.Content) > 0 {
			text = u.Message.Content[0].Text
		}
		f.queue = [][]byte{f.initLine(), f.assistantText("msg_fake_"+f.uuid(), "You said: "+text), f.result(false)}
	}
}

// mcpCalls tells whether the turn of userLine calls report_progress.
func (f *fake) mcpCalls(userLine []byte) bool {
	if f.cfg.mcpWhen != "" {
		return bytes.Contains(userLine, []byte(f.cfg.mcpWhen))
	}
	return f.turnNo == 1
}

func (f *fake) uuid() string {
	f.seq++
	return fmt.Sprintf("00000000-fake-4000-8000-%012d", f.seq)
}

func (f *fake) initLine() []byte {
	b, _ := json.Marshal(map[string]any{"type": "system", "subtype": "init", "cwd": ".", "session_id": f.session,
		"tools": []string{"Bash", "Read", "Write"}, "model": "claude-fake", "permissionMode": f.mode, "uuid": f.uuid(), "claude_code_version": "fake"})
	return b
}

func (f *fake) assistantText(id, text string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"id": id, "type": "message", "role": "assistant", "model": "claude-fake",
		"content": []any{map[string]any{"type": "text", "text": text}}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}},
		"parent_tool_use_id": nil, "session_id": f.session, "uuid": f.uuid()})
	return b
}

// repeatTurn is n synthetic lines cycling through assistant text, an
// assistant tool_use and its user tool_result, then a result.
func (f *fake) repeatTurn(n int) [][]byte {
	if f.cfg.shape == "recorded" {
		return f.recordedRepeatTurn(n)
	}
	out := make([][]byte, 0, n+2)
	out = append(out, f.initLine())
	sess, _ := json.Marshal(f.session)
	stamp := ""
	if f.cfg.stamp {
		stamp = " at " + stampPlaceholder
	}
	// Appended into one arena, not formatted line by line: the fake must
	// stay much faster than the host it benchmarks.
	var arena []byte
	for i := 0; i < n; i++ {
		if cap(arena)-len(arena) < 1024 { // a line is under 512 bytes
			arena = make([]byte, 0, 1<<20)
		}
		from := len(arena)
		arena = f.appendRepeatLine(arena, i, sess, stamp)
		out = append(out, arena[from:len(arena):len(arena)])
	}
	f.next++
	return append(out, f.result(false))
}

// appendRepeatLine appends line i of a synthetic repeat turn: assistant
// text, an assistant tool_use, its user tool_result, by turns.
func (f *fake) appendRepeatLine(b []byte, i int, sess []byte, stamp string) []byte {
	k := i / 3
	switch i % 3 {
	case 0:
		b = appendRepID(append(b, `{"type":"assistant","message":{"id":"`...), "msg_rep_", f.next, k)
		b = strconv.AppendInt(append(b, `","type":"message","role":"assistant","model":"claude-fake","content":[{"type":"text","text":"Step `...), int64(i), 10)
		b = append(append(b, stamp...), `: looking at the files."}],"usage":{"input_tokens":10,"output_tokens":5}},"parent_tool_use_id":null,"session_id":`...)
	case 1:
		b = appendRepID(append(b, `{"type":"assistant","message":{"id":"`...), "msg_rep_", f.next, k)
		b = appendRepID(append(b, `","type":"message","role":"assistant","model":"claude-fake","content":[{"type":"tool_use","id":"`...), "toolu_rep_", f.next, k)
		b = append(b, `","name":"Bash","input":{"command":"ls","description":"List files"}}],"usage":{"input_tokens":10,"output_tokens":5}},"parent_tool_use_id":null,"session_id":`...)
	case 2:
		b = appendRepID(append(b, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"`...), "toolu_rep_", f.next, k)
		b = append(b, `","content":"a.txt\nb.txt","is_error":false}]},"parent_tool_use_id":null,"session_id":`...)
	}
	b = append(f.appendUUID(append(append(b, sess...), `,"uuid":"`...)), '"')
	if i%3 == 2 {
		b = append(b, `,"tool_use_result":{"stdout":"a.txt\nb.txt","stderr":"","interrupted":false}`...)
	}
	return append(b, '}')
}

// appendRepID appends prefix, next, "_" and k.
func appendRepID(b []byte, prefix string, next, k int) []byte {
	b = strconv.AppendInt(append(b, prefix...), int64(next), 10)
	return strconv.AppendInt(append(b, '_'), int64(k), 10)
}

// appendUUID appends the next uuid (what uuid returns).
func (f *fake) appendUUID(b []byte) []byte {
	f.seq++
	digits := strconv.Itoa(f.seq)
	b = append(b, "00000000-fake-4000-8000-"...)
	for range 12 - len(digits) {
		b = append(b, '0')
	}
	return append(b, digits...)
}

func (f *fake) result(interrupted bool) []byte {
	v := map[string]any{"type": "result", "subtype": "success", "is_error": false, "duration_ms": 10, "duration_api_ms": 5, "num_turns": 1,
		"result": "done", "session_id": f.session, "total_cost_usd": 0.001,
		"usage":              map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
		"modelUsage":         map[string]any{"claude-fake": map[string]any{"inputTokens": 10, "outputTokens": 5, "costUSD": 0.001, "contextWindow": 200000}},
		"permission_denials": []any{}, "terminal_reason": "completed", "uuid": f.uuid()}
	if interrupted {
		v["subtype"], v["is_error"], v["terminal_reason"] = "error_during_execution", true, "aborted_streaming"
		v["errors"] = []string{"interrupted"}
		delete(v, "result")
	}
	b, _ := json.Marshal(v)
	return b
}

// partialTurn is a real Claude Code 2.1.330 turn recorded with
// --include-partial-messages (thinking, text and a Write tool call streamed
// as stream_event deltas, the tool's result, a closing text): the shape the
// app now reads from Claude.
//
//go:embed partial_turn.jsonl
var partialTurn []byte

// recordedSession is the session id written in partialTurn.
const recordedSession = "768ba2cb-7d9c-4a7d-9501-bf05dee83a29"

// recordedRepeatTurn is n lines cycling through partialTurn's lines between
// its init and its result, each cycle's message, tool and line ids made
// unique, then a result: for benchmarks of the shape a real turn has.
//
// Each line is filled from a template into one arena, not replaced and
// allocated line by line: the fake must stay much faster than the host it
// benchmarks (four ReplaceAll a line cost it ~4 µs a line, a fifth of the
// machine's CPU in BenchmarkParallelTasks; docs/streaming.md, twenty-first
// pass).
func (f *fake) recordedRepeatTurn(n int) [][]byte {
	tmpl := recordedTemplate()
	out := make([][]byte, 0, n+2)
	out = append(out, f.initLine())
	var arena []byte
	var vals [holeKinds][]byte
	vals[holeSession] = []byte(f.session)
	for i := 0; i < n; i++ {
		k := i / len(tmpl)
		if i%len(tmpl) == 0 {
			vals[holeMsg] = fmt.Appendf(vals[holeMsg][:0:0], "msg_fake_%d_%d_", f.next, k)
			vals[holeTool] = fmt.Appendf(vals[holeTool][:0:0], "toolu_fake_%d_%d_", f.next, k)
			vals[holeUUID] = fmt.Appendf(vals[holeUUID][:0:0], `"uuid":"r%d-%d-`, f.next, k)
		}
		t := tmpl[i%len(tmpl)]
		if size := t.size(&vals); cap(arena)-len(arena) < size {
			arena = make([]byte, 0, max(1<<20, size))
		}
		from := len(arena)
		arena = t.fill(arena, &vals)
		out = append(out, arena[from:len(arena):len(arena)])
	}
	f.next++
	return append(out, f.result(false))
}

// The values a recorded line's template leaves holes for.
const (
	holeSession = iota // the recorded session id
	holeMsg            // "msg_fake_"
	holeTool           // "toolu_fake_"
	holeUUID           // `"uuid":"`
	holeKinds
)

// holePatterns is what each hole replaces in a recorded line.
var holePatterns = [holeKinds][]byte{[]byte(recordedSession), []byte("msg_fake_"), []byte("toolu_fake_"), []byte(`"uuid":"`)}

// lineTemplate is a recorded line cut at its holes: lits[i] then the value
// of holes[i], and lits[len(holes)] last.
type lineTemplate struct {
	lits  [][]byte
	holes []int
}

func (t lineTemplate) size(vals *[holeKinds][]byte) int {
	n := 0
	for _, l := range t.lits {
		n += len(l)
	}
	for _, h := range t.holes {
		n += len(vals[h])
	}
	return n
}

func (t lineTemplate) fill(dst []byte, vals *[holeKinds][]byte) []byte {
	for i, h := range t.holes {
		dst = append(append(dst, t.lits[i]...), vals[h]...)
	}
	return append(dst, t.lits[len(t.holes)]...)
}

// recordedTemplate is partialTurn's lines between its init and its result,
// each cut at its holes (the patterns do not overlap: cutting at the
// leftmost one each time is what replacing each pattern in turn did).
func recordedTemplate() []lineTemplate {
	var out []lineTemplate
	for _, l := range bytes.Split(bytes.TrimSpace(partialTurn), []byte("\n")) {
		if bytes.Contains(l, []byte(`"subtype":"init"`)) || bytes.Contains(l, []byte(`"type":"result"`)) {
			continue
		}
		var t lineTemplate
		for {
			at, kind := -1, 0
			for k, p := range holePatterns {
				if i := bytes.Index(l, p); i >= 0 && (at < 0 || i < at) {
					at, kind = i, k
				}
			}
			if at < 0 {
				break
			}
			t.lits, t.holes = append(t.lits, l[:at]), append(t.holes, kind)
			l = l[at+len(holePatterns[kind]):]
		}
		out = append(out, lineTemplate{lits: append(t.lits, l), holes: t.holes})
	}
	return out
}

package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// fakeSession starts a session of the fake claude with env.
func fakeSession(t *testing.T, env map[string]string, cfg agent.Config, prompt string) (*Session, string) {
	t.Helper()
	bin := agenttest.BuildFakeClaude(t)
	dir := t.TempDir()
	stdinLog := filepath.Join(dir, "stdin.jsonl")
	if env == nil {
		env = map[string]string{}
	}
	env["FAKE_CLAUDE_STDIN_LOG"] = stdinLog
	cfg.Env = env
	if cfg.Cwd == "" {
		cfg.Cwd = dir
	}
	b := New(Options{Binary: bin, GracePeriod: 500 * time.Millisecond, WaitDelay: 500 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := b.Start(ctx, cfg, prompt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Stop(ctx)
	})
	return s.(*Session), stdinLog
}

// collector reads batches until a predicate holds.
type collector struct {
	t       *testing.T
	s       *Session
	batches []agent.Batch
}

func (c *collector) until(pred func(agent.Event) bool) agent.Event {
	c.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case b, ok := <-c.s.Events():
			if !ok {
				c.t.Fatalf("events closed before the expected event; got %d batches", len(c.batches))
			}
			c.batches = append(c.batches, b)
			for _, e := range b.Events {
				if pred(e) {
					return e
				}
			}
		case <-timeout:
			c.t.Fatalf("timed out; got %d batches", len(c.batches))
		}
	}
}

func (c *collector) drain() {
	c.t.Helper()
	for b := range c.s.Events() {
		c.batches = append(c.batches, b)
	}
}

func (c *collector) events() []agent.Event {
	var out []agent.Event
	for _, b := range c.batches {
		out = append(out, b.Events...)
	}
	return out
}

func isType(t agent.EventType) func(agent.Event) bool {
	return func(e agent.Event) bool { return e.Type == t }
}

func stdinLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("stdin line %s: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// controlResponses returns the "response" bodies of the control_responses the host sent.
func controlResponses(t *testing.T, path string) []map[string]any {
	var out []map[string]any
	for _, m := range stdinLines(t, path) {
		if m["type"] == "control_response" {
			r := m["response"].(map[string]any)
			out = append(out, r["response"].(map[string]any))
		}
	}
	return out
}

func TestProcessPermissionAllow(t *testing.T) {
	env := map[string]string{"FAKE_CLAUDE_SCRIPT": agenttest.ClaudeRecording(t, "bidi_perm_allow")}
	s, stdinLog := fakeSession(t, env, agent.Config{Mode: agent.ModeAsk}, "Create perm_test.txt using touch.")
	c := &collector{t: t, s: s}
	req := c.until(isType(agent.EventPermissionRequest))
	if req.Request.ToolName != "Bash" {
		t.Fatalf("request: %+v", req.Request)
	}
	if err := s.RespondToPermission(context.Background(), req.Request.RequestID, agent.PermissionResponse{Behavior: agent.Allow}); err != nil {
		t.Fatal(err)
	}
	if err := s.RespondToPermission(context.Background(), req.Request.RequestID, agent.PermissionResponse{Behavior: agent.Allow}); !errors.Is(err, agent.ErrUnknownRequest) {
		t.Errorf("second answer: %v, want ErrUnknownRequest", err)
	}
	done := c.until(isType(agent.EventComplete))
	if done.Result.IsError || done.Result.Text != "Finished the permission scenario." {
		t.Errorf("result: %+v", done.Result)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.drain()
	if err := s.Wait(); err != nil {
		t.Errorf("Wait: %v", err)
	}

	// The prompt is the first message, then the permission, then the result.
	evs := c.events()
	var first *agent.Message
	for _, e := range evs {
		if e.Type == agent.EventMessage {
			first = e.Message
			break
		}
	}
	if first == nil || first.Role != agent.RoleUser || first.Parts[0].Text != "Create perm_test.txt using touch." {
		t.Errorf("first message: %+v", first)
	}
	resps := controlResponses(t, stdinLog)
	if len(resps) != 1 || resps[0]["behavior"] != "allow" || resps[0]["updatedInput"].(map[string]any)["command"] != "touch perm_test.txt" || resps[0]["updatedPermissions"] != nil {
		t.Errorf("control responses sent: %v", resps)
	}
	lines := stdinLines(t, stdinLog)
	if r, _ := lines[0]["request"].(map[string]any); lines[0]["type"] != "control_request" || r["subtype"] != "initialize" {
		t.Errorf("first stdin line is not initialize: %v", lines[0])
	}

	// Live normalization == normalizing the raw frames it delivered.
	var raw [][]byte
	var live []agent.Event
	for _, b := range c.batches {
		if b.Frame == nil {
			continue
		}
		if b.Format != FormatName || b.ReceivedAt.IsZero() {
			t.Errorf("batch: format %q at %v", b.Format, b.ReceivedAt)
		}
		raw = append(raw, b.Frame)
		live = append(live, b.Events...)
	}
	var again []agent.Event
	for ev, err := range agent.Normalize(Format(), bytes.NewReader(bytes.Join(raw, []byte("\n")))) {
		if err != nil {
			t.Fatal(err)
		}
		again = append(again, ev)
	}
	if d := cmp.Diff(eventLines(t, live), eventLines(t, again)); d != "" {
		t.Errorf("live vs normalize (-live +normalize):\n%s", d)
	}
	for i := range live {
		if !bytes.Equal(live[i].Raw, again[i].Raw) {
			t.Errorf("event %d: Raw differs", i)
		}
	}
}

func TestProcessPermissionAlwaysAndDeny(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp agent.PermissionResponse
		want func(map[string]any) bool
		done func(*agent.Result) bool
	}{
		{"always", agent.PermissionResponse{Behavior: agent.Allow, Always: true},
			func(r map[string]any) bool {
				return r["behavior"] == "allow" && len(r["updatedPermissions"].([]any)) == 3
			},
			func(r *agent.Result) bool { return !r.IsError && !r.Interrupted }},
		{"deny", agent.PermissionResponse{Behavior: agent.Deny, Message: "not now"},
			func(r map[string]any) bool {
				return r["behavior"] == "deny" && r["message"] == "not now" && r["interrupt"] == nil
			},
			func(r *agent.Result) bool { return !r.Interrupted }},
		{"deny-interrupt", agent.PermissionResponse{Behavior: agent.Deny, Message: "stop", Interrupt: true},
			func(r map[string]any) bool { return r["behavior"] == "deny" && r["interrupt"] == true },
			func(r *agent.Result) bool { return r.Interrupted }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"FAKE_CLAUDE_SCRIPT": agenttest.ClaudeRecording(t, "bidi_perm_allow")}
			s, stdinLog := fakeSession(t, env, agent.Config{Mode: agent.ModeAsk}, "go")
			c := &collector{t: t, s: s}
			req := c.until(isType(agent.EventPermissionRequest))
			if err := s.RespondToPermission(context.Background(), req.Request.RequestID, tc.resp); err != nil {
				t.Fatal(err)
			}
			done := c.until(isType(agent.EventComplete))
			if !tc.done(done.Result) {
				t.Errorf("result: %+v", done.Result)
			}
			if resps := controlResponses(t, stdinLog); len(resps) != 1 || !tc.want(resps[0]) {
				t.Errorf("sent: %v", resps)
			}
			if tc.resp.Behavior == agent.Deny {
				var denied bool
				for _, e := range c.events() {
					if e.Type == agent.EventMessage && e.Message.Role == agent.RoleUser {
						for _, p := range e.Message.Parts {
							denied = denied || (p.Type == agent.PartToolResult && p.IsError && p.TextContent() == tc.resp.Message)
						}
					}
				}
				if !denied {
					t.Error("no denied tool result")
				}
			}
		})
	}
}

func TestProcessQuestion(t *testing.T) {
	env := map[string]string{"FAKE_CLAUDE_SCRIPT": agenttest.ClaudeRecording(t, "ask_user")}
	s, stdinLog := fakeSession(t, env, agent.Config{Mode: agent.ModeAsk}, "greet me")
	c := &collector{t: t, s: s}
	q := c.until(isType(agent.EventQuestion))
	if q.Request.Question != "Which greeting?" || len(q.Request.Options) != 2 {
		t.Fatalf("question: %+v", q.Request)
	}
	if err := s.RespondToQuestion(context.Background(), "nope", agent.QuestionAnswer{}); !errors.Is(err, agent.ErrUnknownRequest) {
		t.Errorf("unknown id: %v", err)
	}
	if err := s.RespondToQuestion(context.Background(), q.Request.RequestID, agent.QuestionAnswer{Answers: [][]string{{"Hello"}}}); err != nil {
		t.Fatal(err)
	}
	c.until(isType(agent.EventComplete))
	resps := controlResponses(t, stdinLog)
	if len(resps) != 1 {
		t.Fatalf("sent: %v", resps)
	}
	in := resps[0]["updatedInput"].(map[string]any)
	if resps[0]["behavior"] != "allow" || in["answers"].(map[string]any)["Which greeting?"] != "Hello" || len(in["questions"].([]any)) != 1 {
		t.Errorf("answer sent: %v", resps[0])
	}
}

func TestProcessModeModelInterrupt(t *testing.T) {
	s, stdinLog := fakeSession(t, map[string]string{"FAKE_CLAUDE_HANG": "1"}, agent.Config{Mode: agent.ModeAsk}, "wait")
	c := &collector{t: t, s: s}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.SetMode(ctx, agent.ModePlan); err != nil {
		t.Fatal(err)
	}
	mc := c.until(isType(agent.EventModeChange))
	if mc.Mode != agent.ModePlan {
		t.Errorf("mode change: %+v", mc)
	}
	if err := s.SetModel(ctx, "claude-other"); err != nil {
		t.Fatal(err)
	}
	if err := s.Interrupt(ctx); err != nil {
		t.Fatal(err)
	}
	done := c.until(isType(agent.EventComplete))
	if !done.Result.Interrupted {
		t.Errorf("result: %+v", done.Result)
	}
	// Still usable after an interrupt.
	if err := s.SendMessage(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	var subtypes []string
	for _, m := range stdinLines(t, stdinLog) {
		if r, ok := m["request"].(map[string]any); ok {
			subtypes = append(subtypes, r["subtype"].(string))
			if r["subtype"] == "set_permission_mode" && r["mode"] != "plan" {
				t.Errorf("set_permission_mode: %v", r)
			}
		}
	}
	if d := cmp.Diff([]string{"initialize", "set_permission_mode", "set_model", "interrupt"}, subtypes); d != "" {
		t.Errorf("control requests (-want +got):\n%s", d)
	}
}

func TestProcessMissingBinary(t *testing.T) {
	b := New(Options{Binary: filepath.Join(t.TempDir(), "no-such-claude")})
	_, err := b.Start(context.Background(), agent.Config{Cwd: t.TempDir()}, "hi")
	if !errors.Is(err, agent.ErrBinaryNotFound) || !strings.HasPrefix(err.Error(), "Claude Code not found: ") {
		t.Fatalf("err = %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err = New(Options{}).Start(context.Background(), agent.Config{}, "hi")
	if !errors.Is(err, agent.ErrBinaryNotFound) {
		t.Fatalf("PATH lookup: err = %v", err)
	}
}

func TestProcessStopKillsGroup(t *testing.T) {
	env := map[string]string{"FAKE_CLAUDE_HANG": "1", "FAKE_CLAUDE_SPAWN_CHILD": "1"}
	s, _ := fakeSession(t, env, agent.Config{Mode: agent.ModeBypass}, "hang")
	c := &collector{t: t, s: s}
	c.until(isType(agent.EventSessionID))
	pgid := s.PID()
	if err := syscall.Kill(-pgid, 0); err != nil {
		t.Fatalf("group not alive before Stop: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	// Stop returns once Events is closed: draining must end at once.
	c.drain()
	// The killed grandchild may take a moment to be reaped by init.
	var err error
	for range 100 {
		if err = syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			break
		}
		time.Sleep(30 * time.Millisecond)
	}
	if !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d still has processes after Stop: %v", pgid, err)
	}
	if err := s.Wait(); err != nil {
		t.Errorf("Wait after Stop: %v", err)
	}
	if err := s.SendMessage(context.Background(), "late"); !errors.Is(err, agent.ErrSessionClosed) {
		t.Errorf("SendMessage after Stop: %v", err)
	}
}

func TestProcessCrash(t *testing.T) {
	env := map[string]string{"FAKE_CLAUDE_SCRIPT": agenttest.ClaudeRecording(t, "bidi_main_bypass"), "FAKE_CLAUDE_CRASH_AFTER": "4"}
	s, _ := fakeSession(t, env, agent.Config{Mode: agent.ModeBypass}, "go")
	c := &collector{t: t, s: s}
	c.drain()
	err := s.Wait()
	if err == nil || !strings.Contains(err.Error(), "exit status 1") || !strings.Contains(err.Error(), "simulated crash after 4 lines") {
		t.Fatalf("Wait = %v", err)
	}
	// Nothing already received is lost: the prompt + 4 stdout lines.
	frames := 0
	for _, b := range c.batches {
		if b.Frame != nil {
			frames++
		}
	}
	if frames != 5 {
		t.Errorf("%d frames delivered, want 5", frames)
	}
}

func TestProcessArgsAndEnv(t *testing.T) {
	t.Setenv("IS_SANDBOX", "")
	for mode, native := range map[agent.InteractionMode]string{agent.ModeAsk: "default", agent.ModeAcceptEdits: "acceptEdits", agent.ModePlan: "plan", agent.ModeBypass: "bypassPermissions"} {
		t.Run(string(mode), func(t *testing.T) {
			argsFile := filepath.Join(t.TempDir(), "args.json")
			s, _ := fakeSession(t, map[string]string{"FAKE_CLAUDE_ARGS_FILE": argsFile},
				agent.Config{Mode: mode, Model: "claude-x", SessionID: "sess-1"}, "")
			c := &collector{t: t, s: s}
			if err := s.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
			c.drain()
			var got struct {
				Args []string          `json:"args"`
				Env  map[string]string `json:"env"`
			}
			b, err := os.ReadFile(argsFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			want := []string{"--output-format", "stream-json", "--verbose", "--include-partial-messages", "--input-format", "stream-json",
				"--permission-prompt-tool", "stdio", "--permission-mode", native,
				"--settings=" + AskCommandsSettings, // the rule asking before every command, read-only ones too
				"--model=claude-x", "--resume=sess-1"}
			if d := cmp.Diff(want, got.Args); d != "" {
				t.Errorf("args (-want +got):\n%s", d)
			}
			if got.Env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] != "1" {
				t.Errorf("env: %v", got.Env)
			}
			wantSandbox := ""
			if mode == agent.ModeBypass && os.Geteuid() == 0 {
				wantSandbox = "1"
			}
			if got.Env["IS_SANDBOX"] != wantSandbox {
				t.Errorf("IS_SANDBOX = %q, want %q", got.Env["IS_SANDBOX"], wantSandbox)
			}
		})
	}
}

func TestProcessTurnsRepeatAndFallback(t *testing.T) {
	env := map[string]string{"FAKE_CLAUDE_SCRIPT": agenttest.ClaudeRecording(t, "bidi_main_bypass")}
	s, _ := fakeSession(t, env, agent.Config{Mode: agent.ModeBypass}, "first")
	c := &collector{t: t, s: s}
	ctx := context.Background()
	c.until(isType(agent.EventComplete))
	if err := s.SendMessage(ctx, "second"); err != nil {
		t.Fatal(err)
	}
	c.until(isType(agent.EventComplete))
	// The recording has two turns; the third is generated.
	if err := s.SendMessage(ctx, "third"); err != nil {
		t.Fatal(err)
	}
	c.until(isType(agent.EventComplete))
	var said bool
	for _, e := range c.events() {
		said = said || (e.Type == agent.EventMessage && e.Message.Role == agent.RoleAssistant && e.Message.Parts[0].Text == "You said: third")
	}
	if !said {
		t.Error("generated third turn missing")
	}

	env = map[string]string{"FAKE_CLAUDE_REPEAT": "30", "FAKE_CLAUDE_LINE_DELAY": "1ms"}
	s, _ = fakeSession(t, env, agent.Config{Mode: agent.ModeBypass}, "go")
	c = &collector{t: t, s: s}
	c.until(isType(agent.EventComplete))
	frames := 0
	for _, b := range c.batches {
		if b.Frame != nil {
			frames++
		}
	}
	// prompt + initialize's control_response + init + 30 lines + result
	if frames != 34 {
		t.Errorf("%d frames, want 34", frames)
	}
}

// BenchmarkSessionRepeat streams FAKE_CLAUDE_REPEAT=5000 lines per turn
// through a live session: process, pipe, read loop, normalizer, channel.
func BenchmarkSessionRepeat(b *testing.B) {
	bin := agenttest.BuildFakeClaude(b)
	be := New(Options{Binary: bin})
	ctx := context.Background()
	s, err := be.Start(ctx, agent.Config{Cwd: b.TempDir(), Mode: agent.ModeBypass, Env: map[string]string{"FAKE_CLAUDE_REPEAT": "5000"}}, "")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Stop(ctx)
	var bytesIn, events int64
	for b.Loop() {
		if err := s.SendMessage(ctx, "go"); err != nil {
			b.Fatal(err)
		}
	turn:
		for batch := range s.Events() {
			bytesIn += int64(len(batch.Frame)) + 1
			for _, e := range batch.Events {
				events++
				if e.Type == agent.EventComplete {
					break turn
				}
			}
		}
	}
	b.ReportMetric(float64(bytesIn)/b.Elapsed().Seconds()/1e6, "MB/s")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

func TestProcessStopEscalatesToKill(t *testing.T) {
	env := map[string]string{"FAKE_CLAUDE_HANG": "1", "FAKE_CLAUDE_STUBBORN": "1", "FAKE_CLAUDE_SPAWN_CHILD": "1"}
	s, _ := fakeSession(t, env, agent.Config{Mode: agent.ModeBypass}, "hang")
	c := &collector{t: t, s: s}
	c.until(isType(agent.EventSessionID))
	pgid := s.PID()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	// grace (0.5s) + SIGTERM ignored for WaitDelay (0.5s) + SIGKILL.
	if d := time.Since(start); d < time.Second {
		t.Errorf("Stop took %v: a stubborn process should need SIGKILL after the grace period and WaitDelay", d)
	}
	c.drain()
	if err := s.Wait(); err != nil {
		t.Errorf("Wait after a forced Stop: %v", err)
	}
	var err error
	for range 100 {
		if err = syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			break
		}
		time.Sleep(30 * time.Millisecond)
	}
	if !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d survived: %v", pgid, err)
	}
}

func TestArgs(t *testing.T) {
	got, err := Args(agent.Config{Mode: agent.ModeAcceptEdits, SessionAllowedTools: []string{"Bash(ls:*)", "Read"}, ExtraArgs: []string{"--debug"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--output-format", "stream-json", "--verbose", "--include-partial-messages", "--input-format", "stream-json",
		"--permission-prompt-tool", "stdio", "--permission-mode", "acceptEdits", "--settings=" + AskCommandsSettings,
		"--allowedTools=Bash(ls:*),Read", "--debug"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := Args(agent.Config{Mode: "yolo"}); err == nil {
		t.Error("unknown mode accepted")
	}
	if info := New(Options{}).Info(); info.Name != agent.BackendClaudeCode || !info.Capabilities.Permissions || !info.Capabilities.Fork {
		t.Errorf("info: %+v", info)
	}
}

func TestReadLinesSkipsTooLongLines(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	in := "a\r\n\n" + long + "\n" + "b\n" + strings.Repeat("y", 100) + "\nlast"
	var got []string
	var errs int
	for line, err := range agent.ReadLines(strings.NewReader(in), 2<<20) {
		if errors.Is(err, agent.ErrFrameTooLong) {
			errs++
			if len(line) != 1024 {
				t.Errorf("head of the long line: %d bytes", len(line))
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	want := []string{"a", "b", strings.Repeat("y", 100), "last"}
	if d := cmp.Diff(want, got); d != "" || errs != 1 {
		t.Errorf("errs %d, lines (-want +got):\n%s", errs, d)
	}
}

func TestDisposeStopsEverySession(t *testing.T) {
	bin := agenttest.BuildFakeClaude(t)
	b := New(Options{Binary: bin, GracePeriod: 200 * time.Millisecond, WaitDelay: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ss []agent.Session
	for range 2 {
		s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), Mode: agent.ModeBypass, Env: map[string]string{"FAKE_CLAUDE_HANG": "1"}}, "hang")
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
		go func() {
			for range s.Events() {
			}
		}()
	}
	if err := b.Dispose(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if err := s.Wait(); err != nil {
			t.Errorf("Wait: %v", err)
		}
		if err := syscall.Kill(s.(*Session).PID(), 0); err == nil {
			// reaped by cmd.Wait: the pid must be gone
			t.Errorf("pid %d alive after Dispose", s.(*Session).PID())
		}
	}
}

func TestProcessExitsAtOnce(t *testing.T) {
	bin, err := exec.LookPath("false")
	if err != nil {
		t.Skip("no false binary")
	}
	b := New(Options{Binary: bin, GracePeriod: 100 * time.Millisecond, WaitDelay: 100 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir()}, "hi")
	if err != nil {
		// The writes raced the exit: Start must say why.
		if !strings.Contains(err.Error(), "exit status 1") && !errors.Is(err, agent.ErrSessionClosed) {
			t.Fatalf("Start: %v", err)
		}
		return
	}
	for range s.Events() {
	}
	if err := s.Wait(); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("Wait = %v", err)
	}
}

// TestArgsNoValueBecomesAFlag: a model or session id named like a flag
// stays the value of its own flag.
func TestArgsNoValueBecomesAFlag(t *testing.T) {
	args, err := Args(agent.Config{Mode: agent.ModeAsk, Model: "--dangerously-skip-permissions", SessionID: "--yolo"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range args {
		if a == "--dangerously-skip-permissions" || a == "--yolo" {
			t.Fatalf("a value became a flag: %q", args)
		}
	}
	if !slices.Contains(args, "--model=--dangerously-skip-permissions") {
		t.Fatalf("args = %q", args)
	}
}

// TestArgsAskCommands: every mode, bypass included, gets the constant
// settings whose permission rule asks before every Bash command (read-only
// ones included, which Claude Code would otherwise run unasked), so that a
// session started in bypass and switched to ask asks (in bypass the app
// answers those requests itself: orchestrator, allowByMode). The settings
// are one `--settings=<json>` argument, never built from a user value.
func TestArgsAskCommands(t *testing.T) {
	var s struct {
		Permissions struct{ Ask []string } `json:"permissions"`
	}
	if err := json.Unmarshal([]byte(AskCommandsSettings), &s); err != nil || !slices.Equal(s.Permissions.Ask, []string{"Bash"}) {
		t.Fatalf("AskCommandsSettings %s (%v): want permissions.ask [Bash]", AskCommandsSettings, err)
	}
	for mode, want := range map[agent.InteractionMode]bool{
		agent.ModeAsk: true, "": true, agent.ModeAcceptEdits: true, agent.ModePlan: true, agent.ModeBypass: true,
	} {
		args, err := Args(agent.Config{Mode: mode, Model: `{"permissions":{"allow":["Bash"]}}`, SessionID: "--settings"})
		if err != nil {
			t.Fatal(err)
		}
		var settings []string
		for _, a := range args {
			if strings.HasPrefix(a, "--settings") {
				settings = append(settings, a)
			}
		}
		if got := slices.Equal(settings, []string{"--settings=" + AskCommandsSettings}); got != want {
			t.Errorf("mode %q: settings arguments %q, want the ask rule: %v", mode, settings, want)
		}
		if want && len(settings) != 1 || !want && len(settings) != 0 {
			t.Errorf("mode %q: a user value became a settings argument: %q", mode, args)
		}
	}
}

// TestArgsForkSession: a native fork resumes the parent's session with
// --fork-session (Claude Code gives the copy a new session id); without a
// session id the flag means nothing and is not passed.
func TestArgsForkSession(t *testing.T) {
	args, err := Args(agent.Config{Mode: agent.ModeAsk, SessionID: "sess-1", ForkSession: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(args); n < 2 || args[n-2] != "--resume=sess-1" || args[n-1] != "--fork-session" {
		t.Errorf("args = %q", args)
	}
	args, _ = Args(agent.Config{Mode: agent.ModeAsk, ForkSession: true})
	if slices.Contains(args, "--fork-session") {
		t.Errorf("fork without a session: %q", args)
	}
}

package acp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// fakeAgent builds testdata/fakeagent (an ACP agent on the SDK's agent side).
func fakeAgent(t *testing.T) string {
	t.Helper()
	return agenttest.BuildOnce(t, "./testdata/fakeagent", "fakeagent")
}

// collector reads a session's batches in the background.
type collector struct {
	mu      sync.Mutex
	events  []agent.Event
	frames  int
	batches []agent.Batch
	closed  chan struct{}
}

func collect(s agent.Session) *collector {
	c := &collector{closed: make(chan struct{})}
	go func() {
		defer close(c.closed)
		for b := range s.Events() {
			c.mu.Lock()
			if b.Frame != nil {
				c.frames++
				if b.Format != FormatName {
					panic("batch format " + b.Format)
				}
			}
			c.events = append(c.events, b.Events...)
			c.batches = append(c.batches, b)
			c.mu.Unlock()
		}
	}()
	return c
}

// waitFor returns the first event from index from on that matches.
func (c *collector) waitFor(t *testing.T, from int, what string, ok func(agent.Event) bool) (agent.Event, int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		for i := from; i < len(c.events); i++ {
			if ok(c.events[i]) {
				ev := c.events[i]
				c.mu.Unlock()
				return ev, i + 1
			}
		}
		c.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t.Fatalf("timed out waiting for %s; events: %+v", what, c.events)
	return agent.Event{}, 0
}

func isType(typ agent.EventType) func(agent.Event) bool {
	return func(e agent.Event) bool { return e.Type == typ }
}

func newFake(t *testing.T, childPIDFile string) *Backend {
	b, err := New(Config{Name: "acp.test.fake", DisplayName: "Fake", Command: fakeAgent(t), Env: map[string]string{"FAKEAGENT_CHILD_PID_FILE": childPIDFile}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// lastTurn is the last version before index end of each assistant message
// (step) of the last turn that has one, in order.
func (c *collector) lastTurn(end int) []*agent.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := ""
	for i := end - 1; i >= 0 && key == ""; i-- {
		if e := c.events[i]; e.Type == agent.EventMessage && e.Message.Role == agent.RoleAssistant {
			key, _, _ = strings.Cut(e.Message.ID, ":assistant")
		}
	}
	var order []string
	last := map[string]*agent.Message{}
	for _, e := range c.events[:end] {
		if e.Type != agent.EventMessage || e.Message.Role != agent.RoleAssistant || !strings.HasPrefix(e.Message.ID, key+":assistant") {
			continue
		}
		if last[e.Message.ID] == nil {
			order = append(order, e.Message.ID)
		}
		last[e.Message.ID] = e.Message
	}
	out := make([]*agent.Message, len(order))
	for i, id := range order {
		out[i] = last[id]
	}
	return out
}

func assistantText(m *agent.Message) string {
	var sb strings.Builder
	for _, p := range m.Parts {
		if p.Type == agent.PartText {
			sb.WriteString(p.Text)
		}
	}
	return sb.String()
}

func TestProcessPermissionAllowThenCancel(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	b := newFake(t, pidFile)
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Backend: "acp.test.fake", Cwd: dir, Mode: agent.ModeAsk}, "please ask permission")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	c := collect(s)

	ev, next := c.waitFor(t, 0, "session id", isType(agent.EventSessionID))
	if ev.SessionID != "fake-session-1" {
		t.Errorf("session id = %q", ev.SessionID)
	}
	ev, next = c.waitFor(t, next, "permission request", isType(agent.EventPermissionRequest))
	req := ev.Request
	if !strings.HasSuffix(req.RequestID, ":permission-1") || req.ToolID != "call_1" || len(req.PermissionOptions) != 3 || req.PermissionOptions[1].Kind != "allow_once" {
		t.Fatalf("permission request = %+v", req)
	}
	if err := s.RespondToPermission(ctx, "nope", agent.PermissionResponse{Behavior: agent.Allow}); !errors.Is(err, agent.ErrUnknownRequest) {
		t.Errorf("unknown request id: err = %v", err)
	}
	if err := s.RespondToPermission(ctx, req.RequestID, agent.PermissionResponse{Behavior: agent.Allow}); err != nil {
		t.Fatal(err)
	}
	ev, next = c.waitFor(t, next, "complete", isType(agent.EventComplete))
	if ev.Result.Reason != "end_turn" || ev.Result.Interrupted || ev.Result.Text != "Done (once)." {
		t.Errorf("result = %+v", ev.Result)
	}
	got, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
	if err != nil || string(got) != "hello\n" {
		t.Errorf("hello.txt via fs/write_text_file = %q, %v", got, err)
	}
	// The turn's steps hold the tool call, completed, with a write result.
	var sawWrite bool
	steps := c.lastTurn(next)
	for _, m := range steps {
		if strings.Contains(assistantText(m), "LEAK") {
			t.Error("the client served a file outside the task folder")
		}
		for _, p := range m.Parts {
			if p.Type == agent.PartToolResult && p.StructuredResult != nil && p.StructuredResult.Kind == agent.StructuredWrite && p.StructuredResult.Content == "hello\n" {
				sawWrite = true
			}
		}
	}
	if !sawWrite {
		t.Errorf("no write result in the turn's %d steps", len(steps))
	}

	// Second turn: cancel mid-turn.
	if err := s.SendMessage(ctx, "be slow"); err != nil {
		t.Fatal(err)
	}
	_, next = c.waitFor(t, next, "working chunk", func(e agent.Event) bool {
		return e.Type == agent.EventMessage && strings.Contains(assistantText(e.Message), "working")
	})
	if err := s.Interrupt(ctx); err != nil {
		t.Fatal(err)
	}
	ev, _ = c.waitFor(t, next, "cancelled complete", isType(agent.EventComplete))
	if !ev.Result.Interrupted || ev.Result.Reason != "cancelled" {
		t.Errorf("after interrupt: %+v", ev.Result)
	}

	pid := s.(agent.ProcessOwner).PID()
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Events not closed after Stop")
	}
	if err := s.Wait(); err != nil {
		t.Errorf("Wait after Stop = %v", err)
	}
	if alive(pid) {
		t.Errorf("agent %d still alive after Stop", pid)
	}
	if b, err := os.ReadFile(pidFile); err == nil {
		child, _ := strconv.Atoi(string(b))
		if alive(child) {
			t.Errorf("agent's child %d orphaned after Stop", child)
		}
	} else {
		t.Errorf("fake agent wrote no child pid: %v", err)
	}
	if c.frames == 0 {
		t.Error("no raw frames delivered")
	}
	// What the session delivered live is what the stored frames give when
	// normalized again.
	replay := NewNormalizer()
	for i, b := range c.batches {
		if b.Frame == nil {
			continue // synthesized by the session, not normalized
		}
		if d := cmp.Diff(b.Events, replay.Feed(b.Frame)); d != "" {
			t.Fatalf("batch %d: live and replayed events differ (-live +replay):\n%s", i, d)
		}
	}
	if err := s.SendMessage(ctx, "x"); !errors.Is(err, agent.ErrSessionClosed) {
		t.Errorf("SendMessage after Stop: %v", err)
	}
}

// alive reports whether pid still runs 2s from now (a zombie waiting for a
// reaper does not count): SIGKILL is delivered asynchronously.
func alive(pid int) bool {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !proc.Alive(pid) {
			return false
		}
	}
	return true
}

func TestProcessDenyThenAlways(t *testing.T) {
	b := newFake(t, "")
	ctx := context.Background()
	dir := t.TempDir()
	s, err := b.Start(ctx, agent.Config{Cwd: dir}, "ask permission")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(ctx) })
	c := collect(s)
	ev, next := c.waitFor(t, 0, "permission request", isType(agent.EventPermissionRequest))
	first := ev.Request.RequestID
	if err := s.RespondToPermission(ctx, ev.Request.RequestID, agent.PermissionResponse{Behavior: agent.Deny}); err != nil {
		t.Fatal(err)
	}
	if err := s.RespondToPermission(ctx, ev.Request.RequestID, agent.PermissionResponse{Behavior: agent.Allow}); !errors.Is(err, agent.ErrUnknownRequest) {
		t.Errorf("second answer to one request: %v", err)
	}
	_, next = c.waitFor(t, next, "denied tool", func(e agent.Event) bool { return e.Type == agent.EventToolStateUpdate && e.State == agent.ToolDenied })
	ev, next = c.waitFor(t, next, "complete", isType(agent.EventComplete))
	if ev.Result.Text != "Rejected." {
		t.Errorf("after deny: %+v", ev.Result)
	}
	if _, err := os.Stat(filepath.Join(dir, "hello.txt")); err == nil {
		t.Error("file written despite deny")
	}
	if err := s.SendMessage(ctx, "permission again"); err != nil {
		t.Fatal(err)
	}
	ev, next = c.waitFor(t, next, "permission request", isType(agent.EventPermissionRequest))
	if ev.Request.RequestID == first {
		t.Errorf("the second request reuses the first one's id %s", first)
	}
	if err := s.RespondToPermission(ctx, ev.Request.RequestID, agent.PermissionResponse{Behavior: agent.Allow, Always: true}); err != nil {
		t.Fatal(err)
	}
	ev, _ = c.waitFor(t, next, "complete", isType(agent.EventComplete))
	if ev.Result.Text != "Done (always)." {
		t.Errorf("after allow always: %+v", ev.Result)
	}
}

func TestProcessStopWhilePermissionPending(t *testing.T) {
	b := newFake(t, "")
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), Mode: agent.ModeBypass}, "ask permission")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	c := collect(s)
	ev, _ := c.waitFor(t, 0, "mode change", func(e agent.Event) bool { return e.Type == agent.EventModeChange && e.Mode == agent.ModeBypass })
	_ = ev
	c.waitFor(t, 0, "permission request", isType(agent.EventPermissionRequest))
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	ev, _ = c.waitFor(t, 0, "cancelled complete", isType(agent.EventComplete))
	if !ev.Result.Interrupted {
		t.Errorf("stop with a pending permission: %+v", ev.Result)
	}
	<-c.closed
}

func TestProcessResumeLoadsSession(t *testing.T) {
	b := newFake(t, "")
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), SessionID: "fake-old"}, "hi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	c := collect(s)
	ev, _ := c.waitFor(t, 0, "complete", isType(agent.EventComplete))
	if ev.Result.Text != "echo: hi" {
		t.Errorf("result = %+v", ev.Result)
	}
	c.mu.Lock()
	for _, e := range c.events {
		if e.Type == agent.EventMessage && strings.Contains(assistantText(e.Message), "old history") {
			t.Error("replayed history was re-emitted as a new message")
		}
	}
	c.mu.Unlock()
	_ = s.Stop(ctx)
}

// TestProcessForkSession: Config.ForkSession on an agent that advertises
// session/fork forks the session (the copy's id is announced, the parent's
// is never loaded) and the backend says Capabilities.Fork from then on; on
// an agent without it the task gets a new session and says why.
func TestProcessForkSession(t *testing.T) {
	for _, forks := range []bool{true, false} {
		env := map[string]string{}
		if forks {
			env["FAKEAGENT_FORK"] = "1"
		}
		b, err := New(Config{Name: "acp.test.fake", DisplayName: "Fake", Command: fakeAgent(t), Env: env})
		if err != nil {
			t.Fatal(err)
		}
		if b.Info().Capabilities.Fork {
			t.Fatal("Capabilities.Fork before any handshake")
		}
		ctx := context.Background()
		s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), SessionID: "fake-old", ForkSession: true}, "hi")
		if err != nil {
			t.Fatal(err)
		}
		c := collect(s)
		ev, _ := c.waitFor(t, 0, "session id", isType(agent.EventSessionID))
		want := "fork-of-fake-old"
		if !forks {
			want = "fake-session-1"
		}
		if ev.SessionID != want {
			t.Errorf("fork (agent forks: %v): session %q, want %q", forks, ev.SessionID, want)
		}
		if ev, _ := c.waitFor(t, 0, "complete", isType(agent.EventComplete)); ev.Result.Text != "echo: hi" {
			t.Errorf("result = %+v", ev.Result)
		}
		said := false
		c.mu.Lock()
		for _, e := range c.events {
			said = said || (e.Type == agent.EventError && strings.Contains(e.Error, "cannot fork sessions"))
			if e.Type == agent.EventMessage && strings.Contains(assistantText(e.Message), "old history") {
				t.Error("the parent's session was loaded")
			}
		}
		c.mu.Unlock()
		if said == forks || b.Info().Capabilities.Fork != forks {
			t.Errorf("agent forks %v: said it cannot %v, Capabilities.Fork %v", forks, said, b.Info().Capabilities.Fork)
		}
		_ = s.Stop(ctx)
	}
}

func TestProcessModel(t *testing.T) {
	b := newFake(t, "")
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), Model: "big"}, "hi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(ctx) })
	c := collect(s)
	ev, next := c.waitFor(t, 0, "complete", isType(agent.EventComplete))
	if ev.Result.Text != "echo: hi [big]" {
		t.Errorf("model at start: %+v", ev.Result)
	}
	if err := s.(agent.ModelSetter).SetModel(ctx, "small"); err != nil {
		t.Fatal(err)
	}
	if err := s.SendMessage(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	ev, _ = c.waitFor(t, next, "complete", isType(agent.EventComplete))
	if ev.Result.Text != "echo: again [small]" {
		t.Errorf("after SetModel: %+v", ev.Result)
	}
}

func TestMissingBinary(t *testing.T) {
	b, err := New(Config{Name: "acp.test.missing", Command: "no-such-acp-agent-binary"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Start(context.Background(), agent.Config{Cwd: t.TempDir()}, "hi")
	if !errors.Is(err, agent.ErrBinaryNotFound) {
		t.Fatalf("err = %v, want ErrBinaryNotFound", err)
	}
}

func TestConfigValidation(t *testing.T) {
	for _, c := range Presets() {
		if err := c.Validate(); err != nil {
			t.Errorf("preset %s: %v", c.Name, err)
		}
	}
	if _, err := New(Config{Name: "gemini", Command: "gemini"}); !errors.Is(err, ErrBadConfig) {
		t.Errorf("bad name accepted: %v", err)
	}
	cs, err := ParseConfigs([]byte(`[{"name":"acp.me.mine","command":"my-agent","args":["--acp"]}]`))
	if err != nil || len(cs) != 1 || cs[0].Args[0] != "--acp" {
		t.Errorf("ParseConfigs = %+v, %v", cs, err)
	}
}

func TestConfine(t *testing.T) {
	root, err := resolveRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "etc")); err != nil {
		t.Fatal(err)
	}
	for path, ok := range map[string]bool{
		filepath.Join(root, "a.txt"):         true,
		filepath.Join(root, "new/dir/b.txt"): true,
		filepath.Join(root, "../x"):          false,
		"/etc/passwd":                        false,
		filepath.Join(root, "etc/passwd"):    false,
		"relative.txt":                       false,
		filepath.Join(root, "etc/../a.txt"):  true, // Clean first: root/a.txt
	} {
		_, err := confine(root, path)
		if (err == nil) != ok {
			t.Errorf("confine(%q) err = %v, want ok=%v", path, err, ok)
		}
	}
}

func TestPermissionAnswerMapping(t *testing.T) {
	opts := []agent.PermissionOption{{ID: "a", Kind: "allow_always"}, {ID: "o", Kind: "allow_once"}, {ID: "r", Kind: "reject_once"}}
	for _, tc := range []struct {
		resp agent.PermissionResponse
		want string
	}{
		{agent.PermissionResponse{Behavior: agent.Allow}, "o"},
		{agent.PermissionResponse{Behavior: agent.Allow, Always: true}, "a"},
		{agent.PermissionResponse{Behavior: agent.Deny}, "r"},
		{agent.PermissionResponse{Behavior: agent.Deny, Always: true}, "r"},
	} {
		got := permissionAnswer(opts, tc.resp)
		if got.Outcome.Selected == nil || string(got.Outcome.Selected.OptionId) != tc.want {
			t.Errorf("%+v → %+v, want %s", tc.resp, got.Outcome, tc.want)
		}
	}
	if got := permissionAnswer(opts[:2], agent.PermissionResponse{Behavior: agent.Deny}); got.Outcome.Cancelled == nil {
		t.Errorf("deny without a reject option should cancel, got %+v", got.Outcome)
	}
}

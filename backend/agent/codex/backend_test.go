package codex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// fakeAppServer builds testdata/fakeappserver into a binary named codex.
func fakeAppServer(t *testing.T) string {
	t.Helper()
	return agenttest.BuildOnce(t, "./testdata/fakeappserver", "codex")
}

// seen keeps every batch next read, to replay the frames afterwards.
var seen = map[agent.Session][]agent.Batch{}

func next(t *testing.T, s agent.Session, what string, ok func(agent.Event) bool) agent.Event {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case b, open := <-s.Events():
			if !open {
				t.Fatalf("events closed while waiting for %s", what)
			}
			if b.Frame != nil && b.Format != AppServerFormatName {
				t.Fatalf("batch format %q", b.Format)
			}
			seen[s] = append(seen[s], b)
			for _, ev := range b.Events {
				if ok(ev) {
					return ev
				}
			}
		case <-timeout:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func is(typ agent.EventType) func(agent.Event) bool {
	return func(e agent.Event) bool { return e.Type == typ }
}

func gone(pid int) bool {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !proc.Alive(pid) {
			return true
		}
	}
	return false
}

// TestProcessApprovals replays a real app-server session with two approvals:
// the fake checks the client's requests and that "allow" is sent as accept
// and "deny" as decline.
func TestProcessApprovals(t *testing.T) {
	transcript, _ := filepath.Abs("testdata/fakeappserver/perm.transcript.jsonl")
	childPID := filepath.Join(t.TempDir(), "child")
	b := New(Options{Binary: fakeAppServer(t)})
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), Mode: agent.ModeAsk,
		Env: map[string]string{"FAKE_TRANSCRIPT": transcript, "FAKE_CHILD_PID_FILE": childPID}}, "Create hello.txt, then make a directory.")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(ctx) })
	ev := next(t, s, "session id", is(agent.EventSessionID))
	if ev.SessionID != "01a2012e-42ab-78f1-a0b9-172e25893a38" {
		t.Errorf("session id %q", ev.SessionID)
	}
	ev = next(t, s, "file approval", is(agent.EventPermissionRequest))
	if ev.Request.RequestID != "call_cxperm_t0_gv48bk" || ev.Request.ToolName != "fileChange" {
		t.Errorf("first approval %+v", ev.Request)
	}
	if err := s.RespondToPermission(ctx, "nope", agent.PermissionResponse{Behavior: agent.Allow}); !errors.Is(err, agent.ErrUnknownRequest) {
		t.Errorf("unknown request: %v", err)
	}
	if err := s.RespondToPermission(ctx, ev.Request.RequestID, agent.PermissionResponse{Behavior: agent.Allow}); err != nil {
		t.Fatal(err)
	}
	ev = next(t, s, "command approval", is(agent.EventPermissionRequest))
	if ev.Request.ToolName != "commandExecution" || !strings.Contains(ev.Request.Description, "mkdir -p out") {
		t.Errorf("second approval %+v", ev.Request)
	}
	if err := s.RespondToPermission(ctx, ev.Request.RequestID, agent.PermissionResponse{Behavior: agent.Deny}); err != nil {
		t.Fatal(err)
	}
	ev = next(t, s, "declined tool", func(e agent.Event) bool { return e.Type == agent.EventToolStateUpdate && e.State == agent.ToolDenied })
	ev = next(t, s, "complete", is(agent.EventComplete))
	if ev.Result.Text != "Finished after approvals." || ev.Result.Usage == nil || ev.Result.Usage.InputTokens != 3900 {
		t.Errorf("result %+v", ev.Result)
	}
	replay := NewAppServerNormalizer()
	for i, b := range seen[s] {
		if b.Frame == nil {
			continue
		}
		if d := cmp.Diff(b.Events, replay.Feed(b.Frame)); d != "" {
			t.Fatalf("batch %d: live and replayed events differ (-live +replay):\n%s", i, d)
		}
	}
	pid := s.(agent.ProcessOwner).PID()
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Errorf("Wait: %v (the fake fails on an unexpected client message)", err)
	}
	if !gone(pid) {
		t.Errorf("app-server %d alive after Stop", pid)
	}
	if raw, err := os.ReadFile(childPID); err != nil {
		t.Error(err)
	} else if c, _ := strconv.Atoi(string(raw)); !gone(c) {
		t.Errorf("child %d orphaned", c)
	}
}

func TestProcessInterrupt(t *testing.T) {
	b := New(Options{Binary: fakeAppServer(t)})
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), Mode: agent.ModeBypass, Env: map[string]string{"FAKE_MODE": "slow"}}, "go")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(ctx) })
	next(t, s, "working", func(e agent.Event) bool {
		return e.Type == agent.EventMessage && len(e.Message.Parts) > 0 && e.Message.Parts[0].Text == "working"
	})
	if err := s.Interrupt(ctx); err != nil {
		t.Fatal(err)
	}
	ev := next(t, s, "complete", is(agent.EventComplete))
	if !ev.Result.Interrupted {
		t.Errorf("result %+v", ev.Result)
	}
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	for range s.Events() {
	}
	if err := s.SendMessage(ctx, "x"); !errors.Is(err, agent.ErrSessionClosed) {
		t.Errorf("SendMessage after Stop: %v", err)
	}
}

func TestProcessResume(t *testing.T) {
	b := New(Options{Binary: fakeAppServer(t)})
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), SessionID: "old-thread", Env: map[string]string{"FAKE_MODE": "slow"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(ctx) })
	if ev := next(t, s, "session id", is(agent.EventSessionID)); ev.SessionID != "resumed-old-thread" {
		t.Errorf("session id %q: thread/resume not used", ev.SessionID)
	}
}

// TestProcessFork: a native fork (Config.ForkSession) asks the app-server
// for thread/fork, and the copy's id is the session's.
func TestProcessFork(t *testing.T) {
	b := New(Options{Binary: fakeAppServer(t)})
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), SessionID: "old-thread", ForkSession: true, Env: map[string]string{"FAKE_MODE": "slow"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(ctx) })
	if ev := next(t, s, "session id", is(agent.EventSessionID)); ev.SessionID != "forked-old-thread" {
		t.Errorf("session id %q: thread/fork not used", ev.SessionID)
	}
}

// TestProcessForkAtTurn: Config.ForkPoint is thread/fork's lastTurnId (the
// fake app-server names the copy after it).
func TestProcessForkAtTurn(t *testing.T) {
	b := New(Options{Binary: fakeAppServer(t)})
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), SessionID: "old-thread", ForkSession: true, ForkPoint: "turn-1",
		Env: map[string]string{"FAKE_MODE": "slow"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(ctx) })
	if ev := next(t, s, "session id", is(agent.EventSessionID)); ev.SessionID != "forked-old-thread-through-turn-1" {
		t.Errorf("session id %q: thread/fork without lastTurnId turn-1", ev.SessionID)
	}
}

func TestMissingBinary(t *testing.T) {
	_, err := New(Options{Binary: "no-such-codex"}).Start(context.Background(), agent.Config{Cwd: t.TempDir()}, "hi")
	if !errors.Is(err, agent.ErrBinaryNotFound) {
		t.Fatalf("err = %v", err)
	}
}

func TestDecisionAndPolicy(t *testing.T) {
	for _, tc := range []struct {
		resp agent.PermissionResponse
		want string
	}{
		{agent.PermissionResponse{Behavior: agent.Allow}, "accept"},
		{agent.PermissionResponse{Behavior: agent.Allow, Always: true}, "acceptForSession"},
		{agent.PermissionResponse{Behavior: agent.Deny}, "decline"},
		{agent.PermissionResponse{Behavior: agent.Deny, Interrupt: true}, "cancel"},
	} {
		if got := Decision(tc.resp); got != tc.want {
			t.Errorf("Decision(%+v) = %s, want %s", tc.resp, got, tc.want)
		}
	}
	if p := PolicyFor(agent.ModeBypass); p.Approval != "never" || p.Sandbox != "danger-full-access" {
		t.Errorf("bypass: %+v", p)
	}
	if p := PolicyFor(agent.ModePlan); p.Sandbox != "read-only" {
		t.Errorf("plan: %+v", p)
	}
}

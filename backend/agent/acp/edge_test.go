package acp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// newEdge is the fake agent playing one of its edge cases.
func newEdge(t *testing.T, behavior string) *Backend {
	t.Helper()
	b, err := New(Config{Name: "acp.test.edge", DisplayName: "Edge", Command: fakeAgent(t), Env: map[string]string{"FAKEAGENT_BEHAVIOR": behavior}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// startQuick starts a session and checks Start did not wait for the agent.
func startQuick(t *testing.T, b *Backend, cfg agent.Config, prompt string) (agent.Session, *collector) {
	t.Helper()
	if cfg.Cwd == "" {
		cfg.Cwd = t.TempDir()
	}
	t0 := time.Now()
	s, err := b.Start(context.Background(), cfg, prompt)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("Start took %s: it must not wait for the handshake", d)
	}
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	return s, collect(s)
}

func fatalError(e agent.Event) bool { return e.Type == agent.EventError && e.Fatal }

func waitClosed(t *testing.T, c *collector, d time.Duration) {
	t.Helper()
	select {
	case <-c.closed:
	case <-time.After(d):
		t.Fatalf("events not closed after %s", d)
	}
}

func TestEdgeExitAtOnce(t *testing.T) {
	s, c := startQuick(t, newEdge(t, "exit-at-once"), agent.Config{}, "hi")
	ev, _ := c.waitFor(t, 0, "fatal error", fatalError)
	for _, want := range []string{"the agent exited (exit status 0) before answering initialize", "no API key configured"} {
		if !strings.Contains(ev.Error, want) {
			t.Errorf("error %q lacks %q", ev.Error, want)
		}
	}
	if strings.Contains(ev.Error, "cancelled") {
		t.Errorf("error %q says cancelled", ev.Error)
	}
	waitClosed(t, c, 5*time.Second)
	_ = s.Wait()
}

func TestEdgeWrongVersion(t *testing.T) {
	_, c := startQuick(t, newEdge(t, "wrong-version"), agent.Config{}, "hi")
	ev, _ := c.waitFor(t, 0, "fatal error", fatalError)
	if !strings.Contains(ev.Error, "speaks version 99") || !strings.Contains(ev.Error, ErrProtocolVersion.Error()) {
		t.Errorf("error = %q", ev.Error)
	}
	waitClosed(t, c, 5*time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.events {
		if e.Type == agent.EventSessionID {
			t.Errorf("a session was opened with an agent of another protocol version")
		}
	}
}

// TestEdgeNeverAnswers: Start returns at once, the task can be stopped while
// the agent has not answered, and a timeout ends the wait.
func TestEdgeNeverAnswers(t *testing.T) {
	b := newEdge(t, "never-answer")
	s, c := startQuick(t, b, agent.Config{}, "hi")
	c.waitFor(t, 0, "starting notice", func(e agent.Event) bool {
		return e.Type == agent.EventMessage && e.Message.Parts[0].Subtype == "starting"
	})
	t0 := time.Now()
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("Stop took %s", d)
	}
	waitClosed(t, c, time.Second)
	c.mu.Lock()
	for _, e := range c.events {
		if fatalError(e) {
			t.Errorf("a stop during the handshake reported %q", e.Error)
		}
	}
	c.mu.Unlock()

	b.handshakeTimeout = 300 * time.Millisecond
	_, c = startQuick(t, b, agent.Config{}, "hi")
	ev, _ := c.waitFor(t, 0, "fatal error", fatalError)
	if !strings.Contains(ev.Error, "did not answer initialize within 300ms") {
		t.Errorf("error = %q", ev.Error)
	}
	waitClosed(t, c, 5*time.Second)
}

// TestEdgeNewSessionFails: the agent's stderr says why session/new failed.
func TestEdgeNewSessionFails(t *testing.T) {
	_, c := startQuick(t, newEdge(t, "new-fails"), agent.Config{}, "hi")
	ev, _ := c.waitFor(t, 0, "fatal error", fatalError)
	for _, want := range []string{"session/new", "Query closed before response received", "cannot be used with root/sudo privileges"} {
		if !strings.Contains(ev.Error, want) {
			t.Errorf("error %q lacks %q", ev.Error, want)
		}
	}
	waitClosed(t, c, 5*time.Second)
}

// TestEdgeLoadFails: a resume the agent refuses goes on in a new session
// with the user's message, saying so.
func TestEdgeLoadFails(t *testing.T) {
	_, c := startQuick(t, newEdge(t, "load-fails"), agent.Config{SessionID: "old-session"}, "follow-up")
	ev, next := c.waitFor(t, 0, "notice", func(e agent.Event) bool {
		return e.Type == agent.EventError && strings.Contains(e.Error, "could not resume")
	})
	if ev.Fatal || !strings.Contains(ev.Error, "could not resume") || !strings.Contains(ev.Error, "No previous sessions found") {
		t.Errorf("notice = %+v", ev)
	}
	ev, next = c.waitFor(t, next, "new session", isType(agent.EventSessionID))
	if ev.SessionID != "fake-session-1" {
		t.Errorf("session = %q", ev.SessionID)
	}
	ev, _ = c.waitFor(t, next, "complete", isType(agent.EventComplete))
	if ev.Result.Text != "echo: follow-up" {
		t.Errorf("result = %+v", ev.Result)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.events {
		if fatalError(e) {
			t.Errorf("fatal: %q", e.Error)
		}
	}
}

// TestEdgeBanner: a line that is not JSON-RPC on stdout is kept and shown,
// and the session goes on.
func TestEdgeBanner(t *testing.T) {
	_, c := startQuick(t, newEdge(t, "banner"), agent.Config{}, "hi")
	ev, _ := c.waitFor(t, 0, "complete", isType(agent.EventComplete))
	if ev.Result.Text != "echo: hi" {
		t.Errorf("result = %+v", ev.Result)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var seen bool
	for _, e := range c.events {
		if e.Type == agent.EventError && !e.Fatal && strings.Contains(string(e.Raw), "Welcome") {
			seen = true
		}
	}
	if !seen {
		t.Error("the banner line was not reported")
	}
}

// TestReadyNoticeCarriesAgentInfo: the handshake's agentInfo shows.
func TestReadyNoticeCarriesAgentInfo(t *testing.T) {
	s, c := startQuick(t, newEdge(t, ""), agent.Config{}, "hi")
	c.waitFor(t, 0, "ready", func(e agent.Event) bool {
		return e.Type == agent.EventMessage && e.Message.Role == agent.RoleSystem && strings.Contains(e.Message.Parts[0].Text, "fakeagent 1.2.3")
	})
	if info := s.(*session).AgentInfo(); info == nil || info.Version != "1.2.3" {
		t.Errorf("agent info = %+v", info)
	}
}

// TestFloodStop: an agent that writes without end while nobody reads Events
// is held by the runtime's backpressure (nothing grows without bound:
// ~256 queued frames plus the delivery buffer), and Stop ends it within a
// few seconds once Events is read again.
func TestFloodStop(t *testing.T) {
	b := newEdge(t, "")
	s, err := b.Start(context.Background(), agent.Config{Cwd: t.TempDir()}, "flood")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // nobody reads meanwhile
	if n := len(s.Events()); n > agent.MaxQueuedFrames+64 {
		t.Errorf("%d batches waiting unread", n)
	}
	go func() {
		for range s.Events() {
		}
	}()
	t0 := time.Now()
	if err := s.Stop(context.Background()); err != nil {
		t.Logf("stop: %v", err)
	}
	d := time.Since(t0)
	t.Logf("Stop took %s", d)
	if d > 5*time.Second {
		t.Errorf("Stop took %s", d)
	}
}

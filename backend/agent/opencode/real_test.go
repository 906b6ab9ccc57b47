package opencode

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// TestRealOpenCode drives a real `opencode serve` through the backend. It is
// opt-in: set OPENCODE_REAL_BIN to the opencode binary and
// OPENCODE_REAL_MODEL_URL to an OpenAI-compatible server that plays the
// capture scenarios (the shared fixtures' scripted model server, e.g.
// http://127.0.0.1:18090/v1). OpenCode runs in an isolated HOME.
func TestRealOpenCode(t *testing.T) {
	bin, modelURL := os.Getenv("OPENCODE_REAL_BIN"), os.Getenv("OPENCODE_REAL_MODEL_URL")
	if bin == "" || modelURL == "" {
		t.Skip("set OPENCODE_REAL_BIN and OPENCODE_REAL_MODEL_URL to run against a real opencode")
	}
	liveTimeout = 3 * time.Minute
	defer func() { liveTimeout = 20 * time.Second }()
	home := t.TempDir()
	proj := t.TempDir()
	cfg := `{"$schema":"https://opencode.ai/config.json","autoupdate":false,"share":"disabled",
"model":"fake/fake-basic","small_model":"fake/fake-basic",
"provider":{"fake":{"npm":"@ai-sdk/openai-compatible","name":"Fake","options":{"baseURL":"` + modelURL + `","apiKey":"test"},
"models":{"fake-basic":{"name":"Fake basic","tool_call":true,"reasoning":true,"limit":{"context":128000,"output":8192},"cost":{"input":1.0,"output":2.0,"cache_read":0.5}}}}}}`
	if err := os.WriteFile(filepath.Join(proj, "opencode.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share",
		"XDG_CACHE_HOME": home + "/.cache", "XDG_STATE_HOME": home + "/.local/state",
		"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1",
		"OPENCODE_DISABLE_EXTERNAL_SKILLS": "1"}
	b := New(Options{Binary: bin, Env: env, HealthTimeout: 60 * time.Second, ConnectTimeout: 30 * time.Second,
		ReconnectMin: 100 * time.Millisecond, ReconnectMax: time.Second, RestartMin: 100 * time.Millisecond})
	defer b.Dispose(context.Background())
	ctx := context.Background()

	// Ask mode: the session's own rules make OpenCode ask for the edit
	// and the command; allow the first, reject the second.
	s, err := b.Start(ctx, agent.Config{Cwd: proj, Model: "fake/fake-basic", Mode: agent.ModeAsk}, "[scenario:perm] Create hello.txt, then list the files.")
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	batches := liveRun(t, s, 1, func(ev agent.Event) {
		if ev.Type == agent.EventPermissionRequest {
			asked = append(asked, ev.Request.ToolName)
			resp := agent.PermissionResponse{Behavior: agent.Allow}
			if len(asked) == 2 {
				resp = agent.PermissionResponse{Behavior: agent.Deny, Message: "no"}
			}
			go func() {
				if err := s.RespondToPermission(ctx, ev.Request.RequestID, resp); err != nil {
					t.Error(err)
				}
			}()
		}
	})
	evs := eventsOf(batches)
	t.Logf("perm turn: %d batches, asked %v, result %+v", len(batches), asked, evs[len(evs)-1].Result)
	if len(asked) != 2 || asked[0] != "edit" || asked[1] != "bash" {
		t.Fatalf("permission requests %v, want [edit bash]", asked)
	}
	if _, err := os.Stat(filepath.Join(proj, "hello.txt")); err != nil {
		t.Fatalf("the allowed edit did not happen: %v", err)
	}
	if countType(evs, agent.EventSessionID) != 1 {
		t.Fatal("no session-id")
	}
	all := batches
	checkIdentity(t, all)

	// Bypass: nothing asks.
	if err := s.SetMode(ctx, agent.ModeBypass); err != nil {
		t.Fatal(err)
	}
	if err := s.SendMessage(ctx, "[scenario:basic] Create hello.txt with a greeting, then list the files."); err != nil {
		t.Fatal(err)
	}
	batches = liveRun(t, s, 1, func(ev agent.Event) {
		if ev.Type == agent.EventPermissionRequest {
			t.Errorf("bypass mode asked: %+v", ev.Request)
			go func() {
				_ = s.RespondToPermission(ctx, ev.Request.RequestID, agent.PermissionResponse{Behavior: agent.Allow})
			}()
		}
	})
	all = append(all, batches...)
	evs = eventsOf(batches)
	res := evs[len(evs)-1].Result
	if res == nil || res.Text != "Done: created hello.txt and listed the directory." || res.Cost == nil || res.Cost.CostUSD == 0 {
		t.Fatalf("basic turn result: %+v", res)
	}
	checkIdentity(t, all)

	// The server dies between turns: the next message brings it back and
	// the same session carries on.
	pid := b.ServerPID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for b.ServerPID() == 0 || b.ServerPID() == pid {
		if time.Now().After(deadline) {
			t.Fatal("server not restarted")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := s.SendMessage(ctx, "[scenario:question] Ask me which greeting to use."); err != nil {
		t.Fatal(err)
	}
	var q *agent.Request
	batches = liveRun(t, s, 1, func(ev agent.Event) {
		if ev.Type == agent.EventQuestion {
			q = ev.Request
			go func() {
				_ = s.RespondToQuestion(ctx, ev.Request.RequestID, agent.QuestionAnswer{Answers: [][]string{{ev.Request.Options[0].Label}}})
			}()
		}
	})
	evs = eventsOf(batches)
	if q == nil || !strings.Contains(evs[len(evs)-1].Result.Text, "Thanks") {
		t.Fatalf("question turn: question %+v, result %+v", q, evs[len(evs)-1].Result)
	}
	all = append(all, batches...)

	// Plan mode prompts OpenCode's plan agent.
	if err := s.SetMode(ctx, agent.ModePlan); err != nil {
		t.Fatal(err)
	}
	if err := s.SendMessage(ctx, "[scenario:followup] What next?"); err != nil {
		t.Fatal(err)
	}
	batches = liveRun(t, s, 1, nil)
	evs = eventsOf(batches)
	if r := evs[len(evs)-1].Result; r.Text != "Here is the follow-up answer." {
		t.Fatalf("plan turn: %+v", r)
	}
	if m := finalMessages(evs); func() bool {
		for _, msg := range m {
			if msg.Role == agent.RoleAssistant && msg.Metadata["agent"] == "plan" {
				return false
			}
		}
		return true
	}() {
		t.Fatal("no assistant message from the plan agent")
	}
	all = append(all, batches...)

	// Interrupt a slow turn once it streams: it ends interrupted.
	if err := s.SendMessage(ctx, "[scenario:slow] Take your time."); err != nil {
		t.Fatal(err)
	}
	interrupted := false
	batches = liveRun(t, s, 1, func(ev agent.Event) {
		if !interrupted && ev.Type == agent.EventMessage && ev.Message.Role == agent.RoleAssistant && len(ev.Message.Parts) > 0 {
			interrupted = true
			go func() {
				start := time.Now()
				if err := s.Interrupt(ctx); err != nil {
					t.Error(err)
				}
				t.Logf("Interrupt took %s", time.Since(start))
			}()
		}
	})
	evs = eventsOf(batches)
	if r := evs[len(evs)-1].Result; !r.Interrupted || r.Reason != "aborted" {
		t.Fatalf("interrupted turn: %+v", r)
	}
	all = append(all, batches...)
	checkIdentity(t, all)

	// Stop in the middle of a slow turn: prompt, wait for it to stream, stop.
	if err := s.SendMessage(ctx, "[scenario:slow] Again."); err != nil {
		t.Fatal(err)
	}
	for streaming := false; !streaming; {
		select {
		case bt := <-s.Events():
			for _, ev := range bt.Events {
				if ev.Type == agent.EventMessage && ev.Message.Role == agent.RoleAssistant && len(ev.Message.Parts) > 0 {
					streaming = true
				}
			}
		case <-time.After(liveTimeout):
			t.Fatal("the slow turn never streamed")
		}
	}
	stopAt := time.Now()
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("Stop took %s", time.Since(stopAt))
	// The abort Stop sent reaches the server: the session goes idle.
	c, ok := b.srv.running(proj)
	if !ok {
		t.Fatal("no server after Stop")
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		st, err := c.status(ctx)
		if err == nil && st[s.(*Session).ID()] != "busy" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stopped session is still busy (%v, %v)", st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	pid = b.ServerPID()
	if err := b.Dispose(ctx); err != nil {
		t.Fatal(err)
	}
	if !gone(pid) {
		t.Fatalf("server %d alive after Dispose", pid)
	}
}

package opencode

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
)

// TestRealOpenCodeForkAtMessage checks a native fork from a message that
// does not end the session against the real OpenCode ($JC_REALCLI_BIN, the
// folder of the opencode binary) and the scripted model server: two turns,
// then ForkPoint at the first turn's answer gives the second turn's user
// message, and the copy the backend's fork makes holds exactly the
// parent's messages up to that answer, under a new session id; a turn in
// the copy sends the model the first turn, not the second.
func TestRealOpenCodeForkAtMessage(t *testing.T) {
	dir := os.Getenv("JC_REALCLI_BIN")
	if dir == "" {
		t.Skip("set JC_REALCLI_BIN to the folder of the real opencode binary")
	}
	liveTimeout = 3 * time.Minute
	defer func() { liveTimeout = 20 * time.Second }()
	model, err := fakemodel.Start(fakemodel.Options{Scripts: map[string]fakemodel.Script{
		"one": {{Text: "First answer."}}, "two": {{Text: "Second answer."}}, "three": {{Text: "Third answer."}}},
		KeepBodies: true})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	b := realOpenCode(t, filepath.Join(dir, "opencode"), model.OpenAIBaseURL())
	defer b.Dispose(context.Background())
	ctx := context.Background()
	proj := t.TempDir()
	cfg := agent.Config{Cwd: proj, Model: "fake/fake-basic", Mode: agent.ModeBypass}
	s, err := b.Start(ctx, cfg, "[scenario:one] Say one.")
	if err != nil {
		t.Fatal(err)
	}
	evs := eventsOf(liveRun(t, s, 1, nil))
	if err := s.SendMessage(ctx, "[scenario:two] Say two."); err != nil {
		t.Fatal(err)
	}
	evs = append(evs, eventsOf(liveRun(t, s, 1, nil))...)
	parent := s.(*Session).ID()
	_ = s.Stop(ctx)

	msgs := inOrder(evs) // what the task stores, in order
	answer := ""
	for _, m := range msgs {
		for _, p := range m.Parts {
			if m.Role == agent.RoleAssistant && p.Type == agent.PartText && p.Text == "First answer." {
				answer = m.ID
			}
		}
	}
	before, ok := ForkPoint(msgs, answer)
	c, err := b.srv.client(ctx, proj)
	if err != nil {
		t.Fatal(err)
	}
	all := sessionIDs(t, c, parent)
	at := -1
	for i, id := range all {
		if id == before {
			at = i
		}
	}
	if answer == "" || !ok || at < 1 || all[at-1] != answer {
		t.Fatalf("fork point after %q: %q (%v); the session's messages %v", answer, before, ok, all)
	}
	cfg.SessionID, cfg.ForkSession, cfg.ForkPoint = parent, true, before
	f, err := b.Start(ctx, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop(ctx)
	fork := f.(*Session).ID()
	copied := sessionIDs(t, c, fork)
	if fork == parent || len(copied) != at {
		t.Fatalf("the copy %s holds %d messages, want the %d before %s of %v", fork, len(copied), at, before, all)
	}
	raw, err := c.messages(ctx, fork)
	if err != nil {
		t.Fatal(err)
	}
	if last := partTexts(raw[len(raw)-1]); last != "First answer." {
		t.Errorf("the copy ends with %q, want the first answer", last)
	}
	// A turn in the copy: the model sees the first turn, not the second.
	if err := f.SendMessage(ctx, "[scenario:three] Say three."); err != nil {
		t.Fatal(err)
	}
	liveRun(t, f, 1, nil)
	var body string
	for _, r := range model.Requests() {
		if r.Scenario == "three" {
			body = string(r.Body)
		}
	}
	if !strings.Contains(body, "Say one.") || !strings.Contains(body, "First answer.") || strings.Contains(body, "Say two.") {
		t.Errorf("the copy's turn sent the model: %s", body)
	}
	t.Logf("parent %s: %d messages; fork %s before %s: %d messages", parent, len(all), fork, before, len(copied))
}

// realOpenCode is the backend over the real binary, isolated in its own
// HOME, with the model server as provider "fake".
func realOpenCode(t *testing.T, bin, modelURL string) *Backend {
	home := t.TempDir()
	cfg := `{"$schema":"https://opencode.ai/config.json","autoupdate":false,"share":"disabled",
"model":"fake/fake-basic","small_model":"fake/fake-basic",
"provider":{"fake":{"npm":"@ai-sdk/openai-compatible","name":"Fake","options":{"baseURL":"` + modelURL + `","apiKey":"test"},
"models":{"fake-basic":{"name":"Fake basic","tool_call":true,"limit":{"context":128000,"output":8192}}}}}}`
	path := filepath.Join(home, "opencode.json")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share",
		"XDG_CACHE_HOME": home + "/.cache", "XDG_STATE_HOME": home + "/.local/state", "OPENCODE_CONFIG": path,
		"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1",
		"OPENCODE_DISABLE_EXTERNAL_SKILLS": "1"}
	return New(Options{Binary: bin, Env: env, HealthTimeout: 60 * time.Second, ConnectTimeout: 30 * time.Second,
		ReconnectMin: 100 * time.Millisecond, ReconnectMax: time.Second, RestartMin: 100 * time.Millisecond})
}

// inOrder is the last version of each message, in the order they first
// came (as the store keeps them).
func inOrder(evs []agent.Event) []agent.Message {
	var out []agent.Message
	at := map[string]int{}
	for _, ev := range evs {
		if ev.Type != agent.EventMessage {
			continue
		}
		if i, ok := at[ev.Message.ID]; ok {
			out[i] = *ev.Message
			continue
		}
		at[ev.Message.ID] = len(out)
		out = append(out, *ev.Message)
	}
	return out
}

// sessionIDs lists the ids of a session's messages, as the server has them.
func sessionIDs(t *testing.T, c *client, id string) []string {
	t.Helper()
	raw, err := c.messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range raw {
		var info struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(m.Info, &info)
		ids = append(ids, info.ID)
	}
	return ids
}

// partTexts joins a message's text parts.
func partTexts(m wireMessageWithParts) string {
	s := ""
	for _, p := range m.Parts {
		var part struct {
			Type, Text string
		}
		if json.Unmarshal(p, &part) == nil && part.Type == "text" {
			s += part.Text
		}
	}
	return s
}

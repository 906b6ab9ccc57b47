package importer_test

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
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
)

// TestRealClaudeForkSession checks, with the real Claude Code
// ($JC_REALCLI_BIN, see TestGenerateFixtures) against the scripted model
// server, the contract a native fork relies on (history.Fork,
// agent.Config.ForkSession): `--resume ID --fork-session` answers under a
// new session id whose file holds the earlier conversation, and leaves the
// original session file as it was. The flags are the backend's own
// (claude.Args).
func TestRealClaudeForkSession(t *testing.T) {
	bin := os.Getenv("JC_REALCLI_BIN")
	if bin == "" {
		t.Skip("set JC_REALCLI_BIN to the folder of the real claude binary")
	}
	home := t.TempDir()
	proj := filepath.Join(home, "work", "fork_project")
	for _, d := range []string{proj, filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	model, err := fakemodel.Start(fakemodel.Options{Scripts: genScript(proj)})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	env := append(genEnv(home, model.URL()), "IS_SANDBOX=1")
	cl := filepath.Join(bin, "claude")
	first := runCLI(t, proj, env, cl, "-p", "[scenario:import] Create notes.md with a café note", "--output-format", "json",
		"--permission-mode", "acceptEdits", "--allowedTools", "Write,Bash")
	parent := sessionOf(t, first)
	files, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", parent+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("parent session file: %v", files)
	}
	before, _ := os.ReadFile(files[0])
	args, err := claude.Args(agent.Config{Mode: agent.ModeAcceptEdits, SessionID: parent, ForkSession: true})
	if err != nil {
		t.Fatal(err)
	}
	var forkArgs []string
	for _, a := range args {
		if strings.HasPrefix(a, "--resume=") || a == "--fork-session" {
			forkArgs = append(forkArgs, a)
		}
	}
	out := runCLI(t, proj, env, cl, append([]string{"-p", "And what is in it?", "--output-format", "json"}, forkArgs...)...)
	fork := sessionOf(t, out)
	if fork == parent || fork == "" {
		t.Fatalf("fork session %q, parent %q", fork, parent)
	}
	after, _ := os.ReadFile(files[0])
	if string(after) != string(before) {
		t.Errorf("the parent's session file changed (%d → %d bytes)", len(before), len(after))
	}
	forkFile, err := os.ReadFile(filepath.Join(filepath.Dir(files[0]), fork+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(forkFile), "Create notes.md with a café note") || !strings.Contains(string(forkFile), "And what is in it?") {
		t.Errorf("the fork's session lacks the earlier conversation or the new prompt")
	}
	t.Logf("parent %s, fork %s (%s)", parent, fork, strings.Join(forkArgs, " "))
}

func sessionOf(t *testing.T, out string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		var r struct {
			Type      string `json:"type"`
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(line)), &r) == nil && r.Type == "result" {
			return r.SessionID
		}
	}
	t.Fatalf("no result in %s", out)
	return ""
}

// TestRealCodexForkThread checks the Codex backend's native fork against
// the real Codex app-server ($JC_REALCLI_BIN): a thread made by `codex
// exec`, then Start with ForkSession sends thread/fork, runs a turn in the
// copy, and announces the copy's id, not the parent's.
func TestRealCodexForkThread(t *testing.T) {
	bin := os.Getenv("JC_REALCLI_BIN")
	if bin == "" {
		t.Skip("set JC_REALCLI_BIN to the folder of the real codex binary")
	}
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	proj := filepath.Join(home, "work", "codex_fork")
	for _, d := range []string{proj, codexHome, filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runCLI(t, proj, nil, "git", "init", "-q")
	model, err := fakemodel.Start(fakemodel.Options{Scripts: genScript(proj)})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	cfg := "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\ncheck_for_update_on_startup = false\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \"" +
		model.OpenAIBaseURL() + "\"\nenv_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\nrequest_max_retries = 1\nstream_max_retries = 1\n"
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(genEnv(home, model.URL()), "CODEX_HOME="+codexHome, "OPENAI_API_KEY=test", "RUST_LOG=warn")
	runCLI(t, proj, env, filepath.Join(bin, "codex"), "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "Say hello")
	files, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("threads: %v", files)
	}
	parent := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")
	parent = parent[len(parent)-36:]
	b := codex.New(codex.Options{Binary: filepath.Join(bin, "codex")})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := b.Start(ctx, agent.Config{Cwd: proj, Mode: agent.ModeBypass, SessionID: parent, ForkSession: true,
		Env: map[string]string{"HOME": home, "CODEX_HOME": codexHome, "OPENAI_API_KEY": "test", "RUST_LOG": "warn"}}, "And then?")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	announced, done := "", false
	for !done {
		select {
		case bt, ok := <-s.Events():
			if !ok {
				t.Fatal("session ended before completing")
			}
			for _, ev := range bt.Events {
				switch ev.Type {
				case agent.EventSessionID:
					announced = ev.SessionID
				case agent.EventComplete:
					done = true
				}
			}
		case <-ctx.Done():
			t.Fatal("no completed turn in the fork")
		}
	}
	if announced == "" || announced == parent {
		t.Fatalf("fork announced %q (parent %s)", announced, parent)
	}
	after, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*"+announced+".jsonl"))
	if len(after) != 1 {
		t.Errorf("no rollout for the fork %s", announced)
	}
	t.Logf("parent %s, fork %s", parent, announced)
}

// TestRealCodexForkAtTurn checks a native fork from the end of a turn that
// does not end the thread against the real Codex app-server
// ($JC_REALCLI_BIN): two turns through the backend, codex.ForkPoint at the
// first turn's answer gives that turn, and a turn in the copy thread/fork
// makes with it (lastTurnId) sends the model the first turn, not the
// second.
func TestRealCodexForkAtTurn(t *testing.T) {
	bin := os.Getenv("JC_REALCLI_BIN")
	if bin == "" {
		t.Skip("set JC_REALCLI_BIN to the folder of the real codex binary")
	}
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	proj := filepath.Join(home, "work", "codex_fork_turn")
	for _, d := range []string{proj, codexHome, filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runCLI(t, proj, nil, "git", "init", "-q")
	model, err := fakemodel.Start(fakemodel.Options{KeepBodies: true, Scripts: map[string]fakemodel.Script{
		"one": {{Text: "First answer."}}, "two": {{Text: "Second answer."}}, "three": {{Text: "Third answer."}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	cfg := "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\ncheck_for_update_on_startup = false\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \"" +
		model.OpenAIBaseURL() + "\"\nenv_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\nrequest_max_retries = 1\nstream_max_retries = 1\n"
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	b := codex.New(codex.Options{Binary: filepath.Join(bin, "codex")})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	conf := agent.Config{Cwd: proj, Mode: agent.ModeBypass,
		Env: map[string]string{"HOME": home, "CODEX_HOME": codexHome, "OPENAI_API_KEY": "test", "RUST_LOG": "warn"}}
	s, err := b.Start(ctx, conf, "[scenario:one] Say one.")
	if err != nil {
		t.Fatal(err)
	}
	evs := untilComplete(ctx, t, s)
	if err := s.SendMessage(ctx, "[scenario:two] Say two."); err != nil {
		t.Fatal(err)
	}
	evs = append(evs, untilComplete(ctx, t, s)...)
	_ = s.Stop(context.Background())
	var msgs []agent.Message // as the task stores them
	at := map[string]int{}
	parent, answer := "", ""
	for _, ev := range evs {
		switch {
		case ev.Type == agent.EventSessionID && parent == "":
			parent = ev.SessionID
		case ev.Type == agent.EventMessage:
			if i, ok := at[ev.Message.ID]; ok {
				msgs[i] = *ev.Message
				continue
			}
			at[ev.Message.ID] = len(msgs)
			msgs = append(msgs, *ev.Message)
			if ev.Message.Role == agent.RoleAssistant && answer == "" {
				answer = ev.Message.ID
			}
		}
	}
	turn, ok := codex.ForkPoint(msgs, answer)
	if parent == "" || !ok || turn == "" {
		ids := []string{}
		for _, m := range msgs {
			ids = append(ids, string(m.Role)+":"+m.ID)
		}
		t.Fatalf("thread %q: fork point after %q = %q, %v; messages %v", parent, answer, turn, ok, ids)
	}
	conf.SessionID, conf.ForkSession, conf.ForkPoint = parent, true, turn
	f, err := b.Start(ctx, conf, "[scenario:three] Say three.")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop(context.Background())
	fork := ""
	for _, ev := range untilComplete(ctx, t, f) {
		if ev.Type == agent.EventSessionID {
			fork = ev.SessionID
		}
	}
	var body string
	for _, r := range model.Requests() {
		if r.Scenario == "three" {
			body = string(r.Body)
		}
	}
	if fork == "" || fork == parent {
		t.Errorf("fork announced %q (parent %s)", fork, parent)
	}
	if !strings.Contains(body, "Say one.") || !strings.Contains(body, "First answer.") || strings.Contains(body, "Say two.") {
		t.Errorf("the copy's turn sent the model: %s", body)
	}
	t.Logf("parent %s, fork %s through turn %s", parent, fork, turn)
}

// untilComplete reads the session's events up to its turn's complete.
func untilComplete(ctx context.Context, t *testing.T, s agent.Session) []agent.Event {
	t.Helper()
	var out []agent.Event
	for {
		select {
		case bt, ok := <-s.Events():
			if !ok {
				t.Fatal("session ended before completing")
			}
			for _, ev := range bt.Events {
				out = append(out, ev)
				if ev.Type == agent.EventComplete {
					return out
				}
			}
		case <-ctx.Done():
			t.Fatal("no completed turn")
		}
	}
}

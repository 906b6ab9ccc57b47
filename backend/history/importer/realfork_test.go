package importer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
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

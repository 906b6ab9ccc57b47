package oneshot_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/history/oneshot"
)

// TestMain lets the test binary act as a fake one-shot CLI
// ($JC_FAKE_ONESHOT): "claude" checks it was run as `claude -p
// --output-format text` with the question on stdin and answers a summary;
// "sleep" never answers.
func TestMain(m *testing.M) {
	switch os.Getenv("JC_FAKE_ONESHOT") {
	case "claude":
		in, _ := io.ReadAll(os.Stdin)
		args := os.Args[1:]
		if !slices.Equal(args, []string{"-p", "--output-format", "text"}) {
			fmt.Fprintf(os.Stderr, "unexpected args %q", args)
			os.Exit(2)
		}
		if !strings.Contains(string(in), "Summarize in one line") || !strings.Contains(string(in), "wc -l notes.md") {
			fmt.Fprintf(os.Stderr, "stdin lacks the question or the transcript: %q", in)
			os.Exit(3)
		}
		fmt.Print("\n\"**Created notes.md and counted its 2 lines.**\"\nextra line\n")
		os.Exit(0)
	case "claude-title":
		in, _ := io.ReadAll(os.Stdin)
		if !slices.Equal(os.Args[1:], []string{"-p", "--output-format", "text"}) || !strings.Contains(string(in), "Write a title") ||
			!strings.Contains(string(in), "--flag-looking prompt") {
			fmt.Fprintf(os.Stderr, "unexpected call %q %q", os.Args[1:], in)
			os.Exit(3)
		}
		fmt.Print("**Fix the flaky login test.**\n")
		os.Exit(0)
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func transcript() []agent.Message {
	return []agent.Message{
		{ID: "u", Role: agent.RoleUser, Parts: []agent.Part{{Type: agent.PartText, Text: "Create notes.md; then --help me count it"}}},
		{ID: "a", Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: "Done."},
			{Type: agent.PartToolUse, ToolName: "Bash", Input: []byte(`{"command":"wc -l notes.md"}`)}}},
		{ID: "r", Role: agent.RoleResult, Result: "notes.md has 2 lines"},
	}
}

func TestCommandFor(t *testing.T) {
	c, err := oneshot.CommandFor(agent.BackendClaudeCode, "/bin/claude", "")
	if err != nil || c.Binary != "/bin/claude" || !slices.Equal(c.Args, []string{"-p", "--output-format", "text"}) {
		t.Errorf("claude = %+v, %v", c, err)
	}
	c, err = oneshot.CommandFor(agent.BackendClaudeCode, "claude", "claude-haiku-4-5")
	if err != nil || !slices.Equal(c.Args, []string{"-p", "--output-format", "text", "--model", "claude-haiku-4-5"}) {
		t.Errorf("claude with a model = %+v, %v", c, err)
	}
	c, err = oneshot.CommandFor(agent.BackendCodex, "codex", "")
	if err != nil || !slices.Equal(c.Args, []string{"exec", "--skip-git-repo-check", "-"}) {
		t.Errorf("codex = %+v, %v", c, err)
	}
	if _, err := oneshot.CommandFor(agent.BackendClaudeCode, "claude", "--dangerously-skip-permissions"); err == nil {
		t.Error("a flag as the model was accepted")
	}
	if _, err := oneshot.CommandFor(agent.BackendOpenCode, "opencode", ""); !errors.Is(err, oneshot.ErrUnsupported) {
		t.Errorf("opencode: %v, want ErrUnsupported", err)
	}
}

// TestSummarizeFakeClaude: the transcript goes on stdin (never on the
// command line) and the answer's first line, cleaned, is the summary.
func TestSummarizeFakeClaude(t *testing.T) {
	c, _ := oneshot.CommandFor(agent.BackendClaudeCode, os.Args[0], "")
	c.Env = append(os.Environ(), "JC_FAKE_ONESHOT=claude")
	got, err := oneshot.Summarize(context.Background(), c, "Create notes.md", transcript(), 30*time.Second)
	if err != nil || got != "Created notes.md and counted its 2 lines." {
		t.Fatalf("Summarize = %q, %v", got, err)
	}
}

func TestSummarizeTimeout(t *testing.T) {
	c := oneshot.Command{Binary: os.Args[0], Env: append(os.Environ(), "JC_FAKE_ONESHOT=sleep")}
	began := time.Now()
	_, err := oneshot.Summarize(context.Background(), c, "p", transcript(), 300*time.Millisecond)
	if err == nil || time.Since(began) > 10*time.Second {
		t.Fatalf("err = %v after %v; want a timeout error soon", err, time.Since(began))
	}
}

func TestSummaryInputKeepsTheEnd(t *testing.T) {
	var msgs []agent.Message
	for i := range 400 {
		msgs = append(msgs, agent.Message{ID: fmt.Sprint(i), Role: agent.RoleAssistant,
			Parts: []agent.Part{{Type: agent.PartText, Text: fmt.Sprintf("step %d %s", i, strings.Repeat("é", 100))}}})
	}
	in := oneshot.SummaryInput("the prompt", msgs)
	if len(in) > 26000 || !strings.Contains(in, "step 399") || strings.Contains(in, "step 0 ") || !strings.Contains(in, "the prompt") {
		t.Errorf("input of %d bytes; end kept: %v", len(in), strings.Contains(in, "step 399"))
	}
	if !strings.HasPrefix(strings.Split(in, "<transcript>\n")[1], "…") {
		t.Error("a cut transcript does not say so")
	}
}

// TestTitleFakeClaude: the prompt goes on stdin (a prompt that looks like a
// flag stays data) and the answer's first line, cleaned, is the title.
func TestTitleFakeClaude(t *testing.T) {
	c, _ := oneshot.CommandFor(agent.BackendClaudeCode, os.Args[0], "")
	c.Env = append(os.Environ(), "JC_FAKE_ONESHOT=claude-title")
	got, err := oneshot.Title(context.Background(), c, "--flag-looking prompt: the login test fails one run in ten", 30*time.Second)
	if err != nil || got != "Fix the flaky login test" {
		t.Fatalf("Title = %q, %v", got, err)
	}
}

func TestTitleLine(t *testing.T) {
	for in, want := range map[string]string{
		"\n  \"Add dark mode.\"\nmore": "Add dark mode",
		"# Title":                      "Title",
		strings.Repeat("word ", 30):    strings.TrimSpace(strings.Repeat("word ", 12)) + "…",
		"":                             "",
	} {
		if got := oneshot.TitleLine(in); got != want {
			t.Errorf("TitleLine(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("é", 5000)
	if in := oneshot.TitleInput(long); len(in) > 4300 || !strings.Contains(in, "é…") {
		t.Errorf("a long prompt is not cut on a rune: %d bytes", len(in))
	}
}

// Package oneshot asks an agent CLI one question without a session: a
// task's one-line summary when it finishes (issue 16). The CLI runs in its
// own process group without a shell; what it is asked (the transcript
// included) goes on its stdin, never on its command line.
package oneshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// ErrUnsupported: the agent has no one-shot mode the summary can use.
var ErrUnsupported = errors.New("oneshot: this agent cannot answer a one-shot question")

// Command is one CLI invocation: the binary and its fixed arguments.
type Command struct {
	Binary string
	Args   []string
	Env    []string // nil: the app's environment
}

// CommandFor is the one-shot command of backend's CLI at binary: the
// question is read from stdin and the answer printed as plain text.
//
//	claude-code  claude -p --output-format text [--model M]   (-p with no prompt argument reads stdin)
//	codex        codex exec --skip-git-repo-check [-m M] -    ("-" reads the prompt from stdin)
//
// Model, when not empty, must be a model name (agent.ValidModel), never a
// flag.
func CommandFor(backend agent.BackendType, binary, model string) (Command, error) {
	if err := agent.ValidModel(model); err != nil {
		return Command{}, fmt.Errorf("oneshot: %w", err)
	}
	switch backend {
	case agent.BackendClaudeCode:
		args := []string{"-p", "--output-format", "text"}
		if model != "" {
			args = append(args, "--model", model)
		}
		return Command{Binary: binary, Args: args}, nil
	case agent.BackendCodex:
		args := []string{"exec", "--skip-git-repo-check"}
		if model != "" {
			args = append(args, "-m", model)
		}
		return Command{Binary: binary, Args: append(args, "-")}, nil
	}
	return Command{}, fmt.Errorf("%w: %s", ErrUnsupported, backend)
}

// Run runs c with input on stdin and returns its standard output. The CLI
// has timeout to answer; it is ended with its whole process group then.
func Run(ctx context.Context, c Command, input string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Binary, c.Args...)
	cmd.Env = c.Env
	cmd.Stdin = strings.NewReader(input)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &tail{max: 4096, b: &errOut}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("oneshot: %s: %w: %s", c.Binary, err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

// tail keeps the last max bytes written (a CLI's stderr).
type tail struct {
	max int
	b   *bytes.Buffer
}

func (t *tail) Write(p []byte) (int, error) {
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

// summaryLimit caps the transcript sent for a summary (the CLI's context
// and the cost stay small; the end of a task says most about it).
const summaryLimit = 24000

// SummaryInput is what a summary asks: the instruction, then the task's
// prompt and the end of its transcript.
func SummaryInput(prompt string, msgs []agent.Message) string {
	var t strings.Builder
	for _, m := range msgs {
		writeMessage(&t, m)
	}
	transcript := t.String()
	if len(transcript) > summaryLimit {
		cut := len(transcript) - summaryLimit
		for cut < len(transcript) && !utf8.RuneStart(transcript[cut]) {
			cut++
		}
		transcript = "…" + transcript[cut:]
	}
	return "Summarize in one line of at most 15 words what this coding-agent task did and how it ended. " +
		"Answer with that line only, no preamble, no quotes, no markdown.\n\n<task>\n" + prompt +
		"\n</task>\n\n<transcript>\n" + transcript + "</transcript>\n"
}

func writeMessage(b *strings.Builder, m agent.Message) {
	for _, p := range m.Parts {
		switch p.Type {
		case agent.PartText:
			fmt.Fprintf(b, "%s: %s\n", m.Role, clip(p.Text, 2000))
		case agent.PartToolUse:
			fmt.Fprintf(b, "%s: [tool %s %s]\n", m.Role, p.ToolName, clip(string(p.Input), 300))
		case agent.PartToolResult:
			fmt.Fprintf(b, "%s: [tool result %s]\n", m.Role, clip(p.TextContent(), 300))
		}
	}
	if m.Role == agent.RoleResult && m.Result != "" {
		fmt.Fprintf(b, "result: %s\n", clip(m.Result, 2000))
	}
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// SummaryLine turns a CLI's answer into the stored summary: its first
// non-empty line, without quotes or markdown emphasis, at most 200
// characters.
func SummaryLine(answer string) string {
	for _, l := range strings.Split(answer, "\n") {
		l = strings.Trim(strings.TrimSpace(l), "\"'`*_# ")
		if l == "" {
			continue
		}
		return clip(l, 200)
	}
	return ""
}

// Summarize asks c for the one-line summary of a task.
func Summarize(ctx context.Context, c Command, prompt string, msgs []agent.Message, timeout time.Duration) (string, error) {
	out, err := Run(ctx, c, SummaryInput(prompt, msgs), timeout)
	if err != nil {
		return "", err
	}
	line := SummaryLine(out)
	if line == "" {
		return "", fmt.Errorf("oneshot: %s answered nothing", c.Binary)
	}
	return line, nil
}

// titleLimit caps the prompt sent for a title (the start of a prompt says
// what the task is about).
const titleLimit = 4000

// TitleInput is what a title asks: the instruction, then the task's prompt
// (its first titleLimit bytes).
func TitleInput(prompt string) string {
	if len(prompt) > titleLimit {
		cut := titleLimit
		for cut > 0 && !utf8.RuneStart(prompt[cut]) {
			cut--
		}
		prompt = prompt[:cut] + "…"
	}
	return "Write a title of at most 6 words for this coding-agent task, in the language of the task. " +
		"Answer with the title only, no preamble, no quotes, no markdown, no final period.\n\n<task>\n" +
		prompt + "\n</task>\n"
}

// TitleLine turns a CLI's answer into a task title: its first non-empty
// line, without quotes, markdown or a final period, at most 60 characters.
func TitleLine(answer string) string {
	l := strings.TrimRight(SummaryLine(answer), ".")
	if r := []rune(l); len(r) > 60 {
		return strings.TrimSpace(string(r[:59])) + "…"
	}
	return l
}

// Title asks c for a short title of a task from its prompt.
func Title(ctx context.Context, c Command, prompt string, timeout time.Duration) (string, error) {
	out, err := Run(ctx, c, TitleInput(prompt), timeout)
	if err != nil {
		return "", err
	}
	line := TitleLine(out)
	if line == "" {
		return "", fmt.Errorf("oneshot: %s answered nothing", c.Binary)
	}
	return line, nil
}

package wtsetup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// ShellPath runs a setup command that needs a shell.
const ShellPath = "/bin/sh"

// Command is a parsed setup command.
type Command struct {
	// Source is the command as the user wrote it.
	Source string `json:"command"`
	// Argv is what runs: the parsed words, or ShellPath -c -- Source when
	// Shell is set.
	Argv []string `json:"argv"`
	// Shell: the command uses shell syntax (pipes, &&, redirections,
	// variables, globs, ...), so it runs under /bin/sh.
	Shell bool `json:"shell"`
}

// ParseCommand parses a setup command with mvdan.cc/sh's POSIX parser. A
// single simple command of literal (possibly quoted) words runs directly,
// without a shell; anything else — operators, redirections, expansions,
// globs, assignments, several commands — runs as `/bin/sh -c -- SOURCE`,
// the source being the operand of -c, never a flag.
func ParseCommand(src string) (Command, error) {
	src = strings.TrimSpace(src)
	c := Command{Source: src}
	if src == "" {
		return c, errors.New("the setup command is empty")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(src), "")
	if err != nil {
		return c, fmt.Errorf("the setup command does not parse: %w", err)
	}
	if argv, ok := simpleArgv(f); ok && !strings.HasPrefix(argv[0], "-") {
		c.Argv = argv
		return c, nil
	}
	c.Shell = true
	c.Argv = []string{ShellPath, "-c", "--", src}
	return c, nil
}

// simpleArgv returns the words of f when f is one plain command of literal
// words.
func simpleArgv(f *syntax.File) ([]string, bool) {
	if len(f.Stmts) != 1 {
		return nil, false
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
		return nil, false
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, false
	}
	var argv []string
	for _, w := range call.Args {
		if !literalWord(w) {
			return nil, false
		}
		s, err := expand.Literal(nil, w)
		if err != nil {
			return nil, false
		}
		argv = append(argv, s)
	}
	return argv, true
}

// literalWord: only literal text, single quotes, and double quotes holding
// literal text; no glob or tilde a shell would expand.
func literalWord(w *syntax.Word) bool {
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[{") || (i == 0 && strings.HasPrefix(p.Value, "~")) {
				return false
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// Result is how a setup command ended.
type Result struct {
	Code  int    `json:"code"`
	Error string `json:"error,omitempty"`
	// Stopped: it was cancelled (the task was stopped, the app closed),
	// not timed out nor failed by itself.
	Stopped bool `json:"stopped,omitempty"`
}

// OK reports success.
func (r Result) OK() bool { return r.Code == 0 && r.Error == "" }

// Run runs c in dir with env, in its own process group, writing its
// combined stdout and stderr to out as it comes (a slow out slows the
// command: backpressure). When ctx ends, or when the command exits, the
// whole group is killed, so nothing it started in the background is left.
func Run(ctx context.Context, c Command, dir string, env []string, out io.Writer) Result {
	if len(c.Argv) == 0 {
		return Result{Code: -1, Error: "nothing to run"}
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	// One pipe for stdout and stderr, read here: Wait returns when the
	// command exits, then the group is killed, which closes the pipe ends
	// any background child still holds, and the reader sees EOF.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{Code: -1, Error: err.Error()}
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	ownGroup(cmd)
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return Result{Code: -1, Error: fmt.Sprintf("start %s: %v", c.Argv[0], err)}
	}
	copied := make(chan struct{})
	go func() {
		if _, err := io.Copy(out, pr); err != nil {
			killGroup(cmd) // the output cannot be kept: stop, do not block it
			_, _ = io.Copy(io.Discard, pr)
		}
		pr.Close()
		close(copied)
	}()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			killGroup(cmd)
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	killGroup(cmd)
	<-copied
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		cause := context.Cause(ctx)
		return Result{Code: -1, Error: "stopped: " + cause.Error(), Stopped: !errors.Is(cause, context.DeadlineExceeded)}
	case errors.As(err, &ee):
		return Result{Code: ee.ExitCode()}
	case err != nil:
		return Result{Code: -1, Error: err.Error()}
	}
	return Result{}
}

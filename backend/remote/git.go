package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"strings"

	"github.com/jean-claude/jean-claude/backend/gitx"
)

// GitRunner runs gitx's git calls and file operations on the host over the
// client's connection: `env -u … K=V … git -C DIR ARGS…` with every word
// quoted, and small fixed sh programs whose only inputs are positional
// arguments. Paths are the host's own (absolute, '/'-separated).
type GitRunner struct{ C *Client }

// NewGit returns a gitx.Git whose every call runs on the host.
func NewGit(c *Client, env []string) (*gitx.Git, error) {
	return gitx.New(gitx.Options{Runner: GitRunner{C: c}, Env: env})
}

// Git implements gitx.Runner.
func (r GitRunner) Git(ctx context.Context, dir string, args, env []string, stdin io.Reader, stdout, stderr io.Writer) error {
	argv := []string{"env"}
	for _, n := range gitx.Scrubbed {
		argv = append(argv, "-u", n)
	}
	argv = append(argv, env...)
	argv = append(argv, "git")
	if dir != "" {
		argv = append(argv, "-C", dir)
	}
	argv = append(argv, args...)
	cmd := r.C.Cmd(ctx, argv...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 255 && ctx.Err() == nil {
		return fmt.Errorf("%w: %s", ErrUnreachable, r.C.host)
	}
	return err
}

// sh runs a fixed program with positional arguments and returns stdout
// and the exit code.
func (r GitRunner) sh(ctx context.Context, script string, args ...string) (string, int, error) {
	res, err := r.C.Run(ctx, nil, append([]string{"sh", "-c", script, "jc"}, args...)...)
	if err != nil {
		return "", -1, err
	}
	return strings.TrimRight(string(res.Stdout), "\n"), res.Code, nil
}

// Stat implements gitx.Runner.
func (r GitRunner) Stat(ctx context.Context, path string) (bool, bool, error) {
	out, code, err := r.sh(ctx, `if [ -d "$1" ]; then echo dir; elif [ -e "$1" ] || [ -L "$1" ]; then echo file; else echo none; fi`, path)
	if err != nil {
		return false, false, err
	}
	if code != 0 {
		return false, false, fmt.Errorf("remote: stat %s: exit %d", path, code)
	}
	return out != "none", out == "dir", nil
}

// MkdirAll implements gitx.Runner.
func (r GitRunner) MkdirAll(ctx context.Context, path string) error {
	_, err := r.C.Output(ctx, "mkdir", "-p", "--", path)
	return err
}

// Canonical implements gitx.Runner (directories: `cd -P; pwd -P`).
func (r GitRunner) Canonical(ctx context.Context, path string) string {
	out, code, err := r.sh(ctx, `if cd -P -- "$1" 2>/dev/null; then pwd -P; elif cd -P -- "$(dirname -- "$1")" 2>/dev/null; then printf '%s/%s\n' "$(pwd -P)" "$(basename -- "$1")"; else exit 1; fi`, path)
	if err != nil || code != 0 || out == "" {
		return cleanSlash(path)
	}
	return cleanSlash(out)
}

func cleanSlash(p string) string {
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

// TempDir implements gitx.Runner.
func (r GitRunner) TempDir(ctx context.Context) (string, error) {
	out, code, err := r.sh(ctx, `mktemp -d "${TMPDIR:-/tmp}/jean-claude-index-XXXXXX"`)
	if err != nil {
		return "", err
	}
	if code != 0 || out == "" {
		return "", fmt.Errorf("remote: mktemp: exit %d", code)
	}
	return out, nil
}

// RemoveAll implements gitx.Runner.
func (r GitRunner) RemoveAll(ctx context.Context, path string) error {
	_, err := r.C.Output(ctx, "rm", "-rf", "--", path)
	return err
}

// CopyFile implements gitx.Runner.
func (r GitRunner) CopyFile(ctx context.Context, src, dst string) error {
	_, code, err := r.sh(ctx, `[ -e "$1" ] || exit 3; umask 077; cp -- "$1" "$2"`, src, dst)
	switch {
	case err != nil:
		return err
	case code == 3:
		return fmt.Errorf("remote: %s: %w", src, fs.ErrNotExist)
	case code != 0:
		return fmt.Errorf("remote: copy %s: exit %d", src, code)
	}
	return nil
}

package gitx

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Runner runs git, and the few file operations gitx needs around it, on
// one machine: Local on this one, or another host (package remote's
// GitRunner runs the same calls over SSH). Worktree, diff, commit and
// merge code is the same for both.
type Runner interface {
	// Git runs the git binary with args in dir; env is added to a
	// scrubbed environment. A non-zero exit is an error with an
	// ExitCode() int method (exec.ExitError).
	Git(ctx context.Context, dir string, args, env []string, stdin io.Reader, stdout, stderr io.Writer) error
	// Stat reports whether path exists (without following a final
	// symlink) and whether it is a directory.
	Stat(ctx context.Context, path string) (exists, isDir bool, err error)
	// MkdirAll creates path and its parents (0755).
	MkdirAll(ctx context.Context, path string) error
	// Canonical resolves symlinks of path (or of its parent when the leaf
	// is gone); on failure it returns the cleaned path.
	Canonical(ctx context.Context, path string) string
	// TempDir creates a private temporary folder; RemoveAll removes it.
	TempDir(ctx context.Context) (string, error)
	RemoveAll(ctx context.Context, path string) error
	// CopyFile copies src to a new file dst (mode 0600); a missing src is
	// fs.ErrNotExist.
	CopyFile(ctx context.Context, src, dst string) error
}

// exitCoder is an error carrying a process's exit status.
type exitCoder interface{ ExitCode() int }

// Local runs git on this machine (exec, own process group, never a shell).
type Local struct{ bin string }

// Git implements Runner.
func (l Local) Git(ctx context.Context, dir string, args, env []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, l.bin, args...)
	cmd.Dir = dir
	cmd.Env = localEnviron(env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	setProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	return cmd.Run()
}

// localEnviron is this process's environment without the variables that
// would redirect git, plus extra.
func localEnviron(extra []string) []string {
	var env []string
outer:
	for _, kv := range os.Environ() {
		for _, s := range Scrubbed {
			if strings.HasPrefix(kv, s+"=") {
				continue outer
			}
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// Stat implements Runner.
func (Local) Stat(_ context.Context, path string) (bool, bool, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		if t, err := os.Stat(path); err == nil {
			return true, t.IsDir(), nil
		}
	}
	return true, st.IsDir(), nil
}

// MkdirAll implements Runner.
func (Local) MkdirAll(_ context.Context, path string) error { return os.MkdirAll(path, 0o755) }

// Canonical implements Runner.
func (Local) Canonical(_ context.Context, p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(r, filepath.Base(p))
	}
	return p
}

// TempDir implements Runner.
func (Local) TempDir(context.Context) (string, error) { return os.MkdirTemp("", "jean-claude-index-") }

// RemoveAll implements Runner.
func (Local) RemoveAll(_ context.Context, path string) error { return os.RemoveAll(path) }

// CopyFile implements Runner.
func (Local) CopyFile(_ context.Context, src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return copyTo(dst, in)
}

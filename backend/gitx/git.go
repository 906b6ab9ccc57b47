// Package gitx drives the git binary for Jean-Claude: one worktree and one
// branch per task, the task's status and diff against the commit it started
// from, committing, merging back into the source branch, and removing a
// task's worktree and branch without touching anything else.
//
// Every call runs `git` through exec.CommandContext (never a shell) in its
// own process group, with a scrubbed environment (LC_ALL=C, no terminal
// prompts, no inherited GIT_DIR/GIT_INDEX_FILE). User-provided branch names
// are validated with `git check-ref-format --branch` and names starting with
// '-' are refused; refs are passed in their full refs/heads/… form,
// `--end-of-options` or `--` separates options from names and paths, and
// pathspecs are literal (GIT_LITERAL_PATHSPECS=1), so a branch called
// `--foo` or a path with spaces is never parsed as an option or a glob.
//
// Mutating operations on one repository (create, merge, remove) are
// serialized by a per-repository lock held by the Git value, so several
// tasks can be started, merged and removed in parallel on the same repo.
package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Errors callers branch on (use errors.Is).
var (
	// ErrGitNotFound: no git binary on PATH.
	ErrGitNotFound = errors.New("git not found")
	// ErrNotRepository: the path is not inside a git repository.
	ErrNotRepository = errors.New("not a git repository")
	// ErrInvalidBranch: a branch name that git would refuse or could be
	// parsed as an option.
	ErrInvalidBranch = errors.New("invalid branch name")
	// ErrBranchNotFound: the branch does not exist.
	ErrBranchNotFound = errors.New("branch not found")
	// ErrInvalidPath: a path that is empty, relative or in a forbidden place.
	ErrInvalidPath = errors.New("invalid path")
	// ErrNotWorktree: the path is not a linked worktree of the repository
	// (the main worktree is never removed).
	ErrNotWorktree = errors.New("not a linked worktree of this repository")
	// ErrDirtyWorktree: the worktree has uncommitted (staged, unstaged or
	// untracked) changes.
	ErrDirtyWorktree = errors.New("worktree has uncommitted changes")
	// ErrHostUnreachable: the Runner runs on another host and could not
	// reach it (package remote's ErrUnreachable is this error).
	ErrHostUnreachable = errors.New("host unreachable")
	// ErrNothingToCommit: commit asked with no change.
	ErrNothingToCommit = errors.New("nothing to commit")
	// ErrNothingToMerge: the branch has no commit the target lacks.
	ErrNothingToMerge = errors.New("nothing to merge")
	// ErrMergeConflict: the merge would conflict; nothing was changed.
	ErrMergeConflict = errors.New("merge conflict")
	// ErrTargetDirty: the merge target is checked out in the main worktree
	// and that worktree has uncommitted changes to tracked files.
	ErrTargetDirty = errors.New("target branch is checked out with uncommitted changes")
	// ErrTargetCheckedOut: the merge target is checked out in another
	// linked worktree, which is not ours to update.
	ErrTargetCheckedOut = errors.New("target branch is checked out in another worktree")
	// ErrUnmergedBranch: deleting the branch would lose commits that are not
	// in its source branch.
	ErrUnmergedBranch = errors.New("branch has commits not merged into its source branch")
	// ErrEmptyMessage: commit message is blank.
	ErrEmptyMessage = errors.New("empty commit message")
)

// Error is a failed git invocation.
type Error struct {
	Args     []string
	Dir      string
	ExitCode int
	Stderr   string
	Err      error
}

func (e *Error) Error() string {
	sub := ""
	for _, a := range e.Args {
		if !strings.HasPrefix(a, "-") {
			sub = a
			break
		}
	}
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", sub, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Options configure New.
type Options struct {
	// Binary is the git executable; "" looks up "git" on PATH.
	Binary string
	// Env is appended to the scrubbed environment of every call (tests
	// set GIT_AUTHOR_NAME, GIT_CONFIG_GLOBAL, ... here).
	Env []string
	// Runner runs git somewhere else than on this machine (package
	// remote's GitRunner); nil = Local with Binary.
	Runner Runner
}

// Git runs git commands. Safe for concurrent use.
type Git struct {
	r   Runner
	env []string

	mu    sync.Mutex
	locks map[string]*sync.Mutex // per repository common dir
}

// New finds git and returns a runner.
func New(opt Options) (*Git, error) {
	if opt.Runner != nil {
		return &Git{r: opt.Runner, env: append([]string(nil), opt.Env...), locks: map[string]*sync.Mutex{}}, nil
	}
	bin := opt.Binary
	if bin == "" {
		bin = "git"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrGitNotFound, err)
	}
	return &Git{r: Local{bin: p}, env: append([]string(nil), opt.Env...), locks: map[string]*sync.Mutex{}}, nil
}

// Scrubbed are environment variables that would redirect git to another
// repository, index or pathspec mode if inherited; every Runner removes
// them before adding Fixed, Options.Env and the call's own.
var Scrubbed = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
	"GIT_PREFIX", "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS",
	"GIT_ICASE_PATHSPECS", "LC_ALL", "LANG", "LANGUAGE", "GIT_TERMINAL_PROMPT",
	"GIT_OPTIONAL_LOCKS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "PAGER",
	"GIT_EXTERNAL_DIFF", "GIT_DIFF_OPTS",
}

// fixedEnv is set for every call.
var fixedEnv = []string{
	"LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_LITERAL_PATHSPECS=1",
	"GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true", "GIT_PAGER=cat", "PAGER=cat",
}

func (g *Git) environ(extra []string) []string {
	env := append(append([]string(nil), fixedEnv...), g.env...)
	return append(env, extra...)
}

// call describes one git invocation.
type call struct {
	dir   string
	args  []string
	stdin io.Reader
	env   []string
	// ok lists exit codes that are not errors (the code is returned).
	ok []int
}

// run executes git and returns its stdout and exit code.
func (g *Git) run(ctx context.Context, c call) ([]byte, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, -1, err
	}
	args := append([]string{"-c", "core.quotepath=false", "-c", "color.ui=false",
		"-c", "core.pager=cat", "-c", "advice.detachedHead=false"}, c.args...)
	var stdout, stderr bytes.Buffer
	err := g.r.Git(ctx, c.dir, args, g.environ(c.env), c.stdin, &stdout, &stderr)
	code := 0
	if err != nil {
		var ee exitCoder
		if errors.As(err, &ee) && ctx.Err() == nil {
			code = ee.ExitCode()
			for _, ok := range c.ok {
				if code == ok {
					return stdout.Bytes(), code, nil
				}
			}
		} else {
			code = -1
			if ctx.Err() != nil {
				err = fmt.Errorf("%w (%v)", ctx.Err(), err)
			}
		}
		return stdout.Bytes(), code, &Error{Args: c.args, Dir: c.dir, ExitCode: code, Stderr: stderr.String(), Err: err}
	}
	return stdout.Bytes(), 0, nil
}

// out runs git in dir and returns trimmed stdout.
func (g *Git) out(ctx context.Context, dir string, args ...string) (string, error) {
	b, _, err := g.run(ctx, call{dir: dir, args: args})
	return strings.TrimRight(string(b), "\n"), err
}

// repoLock returns the lock serializing mutations of one repository.
func (g *Git) repoLock(commonDir string) *sync.Mutex {
	g.mu.Lock()
	defer g.mu.Unlock()
	m, ok := g.locks[commonDir]
	if !ok {
		m = &sync.Mutex{}
		g.locks[commonDir] = m
	}
	return m
}

// Repo describes a repository found from any path inside it.
type Repo struct {
	// Root is the top of the main worktree.
	Root string
	// CommonDir is the shared .git directory (absolute).
	CommonDir string
}

// OpenRepo resolves the main repository of path (which may be inside the
// main worktree or any linked worktree). Bare repositories are refused.
func (g *Git) OpenRepo(ctx context.Context, path string) (Repo, error) {
	if path == "" || !filepath.IsAbs(path) {
		return Repo{}, fmt.Errorf("%w: %q must be an absolute path", ErrInvalidPath, path)
	}
	if _, isDir, err := g.r.Stat(ctx, path); err != nil && errors.Is(err, ErrHostUnreachable) {
		return Repo{}, fmt.Errorf("%w: %s: %w", ErrNotRepository, path, err) // (not known: its host did not answer)
	} else if err != nil || !isDir {
		return Repo{}, fmt.Errorf("%w: %s: not a directory", ErrNotRepository, path)
	}
	common, err := g.out(ctx, path, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return Repo{}, fmt.Errorf("%w: %s: %w", ErrNotRepository, path, err)
	}
	common = filepath.Clean(common)
	wts, err := g.worktrees(ctx, path)
	if err != nil {
		return Repo{}, err
	}
	if len(wts) == 0 || wts[0].Bare {
		return Repo{}, fmt.Errorf("%w: %s: bare repositories are not supported", ErrNotRepository, path)
	}
	return Repo{Root: wts[0].Path, CommonDir: common}, nil
}

// IsDir reports whether path is a directory where g runs git: on this
// machine, or on the host of a remote Runner. An error counts as no.
func (g *Git) IsDir(ctx context.Context, path string) bool {
	_, isDir, err := g.r.Stat(ctx, path)
	return err == nil && isDir
}

// samePath reports whether two paths name the same directory, resolving
// symlinks when they exist.
func (g *Git) samePath(ctx context.Context, a, b string) bool {
	return g.r.Canonical(ctx, a) == g.r.Canonical(ctx, b)
}

// within reports whether p is dir or inside it.
func (g *Git) within(ctx context.Context, p, dir string) bool {
	p, dir = g.r.Canonical(ctx, p), g.r.Canonical(ctx, dir)
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// samePath compares two local paths (tests).
func samePath(a, b string) bool {
	l := Local{}
	return l.Canonical(context.Background(), a) == l.Canonical(context.Background(), b)
}

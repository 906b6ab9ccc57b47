package gitx

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// ValidateBranchName refuses names that git would not accept as a new
// branch (`git check-ref-format --branch`), names that could be parsed as
// an option (leading '-'), "HEAD", the @{…} shorthands, and control
// characters. It does not check that the branch exists.
func (g *Git) ValidateBranchName(ctx context.Context, name string) error {
	if err := checkBranchSyntax(name); err != nil {
		return err
	}
	// --branch also expands @{-N}; refused above, and the echo must match.
	got, err := g.out(ctx, "", "check-ref-format", "--branch", name)
	if err != nil || got != name {
		return fmt.Errorf("%w: %q", ErrInvalidBranch, name)
	}
	return nil
}

// checkBranchSyntax is the part of the validation done without git.
func checkBranchSyntax(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty", ErrInvalidBranch)
	case strings.HasPrefix(name, "-"):
		return fmt.Errorf("%w: %q starts with '-'", ErrInvalidBranch, name)
	case name == "HEAD" || strings.HasPrefix(name, "refs/"):
		return fmt.Errorf("%w: %q is reserved", ErrInvalidBranch, name)
	case strings.Contains(name, "@{"):
		return fmt.Errorf("%w: %q contains '@{'", ErrInvalidBranch, name)
	case len(name) > 200:
		return fmt.Errorf("%w: longer than 200 bytes", ErrInvalidBranch)
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return fmt.Errorf("%w: %q contains whitespace or control characters", ErrInvalidBranch, name)
		}
	}
	return nil
}

// Slug turns a task name into a branch/folder-safe fragment: lowercase
// ASCII letters, digits and single dashes, at most max bytes, never empty
// ("task").
func Slug(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
		}
		if b.Len() >= max {
			break
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > max {
		out = strings.Trim(out[:max], "-")
	}
	if out == "" {
		return "task"
	}
	return out
}

// ResolveBranch returns the commit a local branch points to.
func (g *Git) ResolveBranch(ctx context.Context, repo, branch string) (string, error) {
	if err := checkBranchSyntax(branch); err != nil {
		return "", err
	}
	sha, err := g.out(ctx, repo, "rev-parse", "--verify", "--quiet", "--end-of-options", "refs/heads/"+branch+"^{commit}")
	if err != nil || sha == "" {
		return "", fmt.Errorf("%w: %q", ErrBranchNotFound, branch)
	}
	return sha, nil
}

// branchExists reports whether refs/heads/<branch> exists.
func (g *Git) branchExists(ctx context.Context, repo, branch string) (bool, error) {
	_, code, err := g.run(ctx, call{dir: repo, args: []string{"show-ref", "--verify", "--quiet", "refs/heads/" + branch}, ok: []int{1}})
	if err != nil {
		return false, err
	}
	return code == 0, nil
}

// ResolveCommit returns the full id of a commit given by id (hex only, so
// it can never be an option or a revision expression).
func (g *Git) ResolveCommit(ctx context.Context, repo, id string) (string, error) {
	if !isHex(id) {
		return "", fmt.Errorf("gitx: %q is not a commit id", id)
	}
	sha, err := g.out(ctx, repo, "rev-parse", "--verify", "--quiet", "--end-of-options", id+"^{commit}")
	if err != nil || sha == "" {
		return "", fmt.Errorf("gitx: commit %s not found", id)
	}
	return sha, nil
}

func isHex(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Branch is a local branch.
type Branch struct {
	Name   string `json:"name"`
	Commit string `json:"commit"`
	// Current: checked out in the main worktree.
	Current bool `json:"current"`
	// Worktree: path of the worktree that has it checked out, if any.
	Worktree string `json:"worktree,omitempty"`
}

// Branches lists local branches, sorted by name.
func (g *Git) Branches(ctx context.Context, repo string) ([]Branch, error) {
	r, err := g.OpenRepo(ctx, repo)
	if err != nil {
		return nil, err
	}
	b, _, err := g.run(ctx, call{dir: r.Root, args: []string{"for-each-ref", "--format=%(refname)%00%(objectname)", "refs/heads/"}})
	if err != nil {
		return nil, err
	}
	wts, err := g.worktrees(ctx, r.Root)
	if err != nil {
		return nil, err
	}
	var out []Branch
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		ref, sha, ok := strings.Cut(line, "\x00")
		if !ok {
			continue
		}
		br := Branch{Name: strings.TrimPrefix(ref, "refs/heads/"), Commit: sha}
		for i, wt := range wts {
			if wt.Branch == br.Name {
				br.Worktree = wt.Path
				br.Current = i == 0
			}
		}
		out = append(out, br)
	}
	return out, nil
}

// DefaultBranch guesses the branch a task starts from when nothing is
// configured: the branch checked out in the main worktree, else "main",
// else "master", else the first branch.
func (g *Git) DefaultBranch(ctx context.Context, repo string) (string, error) {
	bs, err := g.Branches(ctx, repo)
	if err != nil {
		return "", err
	}
	for _, b := range bs {
		if b.Current {
			return b.Name, nil
		}
	}
	for _, want := range []string{"main", "master"} {
		for _, b := range bs {
			if b.Name == want {
				return want, nil
			}
		}
	}
	if len(bs) > 0 {
		return bs[0].Name, nil
	}
	return "", errors.New("gitx: the repository has no branch (make a first commit)")
}

// isAncestor reports whether commit a is an ancestor of (or equal to) b.
func (g *Git) isAncestor(ctx context.Context, repo, a, b string) (bool, error) {
	_, code, err := g.run(ctx, call{dir: repo, args: []string{"merge-base", "--is-ancestor", "--end-of-options", a, b}, ok: []int{1}})
	if err != nil {
		return false, err
	}
	return code == 0, nil
}

// CommitsBetween counts the commits reachable from to but not from from
// (both commit ids).
func (g *Git) CommitsBetween(ctx context.Context, dir, from, to string) (int, error) {
	if !isHex(from) || !isHex(to) {
		return 0, fmt.Errorf("gitx: %q..%q are not commit ids", from, to)
	}
	out, err := g.out(ctx, dir, "rev-list", "--count", "--end-of-options", from+".."+to)
	if err != nil {
		return 0, err
	}
	var n int
	if _, err := fmt.Sscan(out, &n); err != nil {
		return 0, fmt.Errorf("gitx: rev-list count %q: %w", out, err)
	}
	return n, nil
}

// Prefix returns the path of dir relative to the top of its worktree
// ("" at the top, else with a trailing slash as git prints it).
func (g *Git) Prefix(ctx context.Context, dir string) (string, error) {
	return g.out(ctx, dir, "rev-parse", "--show-prefix")
}

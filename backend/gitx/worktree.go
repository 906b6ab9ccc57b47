package gitx

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// WorktreeInfo is one entry of `git worktree list`.
type WorktreeInfo struct {
	Path   string
	Head   string
	Branch string // short name; "" when detached
	Bare   bool
	Locked bool
}

// worktrees lists the worktrees of the repository containing dir; the main
// worktree comes first.
func (g *Git) worktrees(ctx context.Context, dir string) ([]WorktreeInfo, error) {
	b, _, err := g.run(ctx, call{dir: dir, args: []string{"worktree", "list", "--porcelain", "-z"}})
	if err != nil {
		return nil, err
	}
	var out []WorktreeInfo
	var cur *WorktreeInfo
	for _, f := range bytes.Split(b, []byte{0}) {
		s := string(f)
		switch {
		case s == "":
			cur = nil
		case strings.HasPrefix(s, "worktree "):
			out = append(out, WorktreeInfo{Path: filepath.Clean(strings.TrimPrefix(s, "worktree "))})
			cur = &out[len(out)-1]
		case cur == nil:
		case strings.HasPrefix(s, "HEAD "):
			cur.Head = strings.TrimPrefix(s, "HEAD ")
		case strings.HasPrefix(s, "branch "):
			cur.Branch = strings.TrimPrefix(strings.TrimPrefix(s, "branch "), "refs/heads/")
		case s == "bare":
			cur.Bare = true
		case s == "locked" || strings.HasPrefix(s, "locked "):
			cur.Locked = true
		}
	}
	return out, nil
}

// Worktrees lists the worktrees of the repository containing dir; the
// main worktree comes first.
func (g *Git) Worktrees(ctx context.Context, dir string) ([]WorktreeInfo, error) {
	return g.worktrees(ctx, dir)
}

// DefaultWorktreeRoot is where task worktrees go when the project sets no
// folder: next to the repository, <parent>/<name>.worktrees, so they never
// show up as untracked files of the main worktree.
func DefaultWorktreeRoot(repoRoot string) string {
	repoRoot = filepath.Clean(repoRoot)
	return filepath.Join(filepath.Dir(repoRoot), filepath.Base(repoRoot)+".worktrees")
}

// CreateOptions describe a task worktree.
type CreateOptions struct {
	// Repo is any path inside the project's repository.
	Repo string
	// Root is the folder holding task worktrees; "" = DefaultWorktreeRoot.
	Root string
	// TaskName and TaskID name the branch and folder:
	// <prefix><slug(name)>-<first 8 of id>, suffixed -2, -3… if taken.
	TaskName string
	TaskID   string
	// BranchPrefix defaults to "jc/".
	BranchPrefix string
	// Source is the branch to start from; "" = DefaultBranch.
	Source string
}

// Worktree is a created task worktree.
type Worktree struct {
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Source string `json:"source"`
	// Base is the commit the branch was created at (the source's tip).
	Base string `json:"base"`
}

// CreateWorktree makes a new branch from the source branch's tip and checks
// it out in a new folder under the worktree root.
func (g *Git) CreateWorktree(ctx context.Context, opt CreateOptions) (Worktree, error) {
	r, err := g.OpenRepo(ctx, opt.Repo)
	if err != nil {
		return Worktree{}, err
	}
	root := opt.Root
	if root == "" {
		root = DefaultWorktreeRoot(r.Root)
	}
	if !filepath.IsAbs(root) {
		return Worktree{}, fmt.Errorf("%w: worktree folder %q must be absolute", ErrInvalidPath, root)
	}
	root = filepath.Clean(root)
	if g.samePath(ctx, root, r.Root) || g.within(ctx, root, r.CommonDir) {
		return Worktree{}, fmt.Errorf("%w: worktree folder %q may not be the repository itself or inside .git", ErrInvalidPath, root)
	}
	source := opt.Source
	if source == "" {
		if source, err = g.DefaultBranch(ctx, r.Root); err != nil {
			return Worktree{}, err
		}
	}
	if err := g.ValidateBranchName(ctx, source); err != nil {
		return Worktree{}, err
	}
	prefix := opt.BranchPrefix
	if prefix == "" {
		prefix = "jc/"
	}
	stem := Slug(opt.TaskName, 40)
	if id := Slug(opt.TaskID, 8); opt.TaskID != "" {
		stem += "-" + id
	}

	lock := g.repoLock(r.CommonDir)
	lock.Lock()
	defer lock.Unlock()

	base, err := g.ResolveBranch(ctx, r.Root, source)
	if err != nil {
		return Worktree{}, err
	}
	if err := g.r.MkdirAll(ctx, root); err != nil {
		return Worktree{}, fmt.Errorf("gitx: create worktree folder: %w", err)
	}
	var branch, path string
	for i := 1; ; i++ {
		name := stem
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		if i > 100 {
			return Worktree{}, fmt.Errorf("gitx: no free branch name for %q", stem)
		}
		branch, path = prefix+name, filepath.Join(root, name)
		if err := g.ValidateBranchName(ctx, branch); err != nil {
			return Worktree{}, err
		}
		exists, err := g.branchExists(ctx, r.Root, branch)
		if err != nil {
			return Worktree{}, err
		}
		taken, statErr := g.pathTaken(ctx, path)
		if statErr != nil {
			return Worktree{}, statErr
		}
		if exists || taken {
			continue
		}
		break
	}
	// -b takes the validated name (never starting with '-'); the path is
	// absolute and after "--"; the start point is a full commit id.
	if _, _, err := g.run(ctx, call{dir: r.Root, args: []string{"worktree", "add", "--quiet", "-b", branch, "--", path, base}}); err != nil {
		return Worktree{}, fmt.Errorf("gitx: create worktree %s: %w", path, err)
	}
	return Worktree{Path: path, Branch: branch, Source: source, Base: base}, nil
}

// Status is the state of one worktree.
type Status struct {
	Branch     string `json:"branch"`
	Head       string `json:"head"`
	Staged     int    `json:"staged"`
	Unstaged   int    `json:"unstaged"`
	Untracked  int    `json:"untracked"`
	Conflicted int    `json:"conflicted"`
}

// Clean reports no change at all (untracked files included).
func (s Status) Clean() bool {
	return s.Staged+s.Unstaged+s.Untracked+s.Conflicted == 0
}

// TrackedClean reports no change to tracked files (untracked ignored).
func (s Status) TrackedClean() bool {
	return s.Staged+s.Unstaged+s.Conflicted == 0
}

// Status reads a worktree's state without taking the index lock, so it can
// be polled while an agent works in it.
func (g *Git) Status(ctx context.Context, dir string) (Status, error) {
	b, _, err := g.run(ctx, call{dir: dir, env: []string{"GIT_OPTIONAL_LOCKS=0"},
		args: []string{"status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all"}})
	if err != nil {
		return Status{}, err
	}
	return parseStatus(b), nil
}

func parseStatus(b []byte) Status {
	var s Status
	fields := bytes.Split(b, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := string(fields[i])
		switch {
		case strings.HasPrefix(f, "# branch.oid "):
			s.Head = strings.TrimPrefix(f, "# branch.oid ")
			if s.Head == "(initial)" {
				s.Head = ""
			}
		case strings.HasPrefix(f, "# branch.head "):
			s.Branch = strings.TrimPrefix(f, "# branch.head ")
			if s.Branch == "(detached)" {
				s.Branch = ""
			}
		case strings.HasPrefix(f, "1 "), strings.HasPrefix(f, "2 "):
			if len(f) >= 4 {
				if f[2] != '.' {
					s.Staged++
				}
				if f[3] != '.' {
					s.Unstaged++
				}
			}
			if f[0] == '2' {
				i++ // the rename's original path is the next field
			}
		case strings.HasPrefix(f, "u "):
			s.Conflicted++
		case strings.HasPrefix(f, "? "):
			s.Untracked++
		}
	}
	return s
}

// RemoveOptions select what RemoveWorktree deletes.
type RemoveOptions struct {
	// Repo is any path inside the repository; Path the task's worktree.
	Repo, Path string
	// Force removes even with uncommitted changes (they are lost).
	Force bool
}

// RemoveWorktree removes one linked worktree of the repository. It refuses
// a path that is not registered as a linked worktree of that repository
// (the main worktree, another repository's worktree, any other folder) and,
// unless Force, a worktree with uncommitted or untracked changes
// (ErrDirtyWorktree). Only that worktree's folder and administrative files
// are removed: no objects, refs or other worktrees are touched. A worktree
// whose folder was already deleted is unregistered.
func (g *Git) RemoveWorktree(ctx context.Context, opt RemoveOptions) error {
	if opt.Path == "" || !filepath.IsAbs(opt.Path) {
		return fmt.Errorf("%w: worktree path %q must be absolute", ErrInvalidPath, opt.Path)
	}
	r, err := g.OpenRepo(ctx, opt.Repo)
	if err != nil {
		return err
	}
	lock := g.repoLock(r.CommonDir)
	lock.Lock()
	defer lock.Unlock()

	wts, err := g.worktrees(ctx, r.Root)
	if err != nil {
		return err
	}
	var wt *WorktreeInfo
	for i := range wts {
		if g.samePath(ctx, wts[i].Path, opt.Path) {
			if i == 0 {
				return fmt.Errorf("%w: %s is the main worktree", ErrNotWorktree, opt.Path)
			}
			wt = &wts[i]
			break
		}
	}
	if wt == nil {
		return fmt.Errorf("%w: %s", ErrNotWorktree, opt.Path)
	}
	present, _, statErr := g.r.Stat(ctx, wt.Path)
	missing := statErr == nil && !present
	if !opt.Force && !missing {
		st, err := g.Status(ctx, wt.Path)
		if err != nil {
			return err
		}
		if !st.Clean() {
			return fmt.Errorf("%w: %s has %d staged, %d unstaged, %d untracked, %d conflicted file(s); commit or discard them, or delete with force",
				ErrDirtyWorktree, wt.Path, st.Staged, st.Unstaged, st.Untracked, st.Conflicted)
		}
	}
	args := []string{"worktree", "remove"}
	if opt.Force || missing {
		args = append(args, "--force")
		if wt.Locked {
			args = append(args, "--force")
		}
	}
	args = append(args, "--", wt.Path)
	if _, _, err := g.run(ctx, call{dir: r.Root, args: args}); err != nil {
		if !opt.Force && strings.Contains(err.Error(), "contains modified or untracked files") {
			return fmt.Errorf("%w: %s: %v", ErrDirtyWorktree, wt.Path, err)
		}
		return fmt.Errorf("gitx: remove worktree %s: %w", wt.Path, err)
	}
	return nil
}

// DeleteBranchOptions select a branch to delete.
type DeleteBranchOptions struct {
	Repo   string
	Branch string
	// Source: unless Force, the branch must be fully merged into this
	// branch (ErrUnmergedBranch otherwise, also when Source is "").
	Source string
	// Force deletes even unmerged commits.
	Force bool
}

// DeleteBranch deletes a local branch that no worktree has checked out.
func (g *Git) DeleteBranch(ctx context.Context, opt DeleteBranchOptions) error {
	if err := checkBranchSyntax(opt.Branch); err != nil {
		return err
	}
	r, err := g.OpenRepo(ctx, opt.Repo)
	if err != nil {
		return err
	}
	lock := g.repoLock(r.CommonDir)
	lock.Lock()
	defer lock.Unlock()

	tip, err := g.ResolveBranch(ctx, r.Root, opt.Branch)
	if err != nil {
		return err
	}
	if !opt.Force {
		if opt.Source == "" {
			return fmt.Errorf("%w: %s (no source branch to compare with)", ErrUnmergedBranch, opt.Branch)
		}
		src, err := g.ResolveBranch(ctx, r.Root, opt.Source)
		if err != nil {
			return err
		}
		merged, err := g.isAncestor(ctx, r.Root, tip, src)
		if err != nil {
			return err
		}
		if !merged {
			return fmt.Errorf("%w: %s is not merged into %s", ErrUnmergedBranch, opt.Branch, opt.Source)
		}
	}
	if _, _, err := g.run(ctx, call{dir: r.Root, args: []string{"branch", "-D", "--end-of-options", opt.Branch}}); err != nil {
		return fmt.Errorf("gitx: delete branch %s: %w", opt.Branch, err)
	}
	return nil
}

// ReopenWorktree checks out an existing branch (a task's branch kept when
// its folder was removed) in a new worktree under root, named after the
// branch's last path component (suffixed -2, -3… if taken).
func (g *Git) ReopenWorktree(ctx context.Context, repo, root, branch string) (string, error) {
	if err := g.ValidateBranchName(ctx, branch); err != nil {
		return "", err
	}
	r, err := g.OpenRepo(ctx, repo)
	if err != nil {
		return "", err
	}
	if root == "" {
		root = DefaultWorktreeRoot(r.Root)
	}
	if !filepath.IsAbs(root) || g.samePath(ctx, root, r.Root) || g.within(ctx, root, r.CommonDir) {
		return "", fmt.Errorf("%w: worktree folder %q", ErrInvalidPath, root)
	}
	lock := g.repoLock(r.CommonDir)
	lock.Lock()
	defer lock.Unlock()
	if _, err := g.ResolveBranch(ctx, r.Root, branch); err != nil {
		return "", err
	}
	if err := g.r.MkdirAll(ctx, root); err != nil {
		return "", fmt.Errorf("gitx: create worktree folder: %w", err)
	}
	stem := Slug(filepath.Base(branch), 60)
	path := ""
	for i := 1; i <= 100; i++ {
		p := filepath.Join(root, stem)
		if i > 1 {
			p += "-" + strconv.Itoa(i)
		}
		if taken, err := g.pathTaken(ctx, p); err == nil && !taken {
			path = p
			break
		}
	}
	if path == "" {
		return "", fmt.Errorf("gitx: no free folder for %s under %s", branch, root)
	}
	// The validated short name after "--" checks the branch out (a full
	// refs/heads/ name would detach).
	if _, _, err := g.run(ctx, call{dir: r.Root, args: []string{"worktree", "add", "--quiet", "--", path, branch}}); err != nil {
		return "", fmt.Errorf("gitx: reopen %s in %s: %w", branch, path, err)
	}
	return path, nil
}

// pathTaken reports whether something already exists at path.
func (g *Git) pathTaken(ctx context.Context, path string) (bool, error) {
	exists, _, err := g.r.Stat(ctx, path)
	if err != nil {
		return false, fmt.Errorf("gitx: %s: %w", path, err)
	}
	return exists, nil
}

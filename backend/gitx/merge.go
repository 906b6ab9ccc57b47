package gitx

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// Commit stages everything in the worktree at dir (new, modified and
// deleted files, ignored files excepted) and commits it with message (read
// from stdin, so it is never parsed as an option). Hooks run as usual.
// Returns the new HEAD.
func (g *Git) Commit(ctx context.Context, dir, message string) (string, error) {
	if strings.TrimSpace(message) == "" {
		return "", ErrEmptyMessage
	}
	if _, _, err := g.run(ctx, call{dir: dir, args: []string{"add", "--all"}}); err != nil {
		return "", fmt.Errorf("gitx: stage changes: %w", err)
	}
	_, code, err := g.run(ctx, call{dir: dir, args: []string{"diff", "--cached", "--quiet", "--no-ext-diff"}, ok: []int{1}})
	if err != nil {
		return "", fmt.Errorf("gitx: commit: %w", err)
	}
	if code == 0 {
		return "", ErrNothingToCommit
	}
	if _, _, err := g.run(ctx, call{dir: dir, stdin: strings.NewReader(message),
		args: []string{"commit", "--quiet", "--file=-", "--cleanup=strip"}}); err != nil {
		return "", fmt.Errorf("gitx: commit: %w", err)
	}
	return g.out(ctx, dir, "rev-parse", "--verify", "HEAD")
}

// Head returns the commit checked out in the worktree at dir.
func (g *Git) Head(ctx context.Context, dir string) (string, error) {
	return g.out(ctx, dir, "rev-parse", "--verify", "HEAD")
}

// MergeOptions describe merging a task branch back into its source.
type MergeOptions struct {
	// Repo is any path inside the repository.
	Repo string
	// Branch is merged Into the target branch.
	Branch, Into string
	// Squash makes one commit on Into with Branch's changes (Branch itself
	// is not an ancestor afterwards).
	Squash bool
	// NoFastForward always makes a merge commit.
	NoFastForward bool
	// Message of the merge or squash commit ("" = a default).
	Message string
}

// MergeResult is what Merge did.
type MergeResult struct {
	// Commit is Into's new tip.
	Commit      string `json:"commit"`
	FastForward bool   `json:"fastForward"`
	Squashed    bool   `json:"squashed"`
	// Worktree is where Into was checked out and updated ("" when only the
	// ref moved).
	Worktree string `json:"worktree,omitempty"`
}

// ConflictError lists the files a merge would conflict on. It matches
// ErrMergeConflict.
type ConflictError struct {
	Branch, Into string
	Files        []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("merge conflict: merging %s into %s conflicts in %s; nothing was changed (rebase or resolve in the task's worktree, then merge again)",
		e.Branch, e.Into, strings.Join(e.Files, ", "))
}

// Is makes errors.Is(err, ErrMergeConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrMergeConflict }

// Merge merges Branch into Into without ever leaving a half-done merge:
//
//  1. The result is computed first, in memory: a fast-forward when Into is
//     an ancestor of Branch (unless Squash or NoFastForward), otherwise
//     `git merge-tree --write-tree` and `git commit-tree`. A conflict
//     returns a *ConflictError (ErrMergeConflict) and changes nothing.
//  2. Into is then moved to the result:
//     - checked out in the main worktree: only when that worktree has no
//     change to tracked files (else ErrTargetDirty); it is updated with
//     `git merge --ff-only`, which also refuses to overwrite untracked
//     files;
//     - checked out in another linked worktree: refused
//     (ErrTargetCheckedOut), it is not ours to change;
//     - not checked out: `git update-ref` with the old value, so a
//     concurrent update is detected rather than lost.
//
// The caller checks that the task's own worktree is committed first.
func (g *Git) Merge(ctx context.Context, opt MergeOptions) (MergeResult, error) {
	for _, b := range []string{opt.Branch, opt.Into} {
		if err := g.ValidateBranchName(ctx, b); err != nil {
			return MergeResult{}, err
		}
	}
	if opt.Branch == opt.Into {
		return MergeResult{}, fmt.Errorf("%w: cannot merge %s into itself", ErrInvalidBranch, opt.Branch)
	}
	r, err := g.OpenRepo(ctx, opt.Repo)
	if err != nil {
		return MergeResult{}, err
	}
	lock := g.repoLock(r.CommonDir)
	lock.Lock()
	defer lock.Unlock()

	tip, err := g.ResolveBranch(ctx, r.Root, opt.Branch)
	if err != nil {
		return MergeResult{}, err
	}
	target, err := g.ResolveBranch(ctx, r.Root, opt.Into)
	if err != nil {
		return MergeResult{}, err
	}
	if done, err := g.isAncestor(ctx, r.Root, tip, target); err != nil {
		return MergeResult{}, err
	} else if done {
		return MergeResult{}, fmt.Errorf("%w: %s is already contained in %s", ErrNothingToMerge, opt.Branch, opt.Into)
	}

	checkedOut, err := g.mergeTarget(ctx, r.Root, opt.Into)
	if err != nil {
		return MergeResult{}, err
	}
	ff, err := g.isAncestor(ctx, r.Root, target, tip)
	if err != nil {
		return MergeResult{}, err
	}
	res := MergeResult{Squashed: opt.Squash}
	if ff && !opt.Squash && !opt.NoFastForward {
		res.Commit, res.FastForward = tip, true
	} else if res.Commit, err = g.mergeCommit(ctx, r.Root, opt, target, tip); err != nil {
		return MergeResult{}, err
	}
	if checkedOut != "" {
		res.Worktree = checkedOut
		if _, _, err := g.run(ctx, call{dir: checkedOut, args: []string{"merge", "--ff-only", "--quiet", "--no-edit", "--end-of-options", res.Commit}}); err != nil {
			return MergeResult{}, fmt.Errorf("gitx: update %s in %s (nothing was merged): %w", opt.Into, checkedOut, err)
		}
		return res, nil
	}
	reason := fmt.Sprintf("jean-claude: merge %s", opt.Branch)
	if _, _, err := g.run(ctx, call{dir: r.Root, args: []string{"update-ref", "-m", reason, "refs/heads/" + opt.Into, res.Commit, target}}); err != nil {
		return MergeResult{}, fmt.Errorf("gitx: update %s (nothing was merged): %w", opt.Into, err)
	}
	return res, nil
}

// mergeTarget is where branch into is checked out: "" when nowhere, the
// main worktree when its tracked files are clean; checked out in a linked
// worktree (ErrTargetCheckedOut) or with changes there (ErrTargetDirty) it
// is an error.
func (g *Git) mergeTarget(ctx context.Context, root, into string) (string, error) {
	wts, err := g.worktrees(ctx, root)
	if err != nil {
		return "", err
	}
	checkedOut := ""
	for i, wt := range wts {
		if wt.Branch != into {
			continue
		}
		if i != 0 {
			return "", fmt.Errorf("%w: %s is checked out in %s; merge there or switch that worktree to another branch",
				ErrTargetCheckedOut, into, wt.Path)
		}
		checkedOut = wt.Path
		st, err := g.Status(ctx, wt.Path)
		if err != nil {
			return "", err
		}
		if !st.TrackedClean() {
			return "", fmt.Errorf("%w: %s is checked out in %s, which has %d staged, %d unstaged and %d conflicted file(s); commit or stash them there first",
				ErrTargetDirty, into, wt.Path, st.Staged, st.Unstaged, st.Conflicted)
		}
	}
	return checkedOut, nil
}

// mergeCommit makes the merge (or squash) commit of tip into target, in
// memory (a conflict is a *ConflictError), and returns its id.
func (g *Git) mergeCommit(ctx context.Context, root string, opt MergeOptions, target, tip string) (string, error) {
	tree, err := g.mergeTree(ctx, root, opt.Branch, opt.Into, target, tip)
	if err != nil {
		return "", err
	}
	msg := opt.Message
	parents := []string{"-p", target, "-p", tip}
	if opt.Squash {
		parents = []string{"-p", target}
		if strings.TrimSpace(msg) == "" {
			msg = fmt.Sprintf("Squashed commit of branch '%s'", opt.Branch)
		}
	} else if strings.TrimSpace(msg) == "" {
		msg = fmt.Sprintf("Merge branch '%s' into %s", opt.Branch, opt.Into)
	}
	args := append([]string{"commit-tree"}, parents...)
	args = append(args, "-F", "-", tree)
	out, _, err := g.run(ctx, call{dir: root, args: args, stdin: strings.NewReader(msg)})
	if err != nil {
		return "", fmt.Errorf("gitx: create merge commit: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// mergeTree merges two commits in memory and returns the tree id, or a
// *ConflictError.
func (g *Git) mergeTree(ctx context.Context, dir, branch, into, ours, theirs string) (string, error) {
	out, code, err := g.run(ctx, call{dir: dir, ok: []int{1},
		args: []string{"merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", ours, theirs}})
	if err != nil {
		return "", fmt.Errorf("gitx: merge %s into %s: %w", branch, into, err)
	}
	fields := bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0})
	if len(fields) == 0 || len(fields[0]) == 0 {
		return "", fmt.Errorf("gitx: merge %s into %s: no tree from merge-tree", branch, into)
	}
	tree := strings.TrimSpace(string(fields[0]))
	if code == 0 {
		return tree, nil
	}
	ce := &ConflictError{Branch: branch, Into: into}
	seen := map[string]bool{}
	for _, f := range fields[1:] {
		p := string(f)
		if p != "" && !seen[p] {
			seen[p] = true
			ce.Files = append(ce.Files, p)
		}
	}
	return "", ce
}
